#include "importers/ncu/ncu_metric_map.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "base/text.h"

namespace kraken::ncu {
namespace {

constexpr std::string_view kBytes = "byte";
constexpr std::string_view kPercent = "%";
constexpr std::string_view kHertz = "hz";
constexpr std::string_view kNanoseconds = "ns";

std::optional<int64_t> ToInt64(std::optional<double> value) {
  if (!value || !std::isfinite(*value) || std::fabs(*value) >= 9.0e18) return std::nullopt;
  return std::llround(*value);
}

std::optional<int32_t> ToInt32(std::optional<double> value) {
  auto v = ToInt64(value);
  if (!v || *v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return static_cast<int32_t>(*v);
}

std::optional<double> Sum(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return std::nullopt;
  return *a + *b;
}

// add + mul + 2 x fma thread instructions (predicated on), as ncu's roofline counts
// FLOPs. All three must have been measured, or the sum would silently undercount.
std::optional<double> ScalarFlops(const MetricIndex& metrics, std::string_view add, std::string_view mul,
                                  std::string_view fma) {
  auto count = [&](std::string_view op) {
    std::string suffix = "sass_thread_inst_executed_op_" + std::string(op) + "_pred_on.sum";
    std::string smsp = "smsp__" + suffix, sm = "sm__" + suffix;
    return metrics.FirstValue({smsp, sm});
  };
  auto adds = count(add), muls = count(mul), fmas = count(fma);
  if (!adds || !muls || !fmas) return std::nullopt;
  return *adds + *muls + 2 * *fmas;
}

// Tensor-core work from sm__ops_path_tensor_src_<in>[_dst_<out>].sum.
//
// One counted op is one FLOP (a multiply-add counts 2). NVIDIA's text ("# of math ops
// executed in Tensor path", ncu --query-metrics, quoted by NVIDIA staff on
// forums.developer.nvidia.com thread 285256 as the way "to calculate FLOPs") does not
// say it, so it was established from the cutlass bf16 GEMM in shared/data/ncu:
// 45,902,462,976 ops in 404.70 us at 814,234 elapsed cycles (2.012 GHz) on 170 SMs is
// 113.4 Tops/s = 32.4 % of 1024 ops per SM per cycle, and ncu reports 32.46 % "Compute
// (SM) Throughput" for it: the tensor pipe peaks at 1024 ops/SM/cycle. NVIDIA's dense
// 16-bit tensor peak of the RTX 5090 (419 TFLOP/s at 2.41 GHz boost, half the 838
// dense FP8 / a quarter of the 3352 sparse-FP4 "AI TOPS") is 1024 FLOP/SM/cycle; if an
// op were an FMA the pipe would do 2048 FLOP/SM/cycle, the 2:4-sparse rate.
// Integer sources (int8, int4) are ops but not FLOPs and are left out.
std::optional<double> TensorFlops(const MetricIndex& metrics) {
  constexpr std::string_view kPrefix = "sm__ops_path_tensor_src_";
  constexpr std::string_view kSuffix = ".sum";
  std::map<std::string, double> by_path;    // "bf16_dst_fp32" -> ops
  std::map<std::string, double> by_source;  // "fp8" (no _dst_) -> ops
  std::set<std::string> sources_with_paths;
  for (const NcuMetric& metric : metrics.metrics()) {
    std::string_view name = metric.name;
    if (!metric.value || !StartsWith(name, kPrefix) || !EndsWith(name, kSuffix)) continue;
    std::string_view path = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
    // Sparsity splits are parts of the plain counter; "." means a rate or a peak.
    if (path.find("sparsity") != std::string_view::npos || path.find('.') != std::string_view::npos) continue;
    size_t dst = path.find("_dst_");
    std::string source(path.substr(0, dst));
    if (StartsWith(source, "int")) continue;
    if (dst == std::string_view::npos) {
      by_source.emplace(source, *metric.value);
    } else {
      by_path.emplace(std::string(path), *metric.value);
      sources_with_paths.insert(source);
    }
  }
  if (by_path.empty() && by_source.empty()) return std::nullopt;
  double total = 0;
  for (const auto& [path, ops] : by_path) total += ops;
  // A source-only counter sums that source's paths: use it only when they are absent.
  for (const auto& [source, ops] : by_source)
    if (sources_with_paths.count(source) == 0) total += ops;
  return total;
}

std::optional<double> DramBytes(const MetricIndex& metrics) {
  if (auto total = metrics.Value("dram__bytes.sum", kBytes)) return total;
  if (auto sum = Sum(metrics.Value("dram__bytes_read.sum", kBytes), metrics.Value("dram__bytes_write.sum", kBytes)))
    return sum;
  if (auto sum = Sum(metrics.Value("dram__bytes_op_read.sum", kBytes),
                     metrics.Value("dram__bytes_op_write.sum", kBytes)))
    return sum;
  // Pascal-era names (ncu on sm_6x).
  return Sum(metrics.Value("dram__read_bytes", kBytes), metrics.Value("dram__write_bytes", kBytes));
}

// The SM clock the roofline multiplies its per-cycle peaks with.
std::optional<double> RooflineSmClock(const MetricIndex& metrics, std::optional<double> fallback) {
  if (auto hz = metrics.Value("sm__cycles_elapsed.avg.per_second", kHertz)) return hz;
  if (auto hz = metrics.Value("SM Frequency", kHertz, "Roofline")) return hz;
  return fallback;
}

// Peak FLOP/s of an FMA pipe: 2 x FMA thread instructions per cycle x the SM clock.
// `ops_label` is the roofline section's row that already holds the doubled count
// (derived__sm__sass_thread_inst_executed_op_<fma>_pred_on_x2).
std::optional<double> PeakFmaFlops(const MetricIndex& metrics, std::string_view fma, std::string_view ops_label,
                                   std::string_view inst_label, std::optional<double> sm_clock) {
  if (!sm_clock) return std::nullopt;
  std::string peak = "sm__sass_thread_inst_executed_op_" + std::string(fma) + "_pred_on.sum.peak_sustained";
  if (auto per_cycle = metrics.Value(peak)) return 2 * *per_cycle * *sm_clock;
  if (auto ops_per_cycle = metrics.Value(ops_label)) return *ops_per_cycle * *sm_clock;
  if (auto per_cycle = metrics.Value(inst_label)) return 2 * *per_cycle * *sm_clock;
  return std::nullopt;
}

std::optional<double> PeakDramBytesPerSecond(const MetricIndex& metrics, std::optional<double> dram_clock) {
  std::optional<double> clock = metrics.Value("dram__cycles_elapsed.avg.per_second", kHertz);
  if (!clock) clock = metrics.Value("DRAM Frequency", kHertz, "Roofline");
  if (!clock) clock = dram_clock;
  std::optional<double> per_cycle = metrics.Value("dram__bytes.sum.peak_sustained");
  if (!per_cycle) per_cycle = metrics.Value("Theoretical DRAM Bytes Accessible");
  if (!clock || !per_cycle) return std::nullopt;
  return *per_cycle * *clock;
}

}  // namespace

bool TensorWorkUncounted(const MetricIndex& metrics) {
  if (TensorFlops(metrics).value_or(0) > 0) return false;
  // Matrix-multiply work on the tensor pipe: its MMA-type cycles, where ncu reported them
  // (the raw page). smsp__inst_executed_pipe_tensor is no evidence: it also counts the
  // tensor pipe's data-movement instructions (an FP32 tiled GEMM shows 32,768 and a cuDNN
  // layout transform 802,816 on an H100, with no MMA cycle).
  for (const NcuMetric& metric : metrics.metrics()) {
    std::string_view name = metric.name;
    if ((StartsWith(name, "sm__pipe_tensor_type_") || StartsWith(name, "sm__pipe_tensor_op_")) &&
        name.find("mma") != std::string_view::npos && EndsWith(name, ".avg.pct_of_peak_sustained_elapsed") &&
        metric.value && *metric.value > 0)
      return true;
  }
  // Without them: a tensor pipe busy 1 % of the time or more in a kernel that did no
  // scalar floating-point work (the details page of the same WMMA GEMM: 4.45 %).
  double scalar = 0;
  for (auto flops : {ScalarFlops(metrics, "fadd", "fmul", "ffma"), ScalarFlops(metrics, "dadd", "dmul", "dfma"),
                     ScalarFlops(metrics, "hadd", "hmul", "hfma")})
    scalar += flops.value_or(0);
  const double active =
      metrics.Value("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", kPercent).value_or(0);
  return scalar == 0 && active >= 1.0;
}

MetricIndex::MetricIndex(const std::vector<NcuMetric>& metrics) : metrics_(metrics) {
  for (size_t i = 0; i < metrics_.size(); ++i) by_name_[metrics_[i].name].push_back(i);
}

std::optional<double> MetricIndex::Value(std::string_view name, std::string_view unit,
                                         std::string_view label_hint) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  std::optional<double> any;
  for (size_t i : it->second) {
    const NcuMetric& metric = metrics_[i];
    if (!metric.value || (unit != kAnyUnit && metric.base_unit != unit)) continue;
    if (label_hint.empty() || metric.body_item_label.find(label_hint) != std::string::npos) return metric.value;
    if (!any) any = metric.value;
  }
  return any;
}

std::optional<double> MetricIndex::FirstValue(const std::vector<std::string_view>& names,
                                              std::string_view unit) const {
  for (std::string_view name : names)
    if (auto value = Value(name, unit)) return value;
  return std::nullopt;
}

std::optional<std::string> MetricIndex::Text(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end() || it->second.empty()) return std::nullopt;
  return metrics_[it->second.front()].text;
}

