#include "analysis/classify.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/kernel_name_rules.h"

namespace kraken {
namespace {

// "113.4 TFLOP/s", "1.76 TB/s": decimal prefixes, as datasheets print peaks.
std::string FormatRate(double value, const char* unit) {
  static constexpr struct {
    double scale;
    const char* prefix;
  } kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  char buffer[64];
  for (const auto& p : kPrefixes) {
    if (std::fabs(value) >= p.scale) {
      double scaled = value / p.scale;
      std::snprintf(buffer, sizeof buffer, std::fabs(scaled) < 10 ? "%.2f %s%s" : "%.1f %s%s", scaled, p.prefix, unit);
      return buffer;
    }
  }
  std::snprintf(buffer, sizeof buffer, "%.1f %s", value, unit);
  return buffer;
}

std::string FormatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, value >= 100 ? "%.0f" : (value >= 1 ? "%.1f" : "%.3g"), value);
  return buffer;
}

bool Positive(const std::optional<double>& v) { return v.has_value() && std::isfinite(*v) && *v > 0; }

// The precision that did most of the kernel's floating-point work. `flops` is 0 when
// counters were collected and show no FP work at all; nullopt when none was collected.
struct DominantWork {
  std::string precision;
  double flops = 0;
};

std::optional<DominantWork> FindDominantWork(const KernelCounters& c) {
  std::optional<DominantWork> best;
  auto consider = [&](const std::optional<double>& flops, const char* precision) {
    if (!flops.has_value() || !std::isfinite(*flops) || *flops < 0) return;
    if (!best) best = DominantWork{"", 0};
    if (*flops > best->flops) *best = DominantWork{precision, *flops};
  };
  consider(c.tensor_flops, "tensor");
  consider(c.fp32_flops, "fp32");
  consider(c.fp16_flops, "fp16");
  consider(c.fp64_flops, "fp64");
  return best;
}

struct Peak {
  double value = 0;
  std::string source;  // said in `reason`
};

// The compute roof for `precision`: the profiler's measured peak when there is one, else
// the datasheet's, rescaled to the SM clock the kernel ran at when both clocks are known.
std::optional<Peak> ComputePeak(const std::string& precision, const KernelCounters& c, const DeviceSpec* spec) {
  const std::optional<double>* measured = nullptr;
  double datasheet = 0;
  std::string what;
  if (precision == "tensor") {
    measured = &c.peak_tensor_flops_per_s;
    if (spec) {
      datasheet = spec->fp16_tensor_flops_per_s > 0 ? spec->fp16_tensor_flops_per_s : spec->bf16_tensor_flops_per_s;
    }
    what = "dense 16-bit tensor";
  } else if (precision == "fp32") {
    measured = &c.peak_fp32_flops_per_s;
    if (spec) datasheet = spec->fp32_flops_per_s;
    what = "FP32";
  } else if (precision == "fp64") {
    measured = &c.peak_fp64_flops_per_s;
    if (spec) datasheet = spec->fp64_flops_per_s;
    what = "FP64";
  } else {
    // CUDA-core FP16 has no catalog peak: its rate relative to FP32 differs by architecture.
    return std::nullopt;
  }
  if (Positive(*measured)) return Peak{**measured, what + " peak measured by the profiler"};
  if (datasheet <= 0) return std::nullopt;
  Peak peak{datasheet, what + " peak of the " + spec->name + " datasheet"};
  if (spec->boost_clock_mhz > 0 && Positive(c.sm_clock_hz)) {
    double boost_hz = spec->boost_clock_mhz * 1e6;
    peak.value *= *c.sm_clock_hz / boost_hz;
    peak.source += ", scaled from its " + FormatNumber(spec->boost_clock_mhz) + " MHz boost clock to the measured " +
                   FormatNumber(*c.sm_clock_hz / 1e6) + " MHz";
  }
  return peak;
}

std::optional<Peak> BandwidthPeak(const KernelCounters& c, const DeviceSpec* spec) {
  if (Positive(c.peak_dram_bytes_per_s)) return Peak{*c.peak_dram_bytes_per_s, "DRAM peak measured by the profiler"};
  if (spec && spec->dram_bytes_per_s > 0)
    return Peak{spec->dram_bytes_per_s, "DRAM peak of the " + spec->name + " datasheet"};
  return std::nullopt;
}

// Fills what the counters give without any peak: precision, AI and achieved rates.
void FillMeasured(const KernelLaunchInfo& launch, const KernelCounters* c, KernelClassification* out) {
  if (!c) return;
  double seconds = static_cast<double>(launch.duration_ns) * 1e-9;
  std::optional<DominantWork> work = FindDominantWork(*c);
  if (work) {
    out->precision = work->precision;
    if (Positive(c->dram_bytes)) out->arithmetic_intensity = work->flops / *c->dram_bytes;
    if (seconds > 0) out->achieved_flops_per_s = work->flops / seconds;
  }
  if (c->dram_bytes.has_value() && *c->dram_bytes >= 0 && seconds > 0)
    out->achieved_dram_bytes_per_s = *c->dram_bytes / seconds;
}

