#include "app/cluster_prometheus.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "app/cluster_document.h"
#include "app/cluster_view.h"
#include "base/number_input.h"
#include "promql/cluster_query.h"

namespace kraken {
namespace {

// The fields the cluster page shows, current and 1.x exporter names.
constexpr char kClusterFieldsQuery[] =
    "{__name__=~\"DCGM_FI_PROF_GR_ENGINE_ACTIVE|DCGM_FI_DEV_GPU_UTIL|dcgm_gpu_utilization|"
    "DCGM_FI_DEV_FB_USED|dcgm_fb_used|DCGM_FI_DEV_POWER_USAGE|dcgm_power_usage\"}";

enum class Field { kBusyEngine, kBusyUtil, kFbUsed, kPower, kOther };

Field FieldOf(const std::string& name) {
  if (name == "DCGM_FI_PROF_GR_ENGINE_ACTIVE") return Field::kBusyEngine;
  if (name == "DCGM_FI_DEV_GPU_UTIL" || name == "dcgm_gpu_utilization") return Field::kBusyUtil;
  if (name == "DCGM_FI_DEV_FB_USED" || name == "dcgm_fb_used") return Field::kFbUsed;
  if (name == "DCGM_FI_DEV_POWER_USAGE" || name == "dcgm_power_usage") return Field::kPower;
  return Field::kOther;
}

// A series value in the page's unit: percent, bytes (the exporter sends MiB), watts.
double Scaled(Field field, double v) {
  switch (field) {
    case Field::kBusyEngine: return std::min(1.0, v) * 100.0;
    case Field::kFbUsed: return v * 1024.0 * 1024.0;
    default: return v;
  }
}

// Host, GPU index, MIG instance: the row key of the store path too.
using GpuKey = std::tuple<std::string, int32_t, int32_t>;

int32_t IntLabel(const promql::RangeSeries& s, const std::string& name) {
  auto v = ParseBoundedNumber(promql::SeriesLabel(s, name), 0, 1e6);
  return v ? static_cast<int32_t>(*v) : -1;
}

GpuKey KeyOf(const promql::RangeSeries& s) {
  return {promql::SeriesHostname(s), IntLabel(s, "gpu"), IntLabel(s, "GPU_I_ID")};
}

struct Accumulated {
  ClusterGpu gpu;
  double busy_sum = 0;
  int64_t busy_samples = 0;
  std::vector<double> bin_sum, bin_count;
  std::map<Field, int64_t> latest_ms;
};

struct UseSum {
  std::set<GpuKey> gpus;
  double sum = 0;
  int64_t samples = 0;
};

struct Folded {
  std::map<GpuKey, Accumulated> gpus;
  std::map<std::pair<std::string, std::string>, UseSum> pods;  // (namespace, pod)
};

// Per GPU, the best busy field it has: engine activity over utilization.
std::map<GpuKey, Field> BusyFieldPerGpu(const std::vector<promql::RangeSeries>& series) {
  std::map<GpuKey, Field> best;
  for (const promql::RangeSeries& s : series) {
    Field f = FieldOf(promql::SeriesLabel(s, "__name__"));
    if (f != Field::kBusyEngine && f != Field::kBusyUtil) continue;
    auto [it, fresh] = best.try_emplace(KeyOf(s), f);
    if (!fresh && f < it->second) it->second = f;
  }
  return best;
}

void FoldSeries(const promql::RangeSeries& s, Field field, bool busy, const PrometheusClusterSettings& settings,
                int64_t start_s, Accumulated& row, UseSum* use) {
  int64_t bin_ms = std::max<int64_t>(1, (settings.range_s * 1000) / static_cast<int64_t>(settings.bins) + 1);
  for (size_t i = 0; i < s.values.size() && i < s.times_ms.size(); ++i) {
    auto v = ParseBoundedNumber(s.values[i], 0, 1e15);
    if (!v) continue;  // DCGM's blank values, NaN
    double value = Scaled(field, *v);
    int64_t t_ms = s.times_ms[i];
    TimeNs t_ns = t_ms * 1'000'000;
    row.gpu.first_ns = row.gpu.first_ns == 0 ? t_ns : std::min(row.gpu.first_ns, t_ns);
    row.gpu.last_ns = std::max(row.gpu.last_ns, t_ns);
    int64_t& latest = row.latest_ms[field];
    if (t_ms >= latest) {
      latest = t_ms;
      if (busy) row.gpu.gpu_util_pct = value;
      else if (field == Field::kFbUsed) row.gpu.fb_used_bytes = value;
      else if (field == Field::kPower) row.gpu.power_w = value;
    }
    if (!busy) continue;
    row.busy_sum += value;
    ++row.busy_samples;
    size_t b = std::min(settings.bins - 1, static_cast<size_t>(std::max<int64_t>(0, t_ms - start_s * 1000) / bin_ms));
    row.bin_sum[b] += value;
    row.bin_count[b] += 1;
    if (use != nullptr) {
      use->sum += value;
      ++use->samples;
    }
  }
}

Folded Fold(const std::vector<promql::RangeSeries>& series, const PrometheusClusterSettings& settings,
            int64_t start_s) {
  std::map<GpuKey, Field> busy_field = BusyFieldPerGpu(series);
  Folded folded;
  for (const promql::RangeSeries& s : series) {
    Field field = FieldOf(promql::SeriesLabel(s, "__name__"));
    if (field == Field::kOther) continue;
    GpuKey key = KeyOf(s);
    Accumulated& row = folded.gpus[key];
    if (row.bin_sum.empty()) {
      row.bin_sum.assign(settings.bins, 0);
      row.bin_count.assign(settings.bins, 0);
      row.gpu.entity.hostname = std::get<0>(key);
      row.gpu.entity.gpu_index = std::get<1>(key);
      row.gpu.entity.gpu_instance_id = std::get<2>(key);
    }
    if (row.gpu.entity.gpu_uuid.empty()) row.gpu.entity.gpu_uuid = promql::SeriesLabel(s, "UUID");
    if (row.gpu.entity.gpu_name.empty()) row.gpu.entity.gpu_name = promql::SeriesLabel(s, "modelName");
    if (row.gpu.entity.mig_profile.empty()) row.gpu.entity.mig_profile = promql::SeriesLabel(s, "GPU_I_PROFILE");
    auto best = busy_field.find(key);
    bool busy = best != busy_field.end() && best->second == field;
    if ((field == Field::kBusyEngine || field == Field::kBusyUtil) && !busy) continue;
    UseSum* use = nullptr;
    std::string ns, pod;
    if (busy && promql::SeriesPod(s, &ns, &pod)) {
      use = &folded.pods[{ns, pod}];
      use->gpus.insert(key);
    }
    FoldSeries(s, field, busy, settings, start_s, row, use);
  }
  return folded;
}

ClusterDocument ToDocument(Folded& folded, const PrometheusClusterSettings& settings, int64_t start_s) {
  ClusterDocument doc;
  doc.source = "prometheus";
  doc.threshold_pct = settings.threshold_pct;
  doc.heatmap.start_ns = start_s * 1'000'000'000;
  doc.heatmap.bins = settings.bins;
  doc.heatmap.bin_ns = ((settings.range_s * 1000) / static_cast<int64_t>(settings.bins) + 1) * 1'000'000;
  for (auto& [key, row] : folded.gpus) {
    if (row.busy_samples > 0) row.gpu.mean_gpu_util_pct = row.busy_sum / static_cast<double>(row.busy_samples);
    std::vector<std::optional<double>> values(settings.bins);
    for (size_t b = 0; b < settings.bins; ++b)
      if (row.bin_count[b] > 0) values[b] = row.bin_sum[b] / row.bin_count[b];
    doc.heatmap.rows.push_back(std::move(values));
    doc.gpus.push_back(std::move(row.gpu));
  }
  std::vector<ClusterUse> pods;
  std::map<std::string, UseSum> namespaces;
  for (const auto& [id, use] : folded.pods) {
    if (use.samples == 0) continue;
    pods.push_back({id.first, id.second, static_cast<int64_t>(use.gpus.size()),
                    use.sum / static_cast<double>(use.samples), use.samples});
    UseSum& ns = namespaces[id.first];
    ns.gpus.insert(use.gpus.begin(), use.gpus.end());
    ns.sum += use.sum;
    ns.samples += use.samples;
  }
  doc.namespaces.emplace();
  for (const auto& [name, use] : namespaces)
    doc.namespaces->push_back({name, "", static_cast<int64_t>(use.gpus.size()),
                               use.sum / static_cast<double>(use.samples), use.samples});
  doc.pods = std::move(pods);
  return doc;
}

}  // namespace

Result<std::string> RenderPrometheusClusterView(const PrometheusClusterSettings& settings) {
  if (settings.bins < 1 || settings.bins > kMaxClusterBins)
    return InvalidInput("bins must be 1.." + std::to_string(kMaxClusterBins));
  if (settings.threshold_pct < 0 || settings.threshold_pct > 100) return InvalidInput("threshold_pct must be 0..100");
  if (settings.range_s <= 0) return InvalidInput("range must be positive");
  KRAKEN_ASSIGN_OR_RETURN(auto client, promql::PrometheusClient::Create(settings.prometheus_url, settings.timeout_s));
  promql::ClusterQueryOptions options;
  options.range_s = settings.range_s;
  options.end_s = settings.end_s;
  options.step_s = settings.step_s;
  promql::QueryPlan plan;
  int64_t end_s = 0;
  std::vector<promql::RangeSeries> series;
  KRAKEN_RETURN_IF_ERROR(promql::QueryRangePaged(*client, kClusterFieldsQuery, options, &plan, &end_s, &series));
  int64_t start_s = end_s - settings.range_s;
  Folded folded = Fold(series, settings, start_s);
  ClusterDocument doc = ToDocument(folded, settings, start_s);
  doc.prometheus_url = settings.prometheus_url;
  doc.start_s = start_s;
  doc.end_s = end_s;
  doc.step_s = plan.step_s;
  doc.windows = static_cast<int64_t>(plan.windows.size());
  return RenderClusterDocument(doc);
}

}  // namespace kraken