LaunchFacts MapLaunchFacts(const MetricIndex& metrics) {
  LaunchFacts facts;
  facts.duration_ns = ToInt64(metrics.FirstValue({"gpu__time_duration.sum", "gpu__time_duration", "Duration"},
                                                 kNanoseconds));
  if (!facts.duration_ns) {
    // ncu defines x.per_second as x / gpu__time_duration, so cycles / (cycles per
    // second) gives the duration back (the A100 NERSC metric set has no duration).
    for (std::string_view clock : {"sm__cycles_elapsed.avg", "smsp__cycles_elapsed.avg"}) {
      std::string per_second = std::string(clock) + ".per_second";
      auto cycles = metrics.Value(clock, "cycle");
      auto hz = metrics.Value(per_second, kHertz);
      if (!cycles || !hz || *hz <= 0) continue;
      facts.duration_ns = ToInt64(*cycles / *hz * 1e9);
      facts.duration_from_cycles = facts.duration_ns.has_value();
      if (facts.duration_ns) break;
    }
  }
  if (facts.duration_ns && *facts.duration_ns < 0) facts.duration_ns.reset();
  facts.registers_per_thread = ToInt32(metrics.FirstValue({"launch__registers_per_thread", "Registers Per Thread"}));
  for (auto [static_name, dynamic_name] :
       {std::pair<std::string_view, std::string_view>{"launch__shared_mem_per_block_static",
                                                      "launch__shared_mem_per_block_dynamic"},
        {"Static Shared Memory Per Block", "Dynamic Shared Memory Per Block"}}) {
    auto bytes = Sum(metrics.Value(static_name, "byte/block"), metrics.Value(dynamic_name, "byte/block"));
    if (!bytes) bytes = Sum(metrics.Value(static_name, kBytes), metrics.Value(dynamic_name, kBytes));
    facts.shared_memory_bytes = ToInt64(bytes);
    if (facts.shared_memory_bytes) break;
  }
  facts.stream = ToInt64(metrics.Value("launch__stream_id"));
  facts.device = ToInt32(metrics.Value("device__attribute_device_index"));
  return facts;
}

