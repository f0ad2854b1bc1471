#include "app/cluster_prometheus.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <optional>
#include <map>
#include <set>
#include <tuple>

#include "app/cluster_document.h"
#include "app/cluster_view.h"
#include "base/number_input.h"
#include "promql/prometheus_client.h"

namespace kraken {
namespace {

// The fields the cluster page shows, current and 1.x exporter names. Each is its own
// query: the aggregations below drop __name__, so two names in one answer could collide.
enum class Field { kBusyEngine, kBusyUtil, kFbUsed, kPower };

struct FieldSelector {
  Field field;
  const char* selector;
};

constexpr FieldSelector kFieldSelectors[] = {
    {Field::kBusyEngine, "{__name__=~\"DCGM_FI_PROF_GR_ENGINE_ACTIVE|dcgm_fi_prof_gr_engine_active\"}"},
    {Field::kBusyUtil, "{__name__=~\"DCGM_FI_DEV_GPU_UTIL|dcgm_gpu_utilization\"}"},
    {Field::kFbUsed, "{__name__=~\"DCGM_FI_DEV_FB_USED|dcgm_fb_used\"}"},
    {Field::kPower, "{__name__=~\"DCGM_FI_DEV_POWER_USAGE|dcgm_power_usage\"}"},
};

bool IsBusy(Field f) { return f == Field::kBusyEngine || f == Field::kBusyUtil; }

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

// Prometheus aggregates, the page only sums: per bin the mean and the number of raw
// samples (avg_over_time, count_over_time), per field the newest sample of the last bin
// (last_over_time).
// So what crosses the wire grows with GPUs x bins, not with GPUs x samples.
struct BusyAnswers {
  std::vector<promql::RangeSeries> mean, count;
};

struct FieldAnswers {
  std::map<Field, BusyAnswers> busy;
  std::map<Field, std::vector<promql::RangeSeries>> latest;
};

// Bins end at end_s, end_s - bin_s, ...; each covers (its end - bin_s, its end].
struct BinGrid {
  int64_t end_s = 0, bin_s = 1;
  size_t bins = 1;
  int64_t first_end_s() const { return end_s - static_cast<int64_t>(bins - 1) * bin_s; }
};

struct Accumulated {
  ClusterGpu gpu;
  double busy_sum = 0;
  int64_t busy_samples = 0;
  std::vector<double> bin_sum, bin_count;
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

Accumulated& RowOf(Folded& folded, const promql::RangeSeries& s, size_t bins) {
  GpuKey key = KeyOf(s);
  Accumulated& row = folded.gpus[key];
  if (row.bin_sum.empty()) {
    row.bin_sum.assign(bins, 0);
    row.bin_count.assign(bins, 0);
    row.gpu.entity.hostname = std::get<0>(key);
    row.gpu.entity.gpu_index = std::get<1>(key);
    row.gpu.entity.gpu_instance_id = std::get<2>(key);
  }
  if (row.gpu.entity.gpu_uuid.empty()) row.gpu.entity.gpu_uuid = promql::SeriesLabel(s, "UUID");
  if (row.gpu.entity.gpu_name.empty()) row.gpu.entity.gpu_name = promql::SeriesLabel(s, "modelName");
  if (row.gpu.entity.mig_profile.empty()) row.gpu.entity.mig_profile = promql::SeriesLabel(s, "GPU_I_PROFILE");
  return row;
}

std::string LabelsKey(const promql::RangeSeries& s) {
  std::string key;
  for (const auto& [name, value] : s.labels) key.append(name).append(1, '\x1e').append(value).append(1, '\x1f');
  return key;
}

// Per GPU, the best busy field it has: engine activity over utilization.
std::map<GpuKey, Field> BusyFieldPerGpu(const FieldAnswers& answers) {
  std::map<GpuKey, Field> best;
  for (const auto& [field, busy] : answers.busy)
    for (const promql::RangeSeries& s : busy.count) {
      auto [it, fresh] = best.try_emplace(KeyOf(s), field);
      if (!fresh && field < it->second) it->second = field;
    }
  return best;
}

// The raw-sample count of each bin of a count_over_time series, keyed by bin index.
std::map<size_t, double> BinCounts(const promql::RangeSeries& s, const BinGrid& grid) {
  std::map<size_t, double> counts;
  for (size_t i = 0; i < s.values.size() && i < s.times_ms.size(); ++i) {
    auto n = ParseBoundedNumber(s.values[i], 0, 1e12);
    int64_t offset_s = s.times_ms[i] / 1000 - grid.first_end_s();
    if (!n || *n <= 0 || offset_s < 0 || offset_s % grid.bin_s != 0) continue;
    size_t bin = static_cast<size_t>(offset_s / grid.bin_s);
    if (bin < grid.bins) counts[bin] = *n;
  }
  return counts;
}

// Folds one GPU's bin means (weighted by the bins' sample counts) into its row and pod.
void FoldBusy(const promql::RangeSeries& mean, const std::map<size_t, double>& counts, Field field,
              const BinGrid& grid, Accumulated& row, UseSum* use) {
  for (size_t i = 0; i < mean.values.size() && i < mean.times_ms.size(); ++i) {
    auto v = ParseBoundedNumber(mean.values[i], 0, 1e15);
    int64_t offset_s = mean.times_ms[i] / 1000 - grid.first_end_s();
    if (!v || offset_s < 0 || offset_s % grid.bin_s != 0) continue;  // DCGM's blank values, NaN
    auto count = counts.find(static_cast<size_t>(offset_s / grid.bin_s));
    if (count == counts.end()) continue;
    double value = Scaled(field, *v), n = count->second;
    TimeNs bin_end_ns = mean.times_ms[i] * 1'000'000;
    TimeNs bin_start_ns = bin_end_ns - grid.bin_s * 1'000'000'000;
    row.gpu.first_ns = row.gpu.first_ns == 0 ? bin_start_ns : std::min(row.gpu.first_ns, bin_start_ns);
    row.gpu.last_ns = std::max(row.gpu.last_ns, bin_end_ns);
    row.busy_sum += value * n;
    row.busy_samples += static_cast<int64_t>(n);
    row.bin_sum[count->first] += value * n;
    row.bin_count[count->first] += n;
    if (use != nullptr) {
      use->sum += value * n;
      use->samples += static_cast<int64_t>(n);
    }
  }
}

// The newest value of a last_over_time answer (one point, at the range's end).
std::optional<double> LatestValue(const promql::RangeSeries& s, Field field) {
  if (s.values.empty()) return std::nullopt;
  auto v = ParseBoundedNumber(s.values.back(), 0, 1e15);
  return v ? std::optional<double>(Scaled(field, *v)) : std::nullopt;
}

Folded Fold(const FieldAnswers& answers, const BinGrid& grid) {
  std::map<GpuKey, Field> busy_field = BusyFieldPerGpu(answers);
  Folded folded;
  for (const auto& [field, busy] : answers.busy) {
    // avg_over_time and count_over_time answer with the same labels: a GPU that changed
    // pods within the range has one series per pod in both.
    std::map<std::string, std::map<size_t, double>> counts;
    for (const promql::RangeSeries& s : busy.count) counts[LabelsKey(s)] = BinCounts(s, grid);
    for (const promql::RangeSeries& s : busy.mean) {
      GpuKey key = KeyOf(s);
      auto best = busy_field.find(key);
      if (best == busy_field.end() || best->second != field) continue;
      Accumulated& row = RowOf(folded, s, grid.bins);
      UseSum* use = nullptr;
      std::string ns, pod;
      if (promql::SeriesPod(s, &ns, &pod)) {
        use = &folded.pods[{ns, pod}];
        use->gpus.insert(key);
      }
      FoldBusy(s, counts[LabelsKey(s)], field, grid, row, use);
    }
  }
  for (const auto& [field, series] : answers.latest) {
    for (const promql::RangeSeries& s : series) {
      GpuKey key = KeyOf(s);
      auto best = busy_field.find(key);
      if (IsBusy(field) && (best == busy_field.end() || best->second != field)) continue;
      std::optional<double> value = LatestValue(s, field);
      if (!value) continue;
      Accumulated& row = RowOf(folded, s, grid.bins);
      if (IsBusy(field)) row.gpu.gpu_util_pct = value;
      else if (field == Field::kFbUsed) row.gpu.fb_used_bytes = value;
      else row.gpu.power_w = value;
    }
  }
  return folded;
}

ClusterDocument ToDocument(Folded& folded, const PrometheusClusterSettings& settings, const BinGrid& grid) {
  ClusterDocument doc;
  doc.source = "prometheus";
  doc.threshold_pct = settings.threshold_pct;
  doc.heatmap.start_ns = (grid.end_s - static_cast<int64_t>(grid.bins) * grid.bin_s) * 1'000'000'000;
  doc.heatmap.bins = grid.bins;
  doc.heatmap.bin_ns = grid.bin_s * 1'000'000'000;
  for (auto& [key, row] : folded.gpus) {
    if (row.busy_samples > 0) row.gpu.mean_gpu_util_pct = row.busy_sum / static_cast<double>(row.busy_samples);
    std::vector<std::optional<double>> values(grid.bins);
    for (size_t b = 0; b < grid.bins; ++b)
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

// One query of the page and where its answer goes.
struct FieldQuery {
  std::string expression;
  int64_t start_s = 0, end_s = 0;
  std::vector<promql::RangeSeries>* answer = nullptr;
};

// The queries of the page: per busy field the bin means and counts over the grid, per
// field the newest sample of the last bin. They run at once: Prometheus evaluates
// concurrent queries on its cores.
Status QueryFields(promql::PrometheusClient& client, const BinGrid& grid, FieldAnswers* answers, int64_t* queries) {
  // (end - bin, end]: a sample on a bin edge counts in one bin, not two.
  const std::string window = "[" + std::to_string(grid.bin_s * 1000 - 1) + "ms])";
  std::vector<FieldQuery> jobs;
  for (const FieldSelector& f : kFieldSelectors) {
    if (IsBusy(f.field)) {
      BusyAnswers& busy = answers->busy[f.field];
      jobs.push_back({"avg_over_time(" + std::string(f.selector) + window, grid.first_end_s(), grid.end_s, &busy.mean});
      jobs.push_back(
          {"count_over_time(" + std::string(f.selector) + window, grid.first_end_s(), grid.end_s, &busy.count});
    }
    // The newest sample within the last bin: what the GPU does now, not what a GPU gone
    // days ago did last (that would cost a pass over the whole range).
    jobs.push_back({"last_over_time(" + std::string(f.selector) + window, grid.end_s, grid.end_s,
                    &answers->latest[f.field]});
  }
  std::vector<std::future<Result<std::vector<promql::RangeSeries>>>> running;
  for (const FieldQuery& job : jobs)
    running.push_back(std::async(std::launch::async, [&client, &job, &grid] {
      return client.QueryRange(job.expression, job.start_s, job.end_s, grid.bin_s);
    }));
  Status first_error = Status::Ok();
  for (size_t i = 0; i < jobs.size(); ++i) {
    auto answer = running[i].get();
    if (!answer.ok()) {
      if (first_error.ok()) first_error = answer.status();
      continue;
    }
    *jobs[i].answer = std::move(answer).value();
  }
  *queries = static_cast<int64_t>(jobs.size());
  return first_error;
}

}  // namespace

Result<std::string> RenderPrometheusClusterView(const PrometheusClusterSettings& settings) {
  if (settings.bins < 1 || settings.bins > kMaxClusterBins)
    return InvalidInput("bins must be 1.." + std::to_string(kMaxClusterBins));
  if (settings.threshold_pct < 0 || settings.threshold_pct > 100) return InvalidInput("threshold_pct must be 0..100");
  if (settings.range_s <= 0) return InvalidInput("range must be positive");
  KRAKEN_ASSIGN_OR_RETURN(auto client, promql::PrometheusClient::Create(settings.prometheus_url, settings.timeout_s));
  BinGrid grid;
  grid.end_s = settings.end_s;
  if (grid.end_s == 0) {
    grid.end_s =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  grid.bins = settings.bins;
  grid.bin_s = std::max<int64_t>(1, (settings.range_s + static_cast<int64_t>(settings.bins) - 1) /
                                        static_cast<int64_t>(settings.bins));
  int64_t queries = 0;
  FieldAnswers answers;
  Status queried = QueryFields(*client, grid, &answers, &queries);
  if (!queried.ok()) return queried.WithContext("range " + std::to_string(settings.range_s) + " s");
  Folded folded = Fold(answers, grid);
  ClusterDocument doc = ToDocument(folded, settings, grid);
  doc.prometheus_url = settings.prometheus_url;
  doc.start_s = grid.end_s - settings.range_s;
  doc.end_s = grid.end_s;
  doc.step_s = grid.bin_s;
  doc.windows = queries;
  return RenderClusterDocument(doc);
}

}  // namespace kraken
