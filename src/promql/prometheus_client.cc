#include "promql/prometheus_client.h"

#include <httplib.h>
#include <simdjson.h>

#include <cmath>
#include <functional>

#include "base/text.h"

namespace kraken::promql {
namespace {

Status JsonError(std::string_view what, simdjson::error_code error) {
  return InvalidInput("Prometheus answer: " + std::string(what) + ": " + simdjson::error_message(error));
}

// [1435781430.781, "1"]: seconds with millisecond decimals, then the value as a string.
Status ReadPoint(simdjson::ondemand::value point, RangeSeries* series) {
  simdjson::ondemand::array pair;
  if (auto e = point.get_array().get(pair)) return JsonError("point is not [time, value]", e);
  int index = 0;
  for (auto element : pair) {
    simdjson::ondemand::value v;
    if (auto e = std::move(element).get(v)) return JsonError("point", e);
    if (index == 0) {
      double seconds = 0;
      if (auto e = v.get_double().get(seconds)) return JsonError("point time", e);
      if (!std::isfinite(seconds) || std::fabs(seconds) > 9e9) return InvalidInput("Prometheus answer: bad time");
      series->times_ms.push_back(static_cast<int64_t>(std::llround(seconds * 1000)));
    } else if (index == 1) {
      std::string_view text;
      if (auto e = v.get_string().get(text)) return JsonError("point value", e);
      series->values.emplace_back(text);
    }
    ++index;
  }
  if (index != 2) return InvalidInput("Prometheus answer: a point has " + std::to_string(index) + " elements, not 2");
  return Status::Ok();
}

Status ReadSeries(simdjson::ondemand::object object, RangeSeries* series) {
  for (auto field : object) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("series key", e);
    if (key == "metric") {
      simdjson::ondemand::object labels;
      if (auto e = field.value().get_object().get(labels)) return JsonError("metric", e);
      for (auto label : labels) {
        std::string_view name, value;
        if (auto e = label.unescaped_key().get(name)) return JsonError("label name", e);
        std::string name_copy(name);
        if (auto e = label.value().get_string().get(value)) return JsonError("label value", e);
        series->labels.emplace_back(std::move(name_copy), std::string(value));
      }
    } else if (key == "values") {
      simdjson::ondemand::array points;
      if (auto e = field.value().get_array().get(points)) return JsonError("values", e);
      for (auto point : points) {
        simdjson::ondemand::value v;
        if (auto e = std::move(point).get(v)) return JsonError("values", e);
        KRAKEN_RETURN_IF_ERROR(ReadPoint(v, series));
      }
    }
  }
  return Status::Ok();
}

// What the transport failure was, in words a person on call can act on (httplib's own names
// are one word: "Connection", "Read").
std::string TransportFailure(httplib::Error error, int timeout_s) {
  const std::string after = " after " + std::to_string(timeout_s) + " s";
  switch (error) {
    case httplib::Error::Connection: return "connection refused or host unreachable";
    case httplib::Error::ConnectionTimeout: return "connection timed out" + after;
    case httplib::Error::Read: return "no answer (timed out" + after + " or connection closed)";
    case httplib::Error::Write: return "connection closed while sending the request";
    default: return "request failed: " + httplib::to_string(error);
  }
}

// Prometheus answers 503 with its JSON error document when a query times out or is aborted
// (and a proxy in front of it may answer 502/504 with HTML): its errorType and error when
// the body is one, else nothing.
std::string ServerErrorDetail(std::string_view body) {
  constexpr std::string_view kRefused = "Prometheus refused the query: ";
  auto parsed = ParseRangeResponse(body);
  if (parsed.ok() || !StartsWith(parsed.status().message(), kRefused)) return "";
  std::string detail = parsed.status().message().substr(kRefused.size());
  if (detail.size() > 200) detail = detail.substr(0, 200) + "...";
  for (char& c : detail)
    if (c == '\n' || c == '\r') c = ' ';
  return ": " + detail;
}

// Down, unreachable, too slow or failing (5xx): Unavailable, an outage a caller may retry.
// 400 and 422 carry Prometheus's JSON error document for a bad query: the parser reads it
// (InvalidInput). Any other status (401, 403, 404 of a wrong path prefix) is a setup fault
// of --prometheus: IoError.
Status AnswerProblem(const httplib::Result& response, const std::string& url, std::string_view path, int timeout_s) {
  const std::string what = "Prometheus " + url + ": " + std::string(path) + ": ";
  if (!response) return Unavailable(what + TransportFailure(response.error(), timeout_s));
  const int status = response->status;
  if (status == 200 || status == 400 || status == 422) return Status::Ok();
  if (status >= 500 || status == 429)
    return Unavailable(what + "HTTP " + std::to_string(status) + ServerErrorDetail(response->body));
  return IoError(what + "HTTP " + std::to_string(status));
}

// The members every Prometheus API answer has: status, errorType, error.
struct Envelope {
  std::string status, error_type, error;
};

// Walks an answer's top-level members into *envelope and hands "data" to read_data: the
// one place that knows the envelope, for /query_range and /series alike.
Status ReadEnvelope(std::string_view json, Envelope* envelope,
                    const std::function<Status(simdjson::ondemand::value)>& read_data) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  simdjson::ondemand::document doc;
  if (auto e = parser.iterate(padded).get(doc)) return JsonError("not JSON", e);
  simdjson::ondemand::object root;
  if (auto e = doc.get_object().get(root)) return JsonError("not a JSON object", e);
  for (auto field : root) {
    std::string_view key, text;
    if (auto e = field.unescaped_key().get(key)) return JsonError("key", e);
    if (key == "status" || key == "errorType" || key == "error") {
      std::string key_copy(key);
      if (auto e = field.value().get_string().get(text)) return JsonError(key_copy, e);
      (key_copy == "status" ? envelope->status : key_copy == "errorType" ? envelope->error_type : envelope->error) =
          std::string(text);
    } else if (key == "data") {
      simdjson::ondemand::value data;
      if (auto e = field.value().get(data)) return JsonError("data", e);
      KRAKEN_RETURN_IF_ERROR(read_data(data));
    }
  }
  return Status::Ok();
}

