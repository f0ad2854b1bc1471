#include "analysis/characterize.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "model/device_catalog.h"

namespace kraken {
namespace {

// The device most kernels ran on, as the profile describes it.
const DeviceInfo* MainDevice(const Profile& profile) {
  if (profile.devices.empty()) return nullptr;
  std::vector<int64_t> per_device;
  for (const Kernel& k : profile.kernels) {
    if (k.device < 0 || k.device > 4096) continue;
    if (static_cast<size_t>(k.device) >= per_device.size()) per_device.resize(static_cast<size_t>(k.device) + 1);
    ++per_device[static_cast<size_t>(k.device)];
  }
  int32_t best = -1;
  for (size_t d = 0; d < per_device.size(); ++d)
    if (best < 0 || per_device[d] > per_device[static_cast<size_t>(best)]) best = static_cast<int32_t>(d);
  for (const DeviceInfo& info : profile.devices)
    if (best < 0 ? true : info.index == best) return &info;
  return &profile.devices.front();
}

std::optional<double> PeakOf(const Profile& profile, Metric metric) {
  std::optional<double> peak;
  for (const Series& s : profile.series) {
    if (s.metric != metric) continue;
    for (const Sample& sample : s.samples) peak = std::max(peak.value_or(sample.value), sample.value);
  }
  return peak;
}

// The CUDA allocations' peak: per device, the largest sum of its series' levels (one series
// per traced process: processes sharing a GPU add up), over the devices the largest.
std::optional<double> CudaAllocationPeak(const Profile& profile) {
  std::map<int32_t, std::vector<std::pair<const Series*, size_t>>> by_device;  // series, its index
  for (const Series& s : profile.series) {
    if (s.metric != Metric::kCudaAllocatedBytes || s.samples.empty()) continue;
    auto& series = by_device[s.entity.gpu_index];
    series.emplace_back(&s, series.size());
  }
  std::optional<double> peak;
  for (const auto& [device, series] : by_device) {
    std::vector<std::tuple<TimeNs, size_t, double>> changes;  // time, series index, level
    for (const auto& [s, index] : series)
      for (const Sample& sample : s->samples) changes.emplace_back(sample.time_ns, index, sample.value);
    std::sort(changes.begin(), changes.end());
    std::vector<double> level(series.size(), 0.0);
    double sum = 0;
    for (const auto& [time, index, value] : changes) {
      sum += value - level[index];
      level[index] = value;
      peak = std::max(peak.value_or(sum), sum);
    }
  }
  return peak;
}

}  // namespace

WorkloadReport CharacterizeWorkload(const Profile& profile, const CharacterizeOptions& options) {
  WorkloadReport report;
  const DeviceInfo* device = MainDevice(profile);
  if (device != nullptr) {
    report.device_name = device->name;
    report.sm_count = std::max(device->sm_count, 0);
  }
  report.device_spec = options.device;
  if (report.device_spec == nullptr && device != nullptr)
    report.device_spec = MatchDeviceSpec(device->name, device->memory_bytes);
  if (report.sm_count == 0 && report.device_spec != nullptr) report.sm_count = report.device_spec->sm_count;

  report.timeline = AnalyzeTimeline(profile, options.timeline);
  report.tb_plugin = ComputeTbPluginOverview(profile);
  KernelSummaryOptions kernel_options = options.kernels;
  if (options.kernels_over_steps && report.timeline.steps_total) kernel_options.window = report.timeline.steps_total->window;
  report.kernels = SummarizeKernels(profile, report.device_spec, report.sm_count, kernel_options);
  report.launches = ComputeLaunchStats(profile, options.launches);
  std::vector<double> steps;
  for (const StepAnnotation& s : profile.steps) steps.push_back(static_cast<double>(s.duration_ns));
  report.step_time_ns = Summarize(std::move(steps));
  report.workload_type = ClassifyWorkloadType(profile);
  report.peak_allocated_bytes = PeakOf(profile, Metric::kAllocatorAllocatedBytes);
  report.peak_reserved_bytes = PeakOf(profile, Metric::kAllocatorReservedBytes);
  report.peak_cuda_allocated_bytes = CudaAllocationPeak(profile);
  TraceInsightsOptions insight_options = options.insights;
  insight_options.idle.linked_only = options.timeline.linked_only;
  report.insights = AnalyzeTraceInsights(profile, report.timeline, insight_options);
  report.diagnoses = Diagnose(profile, report);
  return report;
}

}  // namespace kraken