std::optional<KernelClassification> ByFixedThresholds(const KernelClassification& measured,
                                                      const ClassifyOptions& options) {
  if (!options.fixed_low_ai || !options.fixed_high_ai || !measured.arithmetic_intensity) return std::nullopt;
  KernelClassification out = measured;
  out.basis = ClassificationBasis::kFixedThresholds;
  double ai = *measured.arithmetic_intensity;
  std::string scheme = " (fixed thresholds " + FormatNumber(*options.fixed_low_ai) + "/" +
                       FormatNumber(*options.fixed_high_ai) + " FLOP/B)";
  if (ai < *options.fixed_low_ai) {
    out.bound = out.side = Boundness::kMemory;
    out.reason = "AI " + FormatNumber(ai) + " FLOP/B is below " + FormatNumber(*options.fixed_low_ai) + scheme;
  } else if (ai > *options.fixed_high_ai) {
    out.bound = out.side = Boundness::kCompute;
    out.reason = "AI " + FormatNumber(ai) + " FLOP/B is above " + FormatNumber(*options.fixed_high_ai) + scheme;
  } else {
    out.bound = Boundness::kMixed;
    out.reason = "AI " + FormatNumber(ai) + " FLOP/B lies between the thresholds" + scheme;
  }
  return out;
}

std::optional<KernelClassification> ByRoofline(const KernelLaunchInfo& launch, const KernelCounters* c,
                                               const DeviceSpec* spec, const KernelClassification& measured,
                                               const ClassifyOptions& options) {
  if (!c || launch.duration_ns <= 0 || !c->dram_bytes || *c->dram_bytes < 0) return std::nullopt;
  std::optional<DominantWork> work = FindDominantWork(*c);
  if (!work) return std::nullopt;
  double bytes = *c->dram_bytes;
  if (work->flops == 0 && bytes == 0) return std::nullopt;  // nothing to place on a roofline
  // A kernel without FP work is placed against the FP32 roof (AI = 0 makes it memory-side
  // whatever the roof); otherwise the roof of its dominant precision.
  std::string roof_precision = work->precision.empty() ? "fp32" : work->precision;
  std::optional<Peak> compute_peak = ComputePeak(roof_precision, *c, spec);
  std::optional<Peak> bw_peak = BandwidthPeak(*c, spec);
  if (!compute_peak || !bw_peak) return std::nullopt;

  KernelClassification out = measured;
  out.basis = ClassificationBasis::kRoofline;
  out.peak_flops_per_s = compute_peak->value;
  out.peak_dram_bytes_per_s = bw_peak->value;
  out.ridge_point = compute_peak->value / bw_peak->value;
  double seconds = static_cast<double>(launch.duration_ns) * 1e-9;
  double achieved_flops = work->flops / seconds;
  double achieved_bw = bytes / seconds;
  out.compute_pct_of_peak = 100.0 * achieved_flops / compute_peak->value;
  out.memory_pct_of_peak = 100.0 * achieved_bw / bw_peak->value;

  std::string placement;
  if (bytes == 0) {
    out.side = Boundness::kCompute;
    placement = "no DRAM traffic: compute side";
  } else {
    double ai = work->flops / bytes;
    out.side = ai >= *out.ridge_point ? Boundness::kCompute : Boundness::kMemory;
    placement = "AI " + FormatNumber(ai) + " FLOP/B " + (out.side == Boundness::kCompute ? ">=" : "<") +
                " ridge " + FormatNumber(*out.ridge_point) + " FLOP/B: " +
                (out.side == Boundness::kCompute ? "compute side" : "memory side");
  }
  // On the memory side the roof at the kernel's AI is AI x bandwidth, so the kernel's
  // share of it is its share of the bandwidth peak; on the compute side, of the FLOP peak.
  bool compute_side = out.side == Boundness::kCompute;
  double pct_of_roof = compute_side ? *out.compute_pct_of_peak : *out.memory_pct_of_peak;
  std::string achieved =
      compute_side ? FormatRate(achieved_flops, "FLOP/s") + " is " + FormatNumber(pct_of_roof) + " % of the " +
                         FormatRate(compute_peak->value, "FLOP/s") + " " + compute_peak->source
                   : FormatRate(achieved_bw, "B/s") + " is " + FormatNumber(pct_of_roof) + " % of the " +
                         FormatRate(bw_peak->value, "B/s") + " " + bw_peak->source;
  if (pct_of_roof < options.latency_pct) {
    out.bound = Boundness::kLatency;
    out.reason = placement + ", but " + achieved + " (under " + FormatNumber(options.latency_pct) +
                 " %: latency-bound)";
  } else {
    out.bound = out.side;
    out.reason = placement + "; " + achieved;
  }
  if (work->precision.empty()) out.reason = "no floating-point work counted; " + out.reason;
  return out;
}