// /query_range's data: {"resultType": "matrix", "result": [series...]}.
Status ReadMatrix(simdjson::ondemand::value value, std::vector<RangeSeries>* out, bool* have_data) {
  simdjson::ondemand::object data;
  if (auto e = value.get_object().get(data)) return JsonError("data", e);
  for (auto data_field : data) {
    std::string_view data_key, text;
    if (auto e = data_field.unescaped_key().get(data_key)) return JsonError("data key", e);
    if (data_key == "resultType") {
      if (auto e = data_field.value().get_string().get(text)) return JsonError("resultType", e);
      if (text != "matrix") return InvalidInput("Prometheus answer: resultType '" + std::string(text) + "', expected matrix");
    } else if (data_key == "result") {
      simdjson::ondemand::array result;
      if (auto e = data_field.value().get_array().get(result)) return JsonError("result", e);
      for (auto item : result) {
        simdjson::ondemand::object object;
        if (auto e = std::move(item).get_object().get(object)) return JsonError("series", e);
        KRAKEN_RETURN_IF_ERROR(ReadSeries(object, &out->emplace_back()));
      }
      *have_data = true;
    }
  }
  return Status::Ok();
}

// /series's data: [{label: value...}...].
Status ReadLabelSets(simdjson::ondemand::value value, std::vector<RangeSeries>* out) {
  simdjson::ondemand::array data;
  if (auto e = value.get_array().get(data)) return JsonError("data", e);
  for (auto item : data) {
    simdjson::ondemand::object labels;
    if (auto e = std::move(item).get_object().get(labels)) return JsonError("series", e);
    RangeSeries& series = out->emplace_back();
    for (auto label : labels) {
      std::string_view name, value_text;
      if (auto e = label.unescaped_key().get(name)) return JsonError("label name", e);
      std::string name_copy(name);
      if (auto e = label.value().get_string().get(value_text)) return JsonError("label value", e);
      series.labels.emplace_back(std::move(name_copy), std::string(value_text));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<RangeSeries>> ParseRangeResponse(std::string_view json) {
  Envelope envelope;
  std::vector<RangeSeries> out;
  bool have_data = false;
  KRAKEN_RETURN_IF_ERROR(ReadEnvelope(json, &envelope, [&](simdjson::ondemand::value data) {
    return ReadMatrix(data, &out, &have_data);
  }));
  if (envelope.status == "error")
    return InvalidInput("Prometheus refused the query: " + envelope.error_type + ": " + envelope.error);
  if (envelope.status != "success") return InvalidInput("Prometheus answer has status '" + envelope.status + "'");
  if (!have_data) return InvalidInput("Prometheus answer has no data.result");
  return out;
}

Result<std::vector<RangeSeries>> ParseSeriesResponse(std::string_view json) {
  Envelope envelope;
  std::vector<RangeSeries> out;
  KRAKEN_RETURN_IF_ERROR(
      ReadEnvelope(json, &envelope, [&](simdjson::ondemand::value data) { return ReadLabelSets(data, &out); }));
  if (envelope.status == "error") return InvalidInput("Prometheus refused the series request: " + envelope.error);
  if (envelope.status != "success") return InvalidInput("Prometheus answer has status '" + envelope.status + "'");
  return out;
}

Result<ServerAddress> ParseServerUrl(std::string_view url) {
  std::string_view rest = Trim(url);
  std::string scheme = StartsWith(rest, "https://") ? "https://" : "http://";
  if (!StartsWith(rest, scheme))
    return InvalidInput("--prometheus expects http(s)://HOST:PORT, got '" + std::string(url) + "'");
  rest.remove_prefix(scheme.size());
  size_t slash = rest.find('/');
  std::string_view host_port = rest.substr(0, slash);
  if (host_port.empty()) return InvalidInput("--prometheus '" + std::string(url) + "' names no host");
  ServerAddress address;
  address.scheme_host_port = scheme + std::string(host_port);
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash);
    while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
    address.path_prefix = std::string(prefix);
  }
  return address;
}

Result<std::unique_ptr<PrometheusClient>> PrometheusClient::Create(std::string_view url, int timeout_s) {
  KRAKEN_ASSIGN_OR_RETURN(ServerAddress address, ParseServerUrl(url));
  return std::unique_ptr<PrometheusClient>(new PrometheusClient(std::move(address), std::string(url), timeout_s));
}

Result<std::vector<RangeSeries>> PrometheusClient::QueryRange(const std::string& query, int64_t start_s, int64_t end_s,
                                                              int64_t step_s) {
  httplib::Client client(address_.scheme_host_port);
  client.set_connection_timeout(timeout_s_, 0);
  client.set_read_timeout(timeout_s_, 0);
  // POST with a form body: a selector with many names can exceed a URL's length limit.
  httplib::Params params{{"query", query},
                         {"start", std::to_string(start_s)},
                         {"end", std::to_string(end_s)},
                         {"step", std::to_string(step_s)}};
  auto response = client.Post(address_.path_prefix + "/api/v1/query_range", params);
  KRAKEN_RETURN_IF_ERROR(AnswerProblem(response, url_, "/api/v1/query_range", timeout_s_));
  return ParseRangeResponse(response->body);
}

Result<std::vector<RangeSeries>> PrometheusClient::Series(const std::vector<std::string>& matchers, int64_t start_s,
                                                          int64_t end_s) {
  httplib::Client client(address_.scheme_host_port);
  client.set_connection_timeout(timeout_s_, 0);
  client.set_read_timeout(timeout_s_, 0);
  httplib::Params params{{"start", std::to_string(start_s)}, {"end", std::to_string(end_s)}};
  for (const std::string& m : matchers) params.emplace("match[]", m);
  auto response = client.Post(address_.path_prefix + "/api/v1/series", params);
  KRAKEN_RETURN_IF_ERROR(AnswerProblem(response, url_, "/api/v1/series", timeout_s_));
  return ParseSeriesResponse(response->body);
}

std::string SeriesLabel(const RangeSeries& series, std::string_view name) {
  for (const auto& [key, value] : series.labels)
    if (key == name) return value;
  return "";
}

bool SeriesPod(const RangeSeries& series, std::string* namespace_name, std::string* pod) {
  for (auto [ns_label, pod_label] : {std::pair{"exported_namespace", "exported_pod"}, std::pair{"namespace", "pod"},
                                     std::pair{"pod_namespace", "pod_name"}}) {
    *pod = SeriesLabel(series, pod_label);
    *namespace_name = SeriesLabel(series, ns_label);
    if (!pod->empty()) return true;
  }
  return false;
}

std::string SeriesHostname(const RangeSeries& series) {
  std::string host = SeriesLabel(series, "Hostname");
  if (!host.empty()) return host;
  std::string instance = SeriesLabel(series, "instance");
  return instance.substr(0, instance.rfind(':'));
}

}  // namespace kraken::promql
