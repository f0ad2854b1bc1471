#include "analysis/colocate/sharing_context.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/colocate/queueing.h"
#include "base/text.h"
#include "base/text_table.h"

namespace kraken {

SharingContext MakeSharingContext(const std::vector<ColocationWorkload>& workloads, const ColocationParameters& params,
                                  const DeviceSpec* device) {
  SharingContext ctx;
  ctx.params = params;
  ctx.device = device;
  ctx.switch_s = ContextSwitchSeconds(params, device);
  ctx.collision.assign(workloads.size(), std::vector<CollisionEstimate>(workloads.size()));
  for (size_t a = 0; a < workloads.size(); ++a)
    for (size_t b = 0; b < workloads.size(); ++b)
      if (a != b) ctx.collision[a][b] = EstimateCollision(workloads[a], workloads[b], params);
  return ctx;
}

namespace {

std::string Ms(double s) { return std::isfinite(s) ? FormatFixed(s * 1e3, 3) + " ms" : "unbounded"; }

}  // namespace

WorkloadPrediction FinishPrediction(const ColocationWorkload& w, const ExtraTime& extra, const SharingContext& /*ctx*/) {
  WorkloadPrediction p;
  p.name = w.name;
  p.terms = extra.terms;
  p.qos_max_slowdown = w.max_slowdown;
  // A closed-loop workload (training) is slowed in proportion to its busy share; a
  // request's service stretches by the GPU part of the request.
  double busy_share = w.busy;
  if (w.request_driven && w.request_s > 0) busy_share = w.request_gpu_s / w.request_s;
  p.slowdown = 1 + busy_share * extra.stretch_per_busy_s;
  p.terms.push_back({"slowdown", p.slowdown,
                     "1 + busy share " + FormatFixed(busy_share, 3) + " x extra per busy second " +
                         FormatFixed(extra.stretch_per_busy_s, 4)});
  p.penalty = p.slowdown;
  if (w.request_driven && w.request_s > 0) {
    p.latency_predicted = true;
    p.latency_unit = w.request_unit;
    double alone = w.request_s, mean = w.request_s + extra.request_mean_s, p99 = w.request_s + extra.request_p99_s;
    p.terms.push_back({"service p99 co-located (ms)", p99 * 1e3,
                       Ms(w.request_s) + " alone + p99 extra " + Ms(extra.request_p99_s) + " (mean extra " +
                           Ms(extra.request_mean_s) + ")"});
    double wait_alone = 0, wait_shared = 0;
    if (w.request_rate_per_s > 0) {
      const double p99q = 0.99;
      wait_alone = Mg1WaitQuantileSeconds(w.request_rate_per_s, alone, alone * alone, p99q);
      wait_shared = Mg1WaitQuantileSeconds(w.request_rate_per_s, mean, mean * mean, p99q);
      p.terms.push_back({"utilisation alone", w.request_rate_per_s * alone,
                         FormatFixed(w.request_rate_per_s, 1) + "/s x " + Ms(alone)});
      p.terms.push_back({"utilisation co-located", w.request_rate_per_s * mean,
                         FormatFixed(w.request_rate_per_s, 1) + "/s x " + Ms(mean) + " mean service"});
      p.terms.push_back({"p99 queueing wait alone (ms)", wait_alone * 1e3, "M/G/1, exponential tail"});
      p.terms.push_back({"p99 queueing wait co-located (ms)", wait_shared * 1e3, "M/G/1, exponential tail"});
    }
    p.p99_alone_ms = (alone + wait_alone) * 1e3;
    p.p99_colocated_ms = (p99 + wait_shared) * 1e3;
    p.overloaded = !std::isfinite(wait_shared);
    p.p99_increase = p.overloaded ? std::numeric_limits<double>::infinity() : p.p99_colocated_ms / p.p99_alone_ms;
    p.penalty = std::max(p.p99_increase, 1.0);
  }
  // The resource with the largest share of the extra time, weighed like the slowdown
  // (a workload that is never busy contends for nothing).
  p.contended_resource = "none";
  double largest = 0.005;
  for (const auto& [resource, value] : extra.by_resource) {
    if (busy_share * value > largest) {
      largest = busy_share * value;
      p.contended_resource = resource;
    }
  }
  if (p.overloaded) p.contended_resource += " (overloaded: requests queue without bound)";
  p.qos_ok = w.max_slowdown <= 0 || p.penalty <= w.max_slowdown;
  return p;
}

bool CheckSharedMemory(const std::vector<ColocationWorkload>& workloads, const SharingContext& ctx,
                       ModePrediction* mode) {
  if (ctx.device == nullptr || ctx.device->memory_bytes <= 0) {
    mode->notes.push_back("device memory unknown: capacity not checked");
    return true;
  }
  double total = 0;
  bool unmeasured = false;
  for (const ColocationWorkload& w : workloads) {
    total += w.memory_bytes;
    unmeasured = unmeasured || !w.memory_measured;
  }
  if (unmeasured) mode->notes.push_back("memory of some workloads not measured: capacity checked for the rest only");
  double capacity = static_cast<double>(ctx.device->memory_bytes);
  if (total <= capacity) return true;
  mode->feasible = false;
  mode->infeasible_reason = "memory: " + FormatBytes(total) + " needed together > " + FormatBytes(capacity) + " on " +
                            ctx.device->id + " (every workload sharing it is at risk of out-of-memory)";
  for (WorkloadPrediction& p : mode->workloads) {
    p.fits_memory = false;
    p.qos_ok = false;
    p.contended_resource = "memory capacity";
  }
  return false;
}

void FinalizeMode(ModePrediction* mode) {
  mode->all_qos_ok = mode->feasible;
  for (const WorkloadPrediction& p : mode->workloads) mode->all_qos_ok = mode->all_qos_ok && p.qos_ok;
  mode->score = PairScoreOf(*mode);
}

double PairScoreOf(const ModePrediction& mode) {
  if (!mode.feasible || mode.workloads.size() != 2) return 0;
  double sum = 0;
  for (const WorkloadPrediction& p : mode.workloads) {
    if (!p.fits_memory) return 0;
    sum += std::isfinite(p.slowdown) && p.slowdown > 0 ? 1.0 / p.slowdown : 0.0;
  }
  return std::clamp(sum - 1.0, 0.0, 1.0);
}

}  // namespace kraken
