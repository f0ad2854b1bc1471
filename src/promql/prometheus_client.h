// A client of the Prometheus HTTP API (https://prometheus.io/docs/prometheus/latest/querying/api/):
// POST /api/v1/query_range, whose answer is a "matrix" of series with [time, "value"]
// pairs. The HTTP transport is cpp-httplib; the JSON parse is a pure function so it is
// tested without a server.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace kraken::promql {

// One series of a range result: its labels (with __name__) and its points.
struct RangeSeries {
  std::vector<std::pair<std::string, std::string>> labels;  // as the server sent them
  std::vector<int64_t> times_ms;
  std::vector<std::string> values;  // as written ("0.99563", "NaN"): DCGM's blank test needs the text
};

// The value of label `name` on the series; "" when it has none.
std::string SeriesLabel(const RangeSeries& series, std::string_view name);

// Who holds the series' GPU, under the label spellings dcgm-exporter and Prometheus produce:
// exported_namespace/exported_pod first (scraped without honorLabels, namespace/pod then name
// the exporter), then namespace/pod, then pod_namespace/pod_name (exporter 1.x). False when
// none names a pod.
bool SeriesPod(const RangeSeries& series, std::string* namespace_name, std::string* pod);

// The node of the series' GPU: its Hostname label, else the host part of `instance`
// (host:port of the exporter; some exporter versions send no Hostname).
std::string SeriesHostname(const RangeSeries& series);

// Reads a /api/v1/query_range answer. An "error" status becomes InvalidInput with the
// server's errorType and message; any other shape than a matrix is refused.
Result<std::vector<RangeSeries>> ParseRangeResponse(std::string_view json);

// Reads a /api/v1/series answer: one label set (with __name__) per series.
Result<std::vector<RangeSeries>> ParseSeriesResponse(std::string_view json);

struct ServerAddress {
  std::string scheme_host_port;  // "http://127.0.0.1:9090"
  std::string path_prefix;       // "" or "/prometheus" (a server behind --web.route-prefix)
};

// "http(s)://host:port[/prefix]" (https verifies against the system CA store).
Result<ServerAddress> ParseServerUrl(std::string_view url);

class PrometheusClient {
 public:
  static Result<std::unique_ptr<PrometheusClient>> Create(std::string_view url, int timeout_s = 60);

  // One query_range call, [start_s, end_s] both inclusive.
  Result<std::vector<RangeSeries>> QueryRange(const std::string& query, int64_t start_s, int64_t end_s, int64_t step_s);

  // One /api/v1/series call: the label sets of every series a matcher selects in
  // [start_s, end_s], no samples (RangeSeries with labels only). Cheap: index lookups.
  Result<std::vector<RangeSeries>> Series(const std::vector<std::string>& matchers, int64_t start_s, int64_t end_s);

  const std::string& url() const { return url_; }

 private:
  PrometheusClient(ServerAddress address, std::string url, int timeout_s)
      : address_(std::move(address)), url_(std::move(url)), timeout_s_(timeout_s) {}

  ServerAddress address_;
  std::string url_;
  int timeout_s_;
};

}  // namespace kraken::promql
