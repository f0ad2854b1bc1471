#include "analysis/cost/instance_recommend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "model/device_catalog.h"

namespace kraken::cost {
namespace {

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// The compute roof two devices share: the dense 16-bit tensor peak when both have one,
// else FP32.
std::pair<double, const char*> ComputePeaks(const DeviceSpec& from, const DeviceSpec& to, double* to_peak) {
  auto tensor16 = [](const DeviceSpec& d) {
    return d.fp16_tensor_flops_per_s > 0 ? d.fp16_tensor_flops_per_s : d.bf16_tensor_flops_per_s;
  };
  if (tensor16(from) > 0 && tensor16(to) > 0) {
    *to_peak = tensor16(to);
    return {tensor16(from), "16-bit tensor"};
  }
  *to_peak = to.fp32_flops_per_s;
  return {from.fp32_flops_per_s, "FP32"};
}

Candidate Evaluate(const MeasuredDemand& demand, const InstancePrice& row, bool spot) {
  Candidate c;
  c.instance = row;
  c.spot_price = spot && row.spot_usd_per_hour.has_value();
  c.usd_per_hour = row.UsdPerHour(spot);
  c.replicas = std::max(1, row.gpus / std::max(1, demand.gpus));
  const DeviceSpec* from = FindDeviceSpec(demand.gpu_model);
  const DeviceSpec* to = FindDeviceSpec(row.gpu_model);
  if (from != nullptr && to != nullptr && from->id == to->id) {
    c.basis = "same GPU (" + to->id + ")";
  } else if (from != nullptr && to != nullptr) {
    c.time_ratio = RooflineTimeRatio(demand, *from, *to, &c.basis);
  } else {
    c.basis = "GPU the workload ran on is unknown: its measured pace assumed";
  }
  // One workload rents the whole instance: the spare GPUs (room for `replicas` copies)
  // are the user's to fill, not a discount kraken assumes.
  c.usd_per_work_hour = c.usd_per_hour * c.time_ratio;
  c.usd_per_month = c.usd_per_hour * kHoursPerMonth;
  return c;
}

// The current instance: the one named, else the cheapest work-hour among the catalog's
// instances of the GPU model the workload ran on with enough GPUs.
std::optional<Candidate> CurrentInstance(const MeasuredDemand& demand, const std::vector<InstancePrice>& all,
                                         const RecommendOptions& options, std::string* basis, Status* error) {
  std::optional<Candidate> best;
  for (const InstancePrice& row : all) {
    if (!options.current_instance.empty()) {
      if (row.instance != options.current_instance) continue;
      best = Evaluate(demand, row, options.spot);
      *basis = "named by --current";
      break;
    }
    if (row.gpu_model != demand.gpu_model || row.gpus < demand.gpus) continue;
    Candidate c = Evaluate(demand, row, options.spot);
    if (!best || c.usd_per_work_hour < best->usd_per_work_hour) best = c;
  }
  if (!options.current_instance.empty() && !best) {
    *error = InvalidInput("--current '" + options.current_instance + "' is not an instance of the price catalog");
  } else if (best && options.current_instance.empty()) {
    *basis = "the cheapest catalog instance of the measured GPU (" + demand.gpu_model + ")";
  } else if (!best) {
    *basis = demand.gpu_model.empty() ? "the GPU the workload ran on is unknown"
                                      : "no catalog instance has the measured GPU (" + demand.gpu_model + ")";
  }
  if (best) best->current = true;
  return best;
}

}  // namespace

MeasuredDemand MeasuredDemandFrom(const std::string& name, const std::vector<WorkloadDemand>& demands,
                                  std::optional<double> step_time_s) {
  MeasuredDemand m;
  m.name = name;
  m.step_time_s = step_time_s;
  std::set<int> gpus;
  double busy_sum = 0, kernel_weight = 0;
  int busy_count = 0;
  for (const WorkloadDemand& d : demands) {
    if (m.workload_type.empty() || m.workload_type == "unknown") m.workload_type = d.workload_type;
    if (m.gpu_model.empty()) m.gpu_model = d.device_id;
    gpus.insert(d.gpu_index);
    if (d.gpu_busy.measured) {
      busy_sum += d.gpu_busy.mean;
      ++busy_count;
    }
    if (d.memory_bytes.measured) {
      m.memory_measured = true;
      m.memory_peak_bytes = std::max(m.memory_peak_bytes, d.memory_bytes.max);
    }
    m.compute_share += d.compute_bound_share;
    m.memory_share += d.memory_bound_share;
    kernel_weight += 1;
  }
  m.gpus = std::max<int>(1, static_cast<int>(gpus.size()));
  m.busy_measured = busy_count > 0;
  m.gpu_busy = busy_count > 0 ? busy_sum / busy_count : 0;
  if (kernel_weight > 0) {
    m.compute_share /= kernel_weight;
    m.memory_share /= kernel_weight;
  }
  if (m.workload_type.empty()) m.workload_type = "unknown";
  double latency = demands.empty() ? 0 : demands[0].latency_bound_share;
  double comm = demands.empty() ? 0 : demands[0].communication_share;
  double top = std::max({m.compute_share, m.memory_share, latency, comm});
  m.bound = top <= 0                    ? "none"
            : top == m.compute_share    ? "compute"
            : top == m.memory_share     ? "memory"
            : top == latency            ? "latency"
                                        : "communication";
  return m;
}

double RooflineTimeRatio(const MeasuredDemand& demand, const DeviceSpec& from, const DeviceSpec& to,
                         std::string* basis) {
  double to_compute = 0;
  auto [from_compute, roof] = ComputePeaks(from, to, &to_compute);
  double compute_ratio = to_compute > 0 ? from_compute / to_compute : 1;
  double memory_ratio = to.dram_bytes_per_s > 0 ? from.dram_bytes_per_s / to.dram_bytes_per_s : 1;
  double cs = demand.compute_share, ms = demand.memory_share;
  std::string shares;
  if (cs + ms <= 0) {
    // No classified kernels (sampled counters): halfway between the two roofs.
    cs = ms = 0.5;
    shares = "no kernel classes measured: half compute, half memory assumed";
  } else {
    shares = "compute-bound " + Fixed(cs * 100, 0) + "%, memory-bound " + Fixed(ms * 100, 0) + "% of kernel time";
  }
  double other = std::max(0.0, 1 - cs - ms);
  double busy = demand.busy_measured ? demand.gpu_busy : 1;
  double gpu_part = cs * compute_ratio + ms * memory_ratio + other;
  double ratio = (1 - busy) + busy * gpu_part;
  *basis = "roofline " + from.id + " -> " + to.id + ": " + roof + " peak x" + Fixed(1 / compute_ratio, 2) +
           ", DRAM bandwidth x" + Fixed(1 / memory_ratio, 2) + "; " + shares + "; GPU busy " +
           (demand.busy_measured ? Fixed(busy * 100, 0) + "%" : std::string("not measured, 100% assumed"));
  return ratio;
}

Result<Recommendation> RecommendInstances(const MeasuredDemand& demand, const std::vector<InstancePrice>& catalog,
                                          const std::vector<InstancePrice>& all_prices,
                                          const RecommendOptions& options) {
  Recommendation out;
  out.demand = demand;
  Status error = Status::Ok();
  out.current = CurrentInstance(demand, all_prices, options, &out.current_basis, &error);
  KRAKEN_RETURN_IF_ERROR(error);
  double memory_need = demand.memory_peak_bytes * (1 + options.memory_headroom);
  // Without a measured peak only GPUs as large as the one it ran on are known to hold it.
  const DeviceSpec* measured_on = FindDeviceSpec(demand.gpu_model);
  if (!demand.memory_measured && measured_on != nullptr) memory_need = static_cast<double>(measured_on->memory_bytes);
  for (const InstancePrice& row : catalog) {
    const DeviceSpec* spec = FindDeviceSpec(row.gpu_model);
    if (spec == nullptr || static_cast<double>(spec->memory_bytes) < memory_need) {
      ++out.rejected_memory;
      continue;
    }
    if (row.gpus < demand.gpus) {
      ++out.rejected_gpus;
      continue;
    }
    Candidate c = Evaluate(demand, row, options.spot);
    if (options.budget_usd_per_month > 0 && c.usd_per_month > options.budget_usd_per_month) {
      ++out.rejected_budget;
      continue;
    }
    if (out.current && out.current->usd_per_work_hour > 0) {
      c.savings_fraction = 1 - c.usd_per_work_hour / out.current->usd_per_work_hour;
      c.savings_usd_per_month = (out.current->usd_per_work_hour - c.usd_per_work_hour) * kHoursPerMonth;
    }
    c.current = out.current && out.current->instance.instance == row.instance &&
                out.current->instance.provider == row.provider;
    out.ranked.push_back(std::move(c));
  }
  std::stable_sort(out.ranked.begin(), out.ranked.end(), [](const Candidate& a, const Candidate& b) {
    return a.usd_per_work_hour < b.usd_per_work_hour;
  });
  return out;
}

}  // namespace kraken::cost
