// Plain-language diagnoses. Each rule states its threshold here and in docs/analysis.md,
// and every diagnosis carries the figures it rests on, so a reader can check it.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <unordered_map>

#include "analysis/characterize.h"
#include "base/text.h"

namespace kraken {
namespace {

// Thresholds (percent of the analysed window unless said otherwise).
constexpr double kIdleMediumPct = 15;
constexpr double kIdleHighPct = 40;
constexpr double kExposedCommPct = 5;
constexpr double kH2dCopyPct = 5;
constexpr double kDataLoaderPct = 10;
constexpr double kSmallKernelCountPct = 60;
constexpr double kStepJitterCv = 0.10;
constexpr double kSyncPct = 5;
constexpr double kComputeShareForTensorPct = 30;
constexpr double kTensorShareLowPct = 10;

std::string Pct(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", value);
  return buf;
}

std::string Us(double ns) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.0f µs", ns / 1000.0);
  return buf;
}

double Share(TimeNs part, TimeNs whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

// CPU time in ops whose name starts with one of `prefixes` and that lie in the window.
TimeNs CpuTimeIn(const Profile& profile, std::initializer_list<std::string_view> prefixes, const Interval& w,
                 bool runtime) {
  TimeNs total = 0;
  std::unordered_map<StringId, bool> matches;
  auto match = [&](StringId id) {
    auto it = matches.find(id);
    if (it != matches.end()) return it->second;
    bool m = false;
    for (std::string_view p : prefixes) m = m || StartsWith(profile.Name(id), p);
    return matches[id] = m;
  };
  auto add = [&](TimeNs start, TimeNs end) { total += std::max<TimeNs>(0, std::min(end, w.end_ns) - std::max(start, w.start_ns)); };
  if (runtime) {
    for (const RuntimeCall& c : profile.runtime_calls)
      if (match(c.name)) add(c.start_ns, c.end_ns());
  } else {
    for (const CpuOp& op : profile.cpu_ops)
      if (op.category != CpuOpCategory::kGpuUserAnnotation && match(op.name)) add(op.start_ns, op.end_ns());
  }
  return total;
}

// What every rule reads: the analysed window and its CPU side.
struct DiagnosisInput {
  const Profile& profile;
  const WorkloadReport& report;
  const TimelineBreakdown& w;  // the main window (steps when there are steps)
  std::string window_name;     // "profiled steps" or "trace", for the sentences
  Interval cpu_window;         // the CPU side of the same span, for host-side shares
  TimeNs cpu_span = 0;
};

// 1. GPU idle, and what the host was doing instead.
std::optional<Diagnosis> DiagnoseGpuIdle(const DiagnosisInput& in) {
  const TimelineBreakdown& w = in.w;
  const LaunchStats& launches = in.report.launches;
  double idle_pct = w.idle_pct();
  if (idle_pct < kIdleMediumPct) return std::nullopt;
  Diagnosis d;
  d.id = "gpu_idle";
  d.severity = idle_pct >= kIdleHighPct ? "high" : "medium";
  d.evidence = {{"idle_pct", idle_pct}, {"idle_us", w.idle_ns / 1000.0}, {"window_us", w.total_ns / 1000.0}};
  TimeNs loader = CpuTimeIn(in.profile, {"enumerate(DataLoader)"}, in.cpu_window, false);
  double loader_pct = Share(loader, in.cpu_span);
  bool launch_bound = launches.small_kernel_count_pct() >= kSmallKernelCountPct && launches.linked_kernels > 0 &&
                      2 * launches.kernels_shorter_than_launch >= launches.linked_kernels;
  if (loader_pct >= kDataLoaderPct) {
    d.summary = "GPU idle " + Pct(idle_pct) + " of the " + in.window_name + "; the host spends " + Pct(loader_pct) +
                " of that time in the data loader (enumerate(DataLoader)): input-bound.";
    d.evidence.push_back({"dataloader_pct", loader_pct});
    d.recommendation =
        "Load data in parallel (DataLoader num_workers > 0, pin_memory=True, prefetch) so the GPU does not wait "
        "for the next batch.";
  } else if (launch_bound) {
    d.summary = "GPU idle " + Pct(idle_pct) + " of the " + in.window_name + "; " +
                Pct(launches.small_kernel_count_pct()) + " of kernels run under " +
                Us(static_cast<double>(launches.small_kernel_threshold_ns)) + ", shorter than their launch (launch-bound).";
    d.evidence.push_back({"small_kernel_count_pct", launches.small_kernel_count_pct()});
    d.evidence.push_back({"kernels_shorter_than_launch", static_cast<double>(launches.kernels_shorter_than_launch)});
    d.recommendation =
        "Cut launch overhead: capture the step in a CUDA graph, fuse small ops (torch.compile), or batch more work "
        "per launch.";
  } else {
    d.summary = "GPU idle " + Pct(idle_pct) + " of the " + in.window_name +
                " between GPU work: the host does not issue work fast enough (host-bound).";
    d.recommendation =
        "Find the CPU work between launches (Python overhead, host synchronisation, CPU-side preprocessing) and "
        "move it off the critical path; for serving, batch requests.";
  }
  return d;
}

// 2. Communication that no computation hides.
std::optional<Diagnosis> DiagnoseExposedCommunication(const DiagnosisInput& in) {
  const TimelineBreakdown& w = in.w;
  double exposed_pct = w.pct(w.exposed_comm_ns);
  if (w.comm_ns <= 0 || exposed_pct < kExposedCommPct) return std::nullopt;
  Diagnosis d;
  d.id = "exposed_communication";
  d.severity = exposed_pct >= 20 ? "high" : "medium";
  double hidden = 100.0 - Share(w.exposed_comm_ns, w.comm_ns);
  d.summary = "Exposed communication " + Pct(exposed_pct) + " of the " + in.window_name + " (" + Pct(hidden) +
              " of communication overlaps computation).";
  d.evidence = {{"exposed_comm_pct", exposed_pct},
                {"comm_us", w.comm_ns / 1000.0},
                {"exposed_comm_us", w.exposed_comm_ns / 1000.0}};
  d.recommendation =
      "Overlap collectives with computation (DDP gradient bucketing, FSDP prefetch, async collectives) or reduce "
      "their size (gradient compression, larger per-GPU batch).";
  return d;
}

// 3. Host-to-device copies, and whether they come from pageable memory.
std::optional<Diagnosis> DiagnoseHostToDeviceCopies(const DiagnosisInput& in) {
  int64_t pageable = 0, h2d = 0;
  std::vector<Interval> h2d_intervals;
  for (const MemoryOp& m : in.profile.memory_ops) {
    if (m.kind != MemoryOpKind::kMemcpy || m.direction != CopyDirection::kHostToDevice) continue;
    ++h2d;
    pageable += m.pageable_host_memory;
    h2d_intervals.push_back({m.start_ns, m.end_ns()});
  }
  TimeNs h2d_ns = IntervalSet::Union(std::move(h2d_intervals)).LengthWithin(in.w.window);
  double h2d_pct = in.w.pct(h2d_ns);
  if (h2d == 0 || (h2d_pct < kH2dCopyPct && (pageable == 0 || h2d_pct < 1))) return std::nullopt;
  Diagnosis d;
  d.id = "host_to_device_copies";
  d.severity = h2d_pct >= 15 ? "high" : "medium";
  d.summary = "Host-to-device copies take " + Pct(h2d_pct) + " of the " + in.window_name +
              (pageable > 0 ? "; " + std::to_string(pageable) + " of " + std::to_string(h2d) +
                                  " come from pageable memory (staged, slower, synchronous)."
                            : ".");
  d.evidence = {{"h2d_pct", h2d_pct}, {"h2d_copies", static_cast<double>(h2d)},
                {"pageable_copies", static_cast<double>(pageable)}};
  d.recommendation = pageable > 0 ? "Use pinned host memory (DataLoader pin_memory=True) and non_blocking=True "
                                    "copies so transfers overlap computation."
                                  : "Overlap copies with computation (non_blocking copies on a side stream) or "
                                    "keep data on the GPU between steps.";
  return d;
}

// 4. Host blocked waiting for the GPU.
std::optional<Diagnosis> DiagnoseHostSynchronization(const DiagnosisInput& in) {
  TimeNs sync_ns = CpuTimeIn(in.profile,
                             {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
                              "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize"},
                             in.cpu_window, true);
  double sync_pct = Share(sync_ns, in.cpu_span);
  if (sync_pct < kSyncPct) return std::nullopt;
  Diagnosis d;
  d.id = "host_synchronization";
  d.severity = sync_pct >= 20 ? "medium" : "low";
  d.summary = "The host spends " + Pct(sync_pct) + " of the " + in.window_name +
              " blocked in device/stream/event synchronisation.";
  d.evidence = {{"sync_pct", sync_pct}, {"sync_us", sync_ns / 1000.0}};
  d.recommendation =
      "Remove implicit syncs (.item(), .cpu(), printing tensors, torch.cuda.synchronize in the loop) so the host "
      "can queue work ahead.";
  return d;
}

// 5. Step time jitter.
std::optional<Diagnosis> DiagnoseStepTimeJitter(const DiagnosisInput& in) {
  const Distribution& steps = in.report.step_time_ns;
  if (steps.count < 3 || steps.cv() < kStepJitterCv) return std::nullopt;
  Diagnosis d;
  d.id = "step_time_jitter";
  d.severity = steps.cv() >= 0.3 ? "medium" : "low";
  d.summary = "Step time varies: coefficient of variation " + Pct(100 * steps.cv()) + ", p99 " + Us(steps.p99) +
              " vs median " + Us(steps.p50) + ".";
  d.evidence = {{"step_cv_pct", 100 * steps.cv()}, {"step_p50_us", steps.p50 / 1000.0}, {"step_p99_us", steps.p99 / 1000.0}};
  d.recommendation =
      "Look for periodic work (checkpointing, logging, evaluation, garbage collection) and stragglers in data "
      "loading or communication.";
  return d;
}

// 6. Compute-heavy kernels that do not use tensor cores on a device that has them.
std::optional<Diagnosis> DiagnoseNoTensorCores(const DiagnosisInput& in) {
  const BoundMix& mix = in.report.kernels.mix;
  const DeviceSpec* spec = in.report.device_spec;
  bool has_tensor_cores = spec != nullptr && (spec->fp16_tensor_flops_per_s > 0 || spec->bf16_tensor_flops_per_s > 0);
  double compute_share = mix.Pct(mix.compute_ns);
  double tensor_share = mix.Pct(mix.tensor_core_ns);
  if (!has_tensor_cores || compute_share < kComputeShareForTensorPct || tensor_share >= kTensorShareLowPct)
    return std::nullopt;
  Diagnosis d;
  d.id = "no_tensor_cores";
  d.severity = "medium";
  d.summary = Pct(compute_share) + " of kernel time is compute-bound but only " + Pct(tensor_share) +
              " runs on tensor cores (judged from kernel names).";
  d.evidence = {{"compute_bound_pct", compute_share}, {"tensor_core_pct", tensor_share}};
  d.recommendation = "Use mixed precision (torch.autocast with bf16/fp16) or TF32 matmuls so GEMMs and "
                     "convolutions run on tensor cores.";
  return d;
}

std::string KernelBoundRecommendation(Boundness dominant) {
  switch (dominant) {
    case Boundness::kMemory:
      return "Memory-bound work gains from fusion (fewer round trips to DRAM) and lower precision; it co-locates "
             "well with compute-bound work.";
    case Boundness::kCompute:
      return "Compute-bound work gains from tensor cores and lower precision; it co-locates well with memory-bound "
             "work.";
    case Boundness::kLatency:
      return "Latency-bound kernels leave both roofs unused: larger batches or fusion raise throughput; such GPUs "
             "are candidates for sharing.";
    default:
      return "";
  }
}

// 7. What bounds the kernels overall (informational).
std::optional<Diagnosis> DiagnoseKernelBound(const DiagnosisInput& in) {
  const BoundMix& mix = in.report.kernels.mix;
  Boundness dominant = mix.Dominant();
  if (dominant == Boundness::kUnknown || mix.total_ns() <= 0) return std::nullopt;
  Diagnosis d;
  d.id = "kernel_bound";
  d.severity = "info";
  bool measured = mix.measured_basis_ns * 2 >= mix.total_ns();
  double compute_share = mix.Pct(mix.compute_ns);
  d.summary = std::string("Kernel time is mostly ") + BoundnessName(dominant) + "-bound: compute " +
              Pct(compute_share) + ", memory " + Pct(mix.Pct(mix.memory_ns)) + ", latency " +
              Pct(mix.Pct(mix.latency_ns)) + ", unclassified " + Pct(mix.Pct(mix.unknown_ns)) +
              (measured ? " (from measured counters)." : " (from kernel names: no hardware counters in this input).");
  d.evidence = {{"compute_pct", compute_share},
                {"memory_pct", mix.Pct(mix.memory_ns)},
                {"latency_pct", mix.Pct(mix.latency_ns)},
                {"unknown_pct", mix.Pct(mix.unknown_ns)}};
  d.recommendation = KernelBoundRecommendation(dominant);
  return d;
}

// The rule table, in the order diagnoses are reported (most actionable first). A new rule
// is one function above and one row here.
using DiagnosisRule = std::optional<Diagnosis> (*)(const DiagnosisInput&);
constexpr DiagnosisRule kDiagnosisRules[] = {
    DiagnoseGpuIdle,        DiagnoseExposedCommunication, DiagnoseHostToDeviceCopies, DiagnoseHostSynchronization,
    DiagnoseStepTimeJitter, DiagnoseNoTensorCores,        DiagnoseKernelBound,
};

}  // namespace

std::vector<Diagnosis> Diagnose(const Profile& profile, const WorkloadReport& report) {
  std::vector<Diagnosis> out;
  const TimelineBreakdown& w = report.main_window();
  if (w.total_ns <= 0) return out;
  const bool stepped = report.timeline.steps_total.has_value();
  DiagnosisInput in{profile, report, w, stepped ? "profiled steps" : "trace", w.window, 0};
  if (stepped && !report.timeline.steps.empty()) {
    in.cpu_window.start_ns = std::min(in.cpu_window.start_ns, report.timeline.steps.front().cpu_window.start_ns);
    in.cpu_window.end_ns = std::max(in.cpu_window.end_ns, report.timeline.steps.back().cpu_window.end_ns);
  }
  in.cpu_span = in.cpu_window.length();
  for (DiagnosisRule rule : kDiagnosisRules) {
    if (std::optional<Diagnosis> d = rule(in)) out.push_back(std::move(*d));
  }
  return out;
}

}  // namespace kraken
