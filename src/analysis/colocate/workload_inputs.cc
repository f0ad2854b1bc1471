#include "analysis/colocate/workload_inputs.h"

#include <algorithm>

#include "analysis/colocate/temporal_overlap.h"
#include "base/text_table.h"

namespace kraken {

double FillOfBin(size_t i) {
  if (i >= static_cast<size_t>(kSmFillBins)) return 1.0;
  return (static_cast<double>(i) + 0.5) / kSmFillBins;
}

std::string WorkClassOf(const WorkloadDemand& d) {
  double classified = d.compute_bound_share + d.memory_bound_share + d.latency_bound_share;
  if (classified <= 0) {
    // Sampled activities only: DRAM busy most of the busy time reads as memory-bound,
    // SMs active most of it as compute-bound.
    if (d.gpu_busy.measured && d.gpu_busy.mean > 0) {
      if (d.dram_active.measured && d.dram_active.mean / d.gpu_busy.mean >= 0.5) return "memory";
      if (d.sm_active.measured && d.sm_active.mean / d.gpu_busy.mean >= 0.5) return "compute";
    }
    return "mixed";
  }
  if (d.compute_bound_share / classified >= 0.5) return "compute";
  if (d.memory_bound_share / classified >= 0.5) return "memory";
  return "mixed";
}

namespace {

void Add(ColocationWorkload* w, std::string name, double value, std::string unit, std::string basis,
         bool assumed = false) {
  w->figures.push_back({std::move(name), value, std::move(unit), std::move(basis), assumed});
}

// Request unit: what one latency sample of a request-driven workload is.
void FillRequest(const WorkloadDemand& d, ColocationWorkload* w) {
  if (d.source_kind == "kernels" && d.kernel_time_s > 0) {
    w->request_s = w->request_gpu_s = d.kernel_time_s;
    w->request_kernels = static_cast<double>(d.kernel_count);
    w->request_unit = "request (one pass of the kernel list, kernels back to back)";
  } else if (d.step_time_s && *d.step_time_s > 0 && d.gpu_busy.measured) {
    w->request_s = *d.step_time_s;
    w->request_gpu_s = *d.step_time_s * d.gpu_busy.mean;
    if (d.kernel_count > 0 && d.kernel_time_s > 0)
      w->request_kernels = static_cast<double>(d.kernel_count) / d.kernel_time_s * w->request_gpu_s;
    w->request_unit = "step";
  } else if (d.kernel_p99_ns > 0) {
    w->request_s = w->request_gpu_s = d.kernel_p99_ns / 1e9;
    w->request_kernels = 1;
    w->request_unit = "kernel (p99 kernel duration; no request boundary in the input)";
  }
}

// GPU busy: from a given request rate, else the measured busy share, else assumed.
void FillBusy(const WorkloadDemand& d, const WorkloadSetup& setup, const ColocationParameters& params,
              ColocationWorkload* w) {
  if (setup.request_rate_per_s > 0 && w->request_gpu_s > 0) {
    w->busy = std::min(1.0, setup.request_rate_per_s * w->request_gpu_s);
    Add(w, "gpu_busy", w->busy, "fraction",
        "rate " + FormatFixed(setup.request_rate_per_s, 1) + "/s x " + FormatFixed(w->request_gpu_s * 1e3, 3) +
            " ms GPU time per " + w->request_unit);
  } else if (d.gpu_busy.measured) {
    w->busy = std::clamp(d.gpu_busy.mean, 0.0, 1.0);
    Add(w, "gpu_busy", w->busy, "fraction", d.gpu_busy.basis);
  } else {
    w->busy = params.unmeasured_busy;
    Add(w, "gpu_busy", w->busy, "fraction", "not measured (no timeline or utilization): assumed back-to-back work",
        true);
  }
}

void FillPeriod(const WorkloadDemand& d, const ColocationParameters& params, ColocationWorkload* w) {
  if (d.step_time_s && *d.step_time_s > 0) {
    w->period_s = *d.step_time_s;
    Add(w, "period", w->period_s * 1e3, "ms", "step time (ProfilerStep p50)");
    if (d.gpu_syncs_per_step > 0) {
      w->gpu_syncs_per_step = d.gpu_syncs_per_step;
      Add(w, "gpu_syncs_per_step", w->gpu_syncs_per_step, "syncs",
          "host syncs inside the profiler steps that waited on GPU work, per step");
    }
  } else if (double period = DetectPeriodSeconds(d.busy_bins, d.bin_s, params.periodic_min_autocorr); period > 0) {
    w->period_s = period;
    Add(w, "period", period * 1e3, "ms", "autocorrelation peak of the busy profile");
  }
}

// SM fill while busy.
void FillSmFill(const WorkloadDemand& d, ColocationWorkload* w) {
  if (!d.sm_fill_time_share.empty()) {
    w->fill_share = d.sm_fill_time_share;
    w->mean_fill = d.sm_fill;
    Add(w, "sm_fill", w->mean_fill, "fraction of SMs", "kernel grids: blocks / SMs, duration-weighted");
    return;
  }
  double fill = 1.0;
  bool assumed = true;
  std::string basis = "not measured: assumed kernels fill the GPU";
  if (d.sm_active.measured && d.gpu_busy.measured && d.gpu_busy.mean > 0) {
    fill = std::clamp(d.sm_active.mean / d.gpu_busy.mean, 0.0, 1.0);
    basis = "SM active / GPU busy (" + d.sm_active.basis + ")";
    assumed = false;
  }
  w->fill_share.assign(kSmFillBins + 1, 0.0);
  size_t bin = fill >= 1.0 ? kSmFillBins : std::min<size_t>(kSmFillBins - 1, static_cast<size_t>(fill * kSmFillBins));
  w->fill_share[bin] = 1.0;
  w->mean_fill = fill;
  Add(w, "sm_fill", fill, "fraction of SMs", basis, assumed);
}

// DRAM bandwidth while busy, then the memory-bound share it implies when no kernel classes say.
void FillDramIntensity(const WorkloadDemand& d, const ColocationParameters& params, ColocationWorkload* w) {
  double compute = d.compute_bound_share, memory = d.memory_bound_share;
  if (d.dram_active.measured) {
    bool while_running = d.source_kind == "kernels";
    double busy = d.gpu_busy.measured ? d.gpu_busy.mean : w->busy;
    w->dram_intensity = while_running ? d.dram_active.mean : (busy > 0 ? d.dram_active.mean / busy : 0);
    w->dram_intensity = std::clamp(w->dram_intensity, 0.0, 1.0);
    Add(w, "dram_intensity", w->dram_intensity, "fraction of peak",
        d.dram_active.basis + (while_running ? "" : ", divided by GPU busy"));
  } else if (compute + memory + d.latency_bound_share <= 0) {
    w->dram_intensity = params.unknown_dram;
    Add(w, "dram_intensity", w->dram_intensity, "fraction of peak",
        "not measured and no kernel classes: assumed " + FormatFixed(params.unknown_dram, 2), true);
  } else {
    double other = std::max(0.0, 1.0 - compute - memory);
    w->dram_intensity =
        memory * params.memory_bound_dram + compute * params.compute_bound_dram + other * params.other_dram;
    Add(w, "dram_intensity", w->dram_intensity, "fraction of peak",
        "not measured: " + FormatFixed(memory, 3) + " memory-bound x " + FormatFixed(params.memory_bound_dram, 2) +
            " + " + FormatFixed(compute, 3) + " compute-bound x " + FormatFixed(params.compute_bound_dram, 2) + " + " +
            FormatFixed(other, 3) + " other x " + FormatFixed(params.other_dram, 2),
        true);
  }
  if (compute + memory + d.latency_bound_share > 0) {
    w->memory_bound_share = memory;
    Add(w, "memory_bound_share", memory, "of kernel time", "kernel bound mix (kraken classification)");
  } else {
    w->memory_bound_share = std::min(1.0, w->dram_intensity / params.memory_bound_dram);
    Add(w, "memory_bound_share", w->memory_bound_share, "of busy time",
        "no kernel classes: DRAM intensity / memory-bound DRAM use", true);
  }
}

void FillKernelRates(const WorkloadDemand& d, ColocationWorkload* w) {
  if (d.kernel_count > 0 && d.kernel_time_s > 0) {
    w->kernels_per_busy_s = static_cast<double>(d.kernel_count) / d.kernel_time_s;
    Add(w, "kernels_per_busy_s", w->kernels_per_busy_s, "1/s",
        std::to_string(d.kernel_count) + " kernels in " + FormatFixed(d.kernel_time_s * 1e3, 3) + " ms of kernel time");
  }
  if (d.sm_hold_kernel_count > 0 && d.kernel_time_s > 0 && d.sm_hold_residual_ns > 0) {
    w->sm_hold_share = d.sm_hold_time_share;
    w->sm_hold_kernels_per_busy_s = static_cast<double>(d.sm_hold_kernel_count) / d.kernel_time_s;
    w->sm_hold_residual_s = d.sm_hold_residual_ns / 1e9;
    w->sm_hold_coresident_share = d.sm_hold_coresident_share;
    Add(w, "sm_hold_share", w->sm_hold_share, "of kernel time",
        "grids of >= 1 block per SM: the block dispatcher serves later grids after them");
    Add(w, "sm_hold_kernels_per_busy_s", w->sm_hold_kernels_per_busy_s, "1/s",
        std::to_string(d.sm_hold_kernel_count) + " such kernels in " + FormatFixed(d.kernel_time_s * 1e3, 3) +
            " ms of kernel time");
    Add(w, "sm_hold_residual", d.sm_hold_residual_ns / 1e3, "us",
        "sum(d^2) / (2 sum(d)) over them: the wait of a kernel arriving during one");
    Add(w, "sm_hold_coresident_share", w->sm_hold_coresident_share, "of the held time",
        "grids whose blocks fit >= 2 to an SM (registers, shared memory, threads): they run beside a co-runner's kernel");
  }
}

void AddRequestFigures(const WorkloadSetup& setup, ColocationWorkload* w) {
  if (w->request_s > 0) {
    Add(w, "request_time", w->request_s * 1e3, "ms", w->request_unit);
    Add(w, "request_gpu_time", w->request_gpu_s * 1e3, "ms", "GPU busy part of one " + w->request_unit);
    if (w->request_kernels > 0)
      Add(w, "request_kernels", w->request_kernels, "kernels", "launched by one " + w->request_unit);
  }
  if (setup.request_rate_per_s > 0) Add(w, "request_rate", setup.request_rate_per_s, "1/s", "given (--rate)");
}

void FillMemoryAndPcie(const WorkloadDemand& d, ColocationWorkload* w) {
  if (d.memory_bytes.measured) {
    w->memory_bytes = d.memory_bytes.max;
    w->memory_measured = true;
    Add(w, "memory", w->memory_bytes, "bytes", d.memory_bytes.basis + " (peak)");
  } else {
    Add(w, "memory", 0, "bytes", "not measured: capacity not checked", true);
  }
  if (d.pcie_bytes_per_s.measured) {
    w->pcie_bytes_per_s = d.pcie_bytes_per_s.mean;
    Add(w, "pcie", w->pcie_bytes_per_s, "bytes/s", d.pcie_bytes_per_s.basis);
  }
}

}  // namespace

// The helpers run in this order: w.figures keeps it, FillBusy reads the request FillRequest set
// and FillDramIntensity the busy share FillBusy set.
ColocationWorkload BuildColocationWorkload(const WorkloadDemand& d, const WorkloadSetup& setup,
                                           const ColocationParameters& params) {
  ColocationWorkload w;
  w.name = d.name;
  w.workload_type = d.workload_type;
  w.device_id = d.device_id;
  w.work_class = WorkClassOf(d);
  w.max_slowdown = setup.max_slowdown;
  w.request_rate_per_s = setup.request_rate_per_s;
  w.request_driven = d.workload_type == "inference" || setup.request_rate_per_s > 0;
  if (w.request_driven) FillRequest(d, &w);
  FillBusy(d, setup, params, &w);
  w.busy_bins = d.busy_bins;
  w.bin_s = d.bin_s;
  FillPeriod(d, params, &w);
  FillSmFill(d, &w);
  FillDramIntensity(d, params, &w);
  FillKernelRates(d, &w);
  AddRequestFigures(setup, &w);
  FillMemoryAndPcie(d, &w);
  return w;
}

}  // namespace kraken
