// `kraken cost chargeback`: the DCGM utilization series of every pod read from Prometheus,
// grouped per GPU (or MIG instance) and pod, charged to the namespace or to a label.
#include <cctype>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "analysis/cost/budget_forecast.h"
#include "analysis/cost/chargeback.h"
#include "app/cost_request.h"
#include "base/number_input.h"
#include "base/small_file.h"
#include "base/text.h"
#include "base/text_table.h"
#include "model/device_catalog.h"
#include "promql/cluster_query.h"
#include "report/cost_output.h"

namespace kraken {
namespace {

// The busy fields, best first: DCGM's graphics-engine activity (0..1), then the
// utilization in percent (current and 1.x exporter names).
constexpr char kBusyQuery[] =
    "{__name__=~\"DCGM_FI_PROF_GR_ENGINE_ACTIVE|DCGM_FI_DEV_GPU_UTIL|dcgm_gpu_utilization\"}";

struct SeriesKey {
  std::string ns, pod, gpu;
  bool operator<(const SeriesKey& o) const { return std::tie(ns, pod, gpu) < std::tie(o.ns, o.pod, o.gpu); }
};

int MetricRank(const std::string& name) { return name == "DCGM_FI_PROF_GR_ENGINE_ACTIVE" ? 0 : 1; }

// Pod (namespace/pod) -> the value of its Kubernetes label, from kube-state-metrics.
using PodLabels = std::map<std::pair<std::string, std::string>, std::string>;

// kube_pod_labels carries each pod's labels as label_<name> (kube-state-metrics); the
// label name was checked by CheckBy, so it reaches the query as it is.
Result<PodLabels> QueryPodLabels(promql::PrometheusClient& client, const std::string& label,
                                 const promql::ClusterQueryOptions& options) {
  std::string query = "kube_pod_labels{label_" + label + "!=\"\"}";
  promql::QueryPlan plan;
  int64_t end_s = 0;
  std::vector<promql::RangeSeries> series;
  KRAKEN_RETURN_IF_ERROR(promql::QueryRangePaged(client, query, options, &plan, &end_s, &series));
  PodLabels out;
  std::string ns, pod;
  for (const promql::RangeSeries& s : series) {  // windows in time order: the latest value wins
    if (!promql::SeriesPod(s, &ns, &pod)) continue;
    std::string value = promql::SeriesLabel(s, "label_" + label);
    if (!value.empty()) out[{ns, pod}] = value;
  }
  return out;
}

// The team a series is charged to: its namespace, or with label=NAME the pod's label from
// kube_pod_labels, else the label on the DCGM series itself (dcgm-exporter's pod-label
// option), else "(no NAME)".
std::string TeamOf(const promql::RangeSeries& s, const SeriesKey& key, const std::string& label,
                   const PodLabels& pod_labels) {
  if (label.empty()) return key.ns;
  auto joined = pod_labels.find({key.ns, key.pod});
  if (joined != pod_labels.end()) return joined->second;
  std::string team = promql::SeriesLabel(s, label);
  if (team.empty()) team = promql::SeriesLabel(s, "label_" + label);
  return team.empty() ? "(no " + label + ")" : team;
}

void MarkAnswered(const promql::QueryPlan& plan, int64_t t, std::vector<bool>* answered) {
  if (plan.windows.empty() || plan.step_s <= 0) return;
  const int64_t offset = t - plan.windows.front().start_s;
  if (offset < 0 || offset % plan.step_s != 0 || offset / plan.step_s >= plan.total_points) return;
  answered->resize(static_cast<size_t>(plan.total_points));
  (*answered)[static_cast<size_t>(offset / plan.step_s)] = true;
}

struct Grouped {
  std::vector<cost::AllocatedGpu> gpus;
  int64_t series_without_pod = 0;
};

// `steps`: with --forecast, the plan whose steps each GPU's answered_steps index.
Grouped GroupSeries(const std::vector<promql::RangeSeries>& all, const std::string& by, const PodLabels& pod_labels,
                    const DeviceSpec* fallback, const promql::QueryPlan* steps) {
  std::string label = StartsWith(by, "label=") ? by.substr(6) : "";
  std::map<SeriesKey, std::pair<int, cost::AllocatedGpu>> best;  // metric rank, accumulated
  Grouped out;
  for (const promql::RangeSeries& s : all) {
    SeriesKey key;
    if (!promql::SeriesPod(s, &key.ns, &key.pod)) {
      ++out.series_without_pod;
      continue;
    }
    std::string mig = promql::SeriesLabel(s, "GPU_I_PROFILE");
    key.gpu = promql::SeriesLabel(s, "UUID");
    std::string instance = promql::SeriesLabel(s, "GPU_I_ID");
    if (!instance.empty()) key.gpu.append("/").append(instance);
    std::string metric = promql::SeriesLabel(s, "__name__");
    int rank = MetricRank(metric);
    auto [it, inserted] = best.try_emplace(key, rank, cost::AllocatedGpu());
    if (!inserted && rank > it->second.first) continue;
    if (!inserted && rank < it->second.first) it->second = {rank, cost::AllocatedGpu()};
    cost::AllocatedGpu& g = it->second.second;
    g.namespace_name = key.ns;
    g.pod = key.pod;
    g.gpu = key.gpu;
    g.share_of_gpu = cost::MigShareOfGpu(mig);
    g.team = TeamOf(s, key, label, pod_labels);
    const DeviceSpec* spec = MatchDeviceSpec(promql::SeriesLabel(s, "modelName"));
    if (spec == nullptr) spec = fallback;
    g.gpu_model = spec != nullptr ? spec->id : "";
    double scale = rank == 0 ? 1.0 : 0.01;
    for (size_t i = 0; i < s.values.size(); ++i) {
      auto v = ParseBoundedNumber(s.values[i], 0, 1e9);
      if (!v) continue;  // DCGM's blank values, NaN
      ++g.samples;
      g.busy_sum += std::min(1.0, *v * scale);
      if (steps != nullptr && i < s.times_ms.size()) MarkAnswered(*steps, s.times_ms[i] / 1000, &g.answered_steps);
    }
  }
  for (auto& [key, entry] : best) out.gpus.push_back(std::move(entry.second));
  return out;
}

// $ per GPU-hour of each model: the cheapest on-demand per-GPU price of `cloud`.
std::map<std::string, double> GpuHourPrices(const std::vector<cost::InstancePrice>& catalog, const std::string& cloud) {
  std::map<std::string, double> prices;
  for (const cost::InstancePrice& p : cost::FilterByProvider(catalog, cloud)) {
    double per_gpu = p.on_demand_usd_per_hour / p.gpus;
    auto [it, inserted] = prices.emplace(p.gpu_model, per_gpu);
    if (!inserted && per_gpu < it->second) it->second = per_gpu;
  }
  return prices;
}

Status CheckBy(const std::string& by) {
  if (by == "namespace") return Status::Ok();
  if (StartsWith(by, "label=") && by.size() > 6) {
    for (char c : by.substr(6))
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
        return InvalidInput("--by label=NAME: '" + by.substr(6) + "' is not a Prometheus label name");
    return Status::Ok();
  }
  return InvalidInput("--by expects namespace or label=NAME, got '" + by + "'");
}

// The flags checked before Prometheus is asked anything.
struct CheckedChargeback {
  promql::ClusterQueryOptions options;
  const DeviceSpec* fallback = nullptr;
  std::vector<cost::InstancePrice> catalog;
  std::map<std::string, double> budgets;
  std::optional<temporal::Horizon> forecast;
};

Result<CheckedChargeback> CheckChargebackSettings(const ChargebackSettings& settings) {
  if (settings.prometheus.empty()) return InvalidInput("cost chargeback needs --prometheus URL");
  KRAKEN_RETURN_IF_ERROR(CheckBy(settings.by));
  CheckedChargeback out;
  out.options.end_s = settings.end_s;
  auto range = promql::ParsePromDurationSeconds(settings.range);
  if (!range.ok()) return range.status().WithContext("--range");
  out.options.range_s = *range;
  if (settings.step != "auto") {
    auto step = promql::ParsePromDurationSeconds(settings.step);
    if (!step.ok()) return step.status().WithContext("--step");
    out.options.step_s = *step;
  }
  if (!settings.forecast.empty()) {
    out.forecast = temporal::ParseHorizon(settings.forecast);
    if (!out.forecast || out.forecast->axis != SampleAxis::kTimeNs)
      return InvalidInput("--forecast expects a horizon such as 24h, 12h or 2d, got '" + settings.forecast + "'");
  }
  if (!settings.gpu_model.empty() && (out.fallback = FindDeviceSpec(settings.gpu_model)) == nullptr)
    return InvalidInput("--gpu-model '" + settings.gpu_model + "' is not in the catalog (see `kraken devices`)");
  if (settings.usd_per_gpu_hour < 0) return InvalidInput("--usd-per-gpu-hour must not be negative");
  KRAKEN_ASSIGN_OR_RETURN(out.catalog, LoadPriceCatalog(settings.prices));
  if (!settings.budgets.empty()) {
    KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(settings.budgets, 16 * kMiB, "the --budgets file"));
    KRAKEN_ASSIGN_OR_RETURN(out.budgets, cost::ParseBudgets(text, settings.budgets));
  }
  return out;
}

}  // namespace

