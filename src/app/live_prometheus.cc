#include "app/live_prometheus.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <vector>

#include "base/json_writer.h"
#include "base/number_input.h"
#include "base/text.h"
#include "model/dcgm_metric_catalog.h"
#include "promql/cluster_query.h"

namespace kraken {
namespace {

// Every gauge of dcgm-exporter with a canonical metric, current and 1.x names: what the
// store's live view shows of an agent's profile. Counters (energy, errors) are left out:
// their newest value is a running total, not what the GPU does now.
std::string LiveFieldsQuery() {
  std::set<std::string_view> names;
  for (const prometheus::DcgmMetricEntry& entry : prometheus::DcgmMetricCatalog()) {
    if (entry.metric == Metric::kOther || entry.type != prometheus::PromType::kGauge) continue;
    names.insert(entry.field);
    if (!entry.legacy_name.empty()) names.insert(entry.legacy_name);
  }
  std::string regex;
  for (std::string_view n : names) regex.append(regex.empty() ? "" : "|").append(n);
  return "{__name__=~\"" + regex + "\"}";
}

struct LiveRow {
  std::string hostname, gpu_uuid, namespace_name, pod;
  int64_t gpu_index = -1, gpu_instance_id = -1;
  Metric metric = Metric::kOther;
  double value = 0;
  int64_t time_ms = 0;

  auto SortKey() const { return std::tie(hostname, gpu_index, gpu_instance_id, metric, pod); }
};

int64_t IntLabelOr(const promql::RangeSeries& s, std::string_view name, int64_t missing) {
  auto v = ParseBoundedNumber(promql::SeriesLabel(s, name), 0, 1e6);
  return v ? static_cast<int64_t>(*v) : missing;
}

// The newest point of the series that is a value (DCGM's blank sentinels and NaN are not).
bool NewestRow(const promql::RangeSeries& s, const prometheus::DcgmMetricEntry& entry, LiveRow* row) {
  for (size_t i = std::min(s.values.size(), s.times_ms.size()); i-- > 0;) {
    std::optional<double> v = ParseDouble(s.values[i]);
    if (!v || !std::isfinite(*v) || prometheus::IsDcgmBlank(s.values[i], *v)) continue;
    row->value = *v * entry.scale;
    row->time_ms = s.times_ms[i];
    return true;
  }
  return false;
}

std::vector<LiveRow> NewestRows(const std::vector<promql::RangeSeries>& series) {
  std::vector<LiveRow> rows;
  for (const promql::RangeSeries& s : series) {
    const prometheus::DcgmMetricEntry* entry = prometheus::FindDcgmMetric(promql::SeriesLabel(s, "__name__"));
    if (entry == nullptr) continue;
    LiveRow row;
    if (!NewestRow(s, *entry, &row)) continue;
    row.metric = entry->metric;
    row.hostname = promql::SeriesHostname(s);
    row.gpu_uuid = promql::SeriesLabel(s, "UUID");
    row.gpu_index = IntLabelOr(s, "gpu", -1);
    row.gpu_instance_id = IntLabelOr(s, "GPU_I_ID", -1);
    promql::SeriesPod(s, &row.namespace_name, &row.pod);
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const LiveRow& a, const LiveRow& b) { return a.SortKey() < b.SortKey(); });
  return rows;
}

void WriteRow(JsonWriter& json, const LiveRow& row) {
  json.BeginObject().Field("hostname", row.hostname).Field("gpu_uuid", row.gpu_uuid);
  json.Field("gpu_index", row.gpu_index).Field("gpu_instance_id", row.gpu_instance_id);
  json.Field("namespace", row.namespace_name).Field("pod", row.pod);
  json.Field("metric", GetMetricInfo(row.metric).name).Field("value", row.value);
  json.Field("time_ns", row.time_ms * 1'000'000).EndObject();
}

}  // namespace

Result<std::string> RenderPrometheusLiveEvent(const PrometheusLiveSettings& settings) {
  if (settings.lookback_s <= 0 || settings.step_s <= 0) return InvalidInput("lookback and step must be positive");
  KRAKEN_ASSIGN_OR_RETURN(auto client, promql::PrometheusClient::Create(settings.prometheus_url, settings.timeout_s));
  promql::ClusterQueryOptions options;
  options.range_s = settings.lookback_s;
  options.step_s = settings.step_s;
  options.end_s = settings.end_s;
  promql::QueryPlan plan;
  int64_t end_s = 0;
  std::vector<promql::RangeSeries> series;
  KRAKEN_RETURN_IF_ERROR(promql::QueryRangePaged(*client, LiveFieldsQuery(), options, &plan, &end_s, &series));
  std::vector<LiveRow> rows = NewestRows(series);
  int64_t newest_ms = 0;
  for (const LiveRow& row : rows) newest_ms = std::max(newest_ms, row.time_ms);
  JsonWriter json(false);
  json.BeginObject().Key("profile_id").Null().Field("source", "prometheus");
  json.Field("prometheus", settings.prometheus_url);
  json.Key("time_ns");
  if (rows.empty()) json.Null();
  else json.Int(newest_ms * 1'000'000);
  json.Field("truncated", rows.size() > settings.max_samples);
  json.Key("samples").BeginArray();
  for (size_t i = 0; i < rows.size() && i < settings.max_samples; ++i) WriteRow(json, rows[i]);
  json.EndArray().EndObject();
  return json.Take();
}

std::string PrometheusLiveErrorEvent(const std::string& prometheus_url, const std::string& message) {
  JsonWriter json(false);
  json.BeginObject().Key("profile_id").Null().Field("source", "prometheus").Field("prometheus", prometheus_url);
  json.Field("error", message).Key("time_ns").Null().Key("samples").BeginArray().EndArray().EndObject();
  return json.Take();
}

}  // namespace kraken