std::optional<KernelClassification> ByThroughput(const KernelCounters* c, const KernelClassification& measured,
                                                 const ClassifyOptions& options) {
  if (!c) return std::nullopt;
  std::optional<double> sm = c->sm_throughput_pct;
  std::optional<double> mem;
  const char* mem_name = "";
  if (c->memory_throughput_pct && (!c->dram_throughput_pct || *c->memory_throughput_pct >= *c->dram_throughput_pct)) {
    mem = c->memory_throughput_pct;
    mem_name = "memory";
  } else if (c->dram_throughput_pct) {
    mem = c->dram_throughput_pct;
    mem_name = "DRAM";
  }
  if (!sm && !mem) return std::nullopt;
  double bar = options.latency_pct;
  bool sm_high = sm && *sm >= bar;
  bool mem_high = mem && *mem >= bar;
  // One side under the bar and the other unknown says nothing.
  if (!sm_high && !mem_high && (!sm || !mem)) return std::nullopt;

  KernelClassification out = measured;
  out.basis = ClassificationBasis::kThroughput;
  out.compute_pct_of_peak = sm;
  out.memory_pct_of_peak = mem;
  bool compute_wins = sm && (!mem || *sm >= *mem);
  out.side = compute_wins ? Boundness::kCompute : Boundness::kMemory;
  std::string figures;
  if (sm) figures += "SM throughput " + FormatNumber(*sm) + " %";
  if (mem) figures += std::string(figures.empty() ? "" : ", ") + mem_name + " throughput " + FormatNumber(*mem) + " %";
  if (sm_high || mem_high) {
    out.bound = out.side;
    out.reason =
        figures + " of peak: " + (compute_wins ? "SM" : mem_name) + " side reaches " + FormatNumber(bar) + " %";
  } else {
    out.bound = Boundness::kLatency;
    out.reason = figures + " of peak: both under " + FormatNumber(bar) + " % (latency-bound)";
  }
  return out;
}

KernelClassification ByName(const KernelLaunchInfo& launch, const KernelClassification& measured,
                            const ClassifyOptions& options) {
  KernelClassification out = measured;
  out.basis = ClassificationBasis::kNameHeuristic;
  const KernelNameRule* rule = MatchKernelNameRule(launch.name);
  std::string family;
  if (rule) {
    out.name_rule = std::string(rule->pattern);
    family = "name matches \"" + out.name_rule + "\" (" + std::string(rule->why) + ")";
    if (rule->bound == Boundness::kUnknown) {
      out.reason = family;
      return out;
    }
    out.side = rule->bound;
  }
  bool tiny_grid = launch.grid_blocks > 0 && launch.device_sm_count > 0 &&
                   static_cast<double>(launch.grid_blocks) < options.tiny_grid_sm_fraction * launch.device_sm_count;
  bool short_kernel = launch.duration_ns > 0 && launch.duration_ns < options.short_kernel_ns;
  if (tiny_grid || short_kernel) {
    out.bound = Boundness::kLatency;
    out.reason = tiny_grid ? "grid of " + std::to_string(launch.grid_blocks) + " blocks for " +
                                 std::to_string(launch.device_sm_count) + " SMs leaves most SMs idle"
                           : "kernel of " + std::to_string(launch.duration_ns) + " ns is too short to reach a roof";
    out.reason += rule ? "; " + family : "; no family rule matched";
    return out;
  }
  if (!rule) {
    out.reason = "no rule matched";
    return out;
  }
  out.bound = rule->bound;
  out.reason = family;
  return out;
}

}  // namespace

const char* BoundnessName(Boundness bound) {
  switch (bound) {
    case Boundness::kCompute: return "compute";
    case Boundness::kMemory: return "memory";
    case Boundness::kLatency: return "latency";
    case Boundness::kMixed: return "mixed";
    case Boundness::kUnknown: return "unknown";
  }
  return "unknown";
}

const char* ClassificationBasisName(ClassificationBasis basis) {
  switch (basis) {
    case ClassificationBasis::kRoofline: return "roofline";
    case ClassificationBasis::kThroughput: return "throughput";
    case ClassificationBasis::kNameHeuristic: return "name";
    case ClassificationBasis::kFixedThresholds: return "thresholds";
    case ClassificationBasis::kNone: return "none";
  }
  return "none";
}

KernelClassification ClassifyKernel(const KernelLaunchInfo& launch, const KernelCounters* counters,
                                    const DeviceSpec* spec, const ClassifyOptions& options) {
  KernelClassification measured;
  FillMeasured(launch, counters, &measured);
  bool wants_thresholds = options.fixed_low_ai && options.fixed_high_ai;
  if (auto fixed = ByFixedThresholds(measured, options)) return *fixed;
  std::optional<KernelClassification> result = ByRoofline(launch, counters, spec, measured, options);
  if (!result) result = ByThroughput(counters, measured, options);
  if (!result) result = ByName(launch, measured, options);
  if (wants_thresholds) result->reason = "no AI for the fixed thresholds; " + result->reason;
  return *result;
}

}  // namespace kraken