Result<std::string> RenderChargeback(const ChargebackSettings& settings, ChargebackFormat format) {
  KRAKEN_ASSIGN_OR_RETURN(CheckedChargeback checked, CheckChargebackSettings(settings));
  const promql::ClusterQueryOptions& options = checked.options;
  KRAKEN_ASSIGN_OR_RETURN(auto client, promql::PrometheusClient::Create(settings.prometheus, settings.timeout_s));
  promql::QueryPlan plan;
  int64_t end_s = 0;
  std::vector<promql::RangeSeries> series;
  KRAKEN_RETURN_IF_ERROR(promql::QueryRangePaged(*client, kBusyQuery, options, &plan, &end_s, &series));
  PodLabels pod_labels;
  if (StartsWith(settings.by, "label=")) {
    promql::ClusterQueryOptions same_range = options;
    same_range.end_s = end_s;
    KRAKEN_ASSIGN_OR_RETURN(pod_labels, QueryPodLabels(*client, settings.by.substr(6), same_range));
  }
  Grouped grouped = GroupSeries(series, settings.by, pod_labels, checked.fallback, checked.forecast ? &plan : nullptr);

  ChargebackView view;
  view.prometheus_url = settings.prometheus;
  view.by = settings.by;
  view.end_s = end_s;
  view.start_s = end_s - options.range_s;
  std::map<std::string, double> prices;
  std::optional<double> flat;
  if (settings.usd_per_gpu_hour > 0) {
    flat = settings.usd_per_gpu_hour;
    view.price_basis = "$";
    view.price_basis.append(FormatFixed(settings.usd_per_gpu_hour, 4)).append(" per GPU-hour (--usd-per-gpu-hour)");
  } else {
    prices = GpuHourPrices(checked.catalog, settings.cloud);
    view.price_basis = "cheapest on-demand $/GPU-hour of each GPU model in the " +
                       std::string(settings.prices.empty() ? "built-in catalog" : settings.prices) + " (" +
                       settings.cloud + ")";
  }
  view.charge = cost::ComputeChargeback(grouped.gpus, options.range_s, plan.step_s, prices, flat, checked.budgets);
  if (checked.forecast && !plan.windows.empty()) {
    cost::TeamAllocationRates rates = cost::AllocationRates(grouped.gpus, plan.windows.front().start_s, plan.step_s,
                                                            plan.total_points, prices, flat);
    cost::AttachMonthForecasts(&view.charge, rates, *checked.forecast);
  }
  switch (format) {
    case ChargebackFormat::kJson: return RenderChargebackJson(view);
    case ChargebackFormat::kCsv: return RenderChargebackCsv(view);
    case ChargebackFormat::kPrometheus: return RenderBudgetMetrics(view.charge);
    case ChargebackFormat::kHtml: return RenderChargebackHtmlSection(view);
    case ChargebackFormat::kText: break;
  }
  return RenderChargebackText(view);
}

}  // namespace kraken