KernelCounters MapKernelCounters(const MetricIndex& metrics) {
  KernelCounters c;
  c.fp32_flops = ScalarFlops(metrics, "fadd", "fmul", "ffma");
  c.fp64_flops = ScalarFlops(metrics, "dadd", "dmul", "dfma");
  c.fp16_flops = ScalarFlops(metrics, "hadd", "hmul", "hfma");
  c.tensor_flops = TensorFlops(metrics);
  if (TensorWorkUncounted(metrics)) {
    // The kernel's FLOPs are unknown, not the scalar ones alone: an intensity from them
    // would be 0 for a tensor-core kernel (kernel_mix's hgemm_wmma on an H100).
    c.fp32_flops.reset();
    c.fp64_flops.reset();
    c.fp16_flops.reset();
    c.tensor_flops.reset();
  }
  c.dram_bytes = DramBytes(metrics);
  c.l2_bytes = metrics.Value("lts__t_bytes.sum", kBytes);
  c.l1_bytes = metrics.Value("l1tex__t_bytes.sum", kBytes);
  c.sm_throughput_pct =
      metrics.FirstValue({"sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) Throughput"}, kPercent);
  c.dram_throughput_pct = metrics.FirstValue({"dram__throughput.avg.pct_of_peak_sustained_elapsed",
                                              "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                                              "DRAM Throughput"},
                                             kPercent);
  // "Memory Throughput" is also a Gbyte/s row of Memory Workload Analysis: the unit
  // picks the speed-of-light percentage.
  c.memory_throughput_pct = metrics.FirstValue(
      {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory Throughput"}, kPercent);
  c.tensor_pipe_active_pct = metrics.Value("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", kPercent);
  // Pascal-era sm__active_warps_avg_per_active_cycle_pct is the same ratio (active warps
  // per active cycle / max warps per SM: 18.11 / 64 = 28.30 % in the GTX 1080 file).
  c.achieved_occupancy_pct = metrics.FirstValue({"sm__warps_active.avg.pct_of_peak_sustained_active",
                                                 "Achieved Occupancy", "sm__active_warps_avg_per_active_cycle_pct"},
                                                kPercent);
  // The SOL section's "SM Frequency" is gpc__cycles_elapsed.avg.per_second: SMs run on
  // the GPC clock. Pascal-era ncu calls it gpc__frequency.
  c.sm_clock_hz = metrics.FirstValue({"sm__cycles_elapsed.avg.per_second", "smsp__cycles_elapsed.avg.per_second",
                                      "gpc__cycles_elapsed.avg.per_second", "SM Frequency", "gpc__frequency"},
                                     kHertz);
  c.dram_clock_hz =
      metrics.FirstValue({"dram__cycles_elapsed.avg.per_second", "DRAM Frequency", "dram__frequency"}, kHertz);
  std::optional<double> sm_clock = RooflineSmClock(metrics, c.sm_clock_hz);
  c.peak_fp32_flops_per_s = PeakFmaFlops(metrics, "ffma", "Theoretical Predicated-On FFMA Operations",
                                         "Theoretical Predicated-On FFMA Thread Instructions Executed", sm_clock);
  c.peak_fp64_flops_per_s = PeakFmaFlops(metrics, "dfma", "Theoretical Predicated-On DFMA Operations",
                                         "Theoretical Predicated-On DFMA Thread Instructions Executed", sm_clock);
  c.peak_dram_bytes_per_s = PeakDramBytesPerSecond(metrics, c.dram_clock_hz);
  return c;
}

bool HasAnyCounter(const KernelCounters& c) {
  for (const std::optional<double>* field :
       {&c.fp64_flops, &c.fp32_flops, &c.fp16_flops, &c.tensor_flops, &c.dram_bytes, &c.l2_bytes, &c.l1_bytes,
        &c.sm_throughput_pct, &c.dram_throughput_pct, &c.memory_throughput_pct, &c.tensor_pipe_active_pct,
        &c.achieved_occupancy_pct, &c.sm_clock_hz, &c.dram_clock_hz, &c.peak_fp32_flops_per_s,
        &c.peak_fp64_flops_per_s, &c.peak_dram_bytes_per_s}) {
    if (field->has_value()) return true;
  }
  return false;
}

void MapDeviceAttributes(const MetricIndex& metrics, DeviceInfo* device) {
  auto attribute = [&](std::string_view name) { return metrics.Value("device__attribute_" + std::string(name)); };
  auto set_int32 = [&](int32_t* field, std::string_view name) {
    if (*field < 0)
      if (auto v = ToInt32(attribute(name))) *field = *v;
  };
  if (device->name.empty())
    if (auto name = metrics.Text("device__attribute_display_name")) device->name = *name;
  set_int32(&device->sm_count, "multiprocessor_count");
  set_int32(&device->compute_major, "compute_capability_major");
  set_int32(&device->compute_minor, "compute_capability_minor");
  set_int32(&device->warp_size, "warp_size");
  set_int32(&device->max_threads_per_sm, "max_threads_per_multiprocessor");
  set_int32(&device->registers_per_sm, "max_registers_per_multiprocessor");
  if (device->memory_bytes < 0)
    if (auto v = ToInt64(attribute("total_memory"))) device->memory_bytes = *v;
  if (device->shared_memory_per_sm_bytes < 0)
    if (auto v = ToInt64(attribute("max_shared_memory_per_multiprocessor"))) device->shared_memory_per_sm_bytes = *v;
  // The *_khz attributes are printed without a unit; were one printed ("Mhz"), the
  // value arrives in Hz.
  auto mhz = [&](std::string_view name) -> std::optional<double> {
    for (const NcuMetric& metric : metrics.metrics()) {
      if (metric.name != "device__attribute_" + std::string(name) || !metric.value) continue;
      return metric.base_unit == kHertz ? *metric.value / 1e6 : *metric.value / 1e3;
    }
    return std::nullopt;
  };
  if (!device->max_sm_clock_mhz) device->max_sm_clock_mhz = mhz("max_gpu_frequency_khz");
  if (!device->max_mem_clock_mhz) device->max_mem_clock_mhz = mhz("max_mem_frequency_khz");
}

}  // namespace kraken::ncu
