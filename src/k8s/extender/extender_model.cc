#include "k8s/extender/extender_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "analysis/colocate/colocate.h"
#include "analysis/colocate/join.h"
#include "analysis/colocate/mps_percentage.h"
#include "analysis/colocate/workload_inputs.h"
#include "base/text.h"
#include "base/text_table.h"
#include "k8s/extender/extender_packing.h"
#include "model/cluster.h"
#include "model/device_catalog.h"

namespace kraken::k8s {
namespace {

std::string Label(const ExtenderNode& node, const char* key) {
  auto it = node.labels.find(key);
  return it == node.labels.end() ? "" : it->second;
}

std::string Times(double penalty) {
  if (!std::isfinite(penalty)) return "overloaded";
  std::string out = "x";
  out += FormatFixed(penalty, 3);
  return out;
}

// The prediction for the pod joining GPU `gpu`. The pod's penalty is against running
// alone on a whole GPU; a resident's is the ratio of its penalty with the pod to its
// penalty without (what this placement adds: MPS caps and earlier residents were there
// before).
struct GpuOutcome {
  int gpu = -1;
  int residents = 0;
  bool feasible = true;
  std::string infeasible_reason;
  double pod_penalty = 1;
  double worst = 1;
  std::string worst_name;
  double cost = 0;      // sum over the pod and the residents of (penalty - 1)
  std::string terms;    // "pod x1.425 + ml/etl-0 x1.100/x1.000"
  std::string device;   // catalog id the model predicted for, "" unknown
  int mps_percentage = -1;  // MPS node with residents: the pod's CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
};

ModePrediction PredictMode(const std::vector<ColocationWorkload>& ws, const NodeGpuView& view) {
  ColocateOptions options;
  options.modes = {view.mode};
  options.device = view.device;
  // The device plugin's MPS sharing caps each client at 1/replicas of the SMs.
  if (view.mode == SharingMode::kMps) options.sm_split.assign(ws.size(), 1.0 / view.replicas);
  ColocationReport report = PredictColocation(ws, options);
  return report.modes.empty() ? ModePrediction{} : report.modes[0];
}

GpuOutcome PredictOnGpu(const NodeGpuView& view, int gpu, const DemandEntry& pod, const std::string& pod_name) {
  std::vector<ColocationWorkload> ws = WorkloadsOnGpu(view, gpu, pod, pod_name);
  GpuOutcome out;
  out.gpu = gpu;
  out.residents = static_cast<int>(ws.size()) - 1;
  std::vector<std::string> notes;
  const DeviceSpec* device = ResolveColocationDevice(ws, view.device, &notes);
  out.device = device != nullptr ? device->id : "";
  ModePrediction with = PredictMode(ws, view);
  if (with.workloads.size() != ws.size()) {
    out.feasible = false;
    out.infeasible_reason = "the model gave no prediction";
    return out;
  }
  out.feasible = with.feasible;
  out.infeasible_reason = with.infeasible_reason;
  for (const WorkloadPrediction& p : with.workloads)
    if (!p.fits_memory) out.feasible = false;
  if (!out.feasible && out.infeasible_reason.empty()) out.infeasible_reason = "the workloads' memory exceeds the GPU's";
  out.pod_penalty = with.workloads.back().penalty;
  out.worst = out.pod_penalty;
  out.worst_name = pod_name;
  out.cost = out.pod_penalty - 1;
  out.terms = "pod " + Times(out.pod_penalty);
  if (out.residents > 0 && view.mode == SharingMode::kMps) {
    std::vector<int> percentages = MpsThreadPercentages(ws, device);
    if (!percentages.empty()) out.mps_percentage = percentages.back();
  }
  if (out.residents > 0) {
    std::vector<ColocationWorkload> before(ws.begin(), ws.end() - 1);
    ModePrediction without = PredictMode(before, view);
    for (size_t i = 0; i + 1 < ws.size(); ++i) {
      double alone = i < without.workloads.size() ? without.workloads[i].penalty : 1.0;
      double added = with.workloads[i].penalty / std::max(alone, 1e-9);
      out.cost += added - 1;
      out.terms += " + " + ws[i].name + " " + Times(with.workloads[i].penalty) + "/" + Times(alone);
      if (added > out.worst) {
        out.worst = added;
        out.worst_name = ws[i].name;
      }
    }
  }
  return out;
}

// Better: feasible, then the lower worst penalty, then the lower cost, then fewer free
// shares (best fit).
bool Better(const GpuOutcome& a, const GpuOutcome& b) {
  if (a.feasible != b.feasible) return a.feasible;
  if (std::abs(a.worst - b.worst) > 1e-12) return a.worst < b.worst;
  if (std::abs(a.cost - b.cost) > 1e-12) return a.cost < b.cost;
  return a.residents > b.residents;
}

std::string ModeText(const NodeGpuView& v) {
  if (v.replicas == 1) return "exclusive GPUs (no replicas)";
  return std::string(v.mode == SharingMode::kMps ? "MPS" : "time-slicing") + ", " + std::to_string(v.replicas) +
         " share(s) per GPU";
}

// "" or the note on the resident entries the node's annotation has that were ignored.
std::string IgnoredResidentsNote(const NodeGpuView& view) {
  return view.residents.ignored == 0 ? ""
                                     : "; " + std::to_string(view.residents.ignored) + " resident entr(ies) ignored (" +
                                           JoinText(view.residents.notes, ", ") + ")";
}

std::vector<int> ResidentsPerGpu(const NodeGpuView& view) {
  std::vector<int> used(static_cast<size_t>(view.gpus), 0);
  for (const DemandEntry& e : view.residents.entries) ++used[static_cast<size_t>(std::max(e.gpu, 0))];
  return used;
}

// The GPUs the pod may go to: one with a free share when it shares, else those without residents.
std::vector<int> CandidateGpus(const NodeGpuView& view, const std::vector<int>& used, bool sharing) {
  std::vector<int> candidates;
  for (int g = 0; g < view.gpus; ++g)
    if (sharing ? used[static_cast<size_t>(g)] < view.replicas : used[static_cast<size_t>(g)] == 0)
      candidates.push_back(g);
  return candidates;
}

std::string NoFreeGpuReason(bool sharing, int64_t want, size_t candidates, const std::string& where) {
  return sharing ? "every GPU's shares are held by the residents kraken lists (" + where + ")"
                 : "the pod needs " + std::to_string(want) + " whole GPU(s); " + std::to_string(candidates) +
                       " have no resident (" + where + ")";
}

GpuOutcome BestGpuOutcome(const NodeGpuView& view, const std::vector<int>& candidates, const std::vector<int>& used,
                          bool sharing, const DemandEntry& pod, const std::string& pod_name) {
  GpuOutcome best;
  bool predicted_empty = false;
  for (int g : candidates) {
    if (!sharing && g != candidates[0]) break;  // whole GPUs: the pod runs alone on any of them
    // GPUs without residents all give the same prediction: the first one speaks for them.
    if (used[static_cast<size_t>(g)] == 0 && std::exchange(predicted_empty, true)) continue;
    GpuOutcome o = PredictOnGpu(view, g, pod, pod_name);
    if (best.gpu < 0 || Better(o, best)) best = o;
  }
  return best;
}

std::string PredictionText(const GpuOutcome& best, const NodeGpuView& view, const std::string& where) {
  return "GPU " + std::to_string(best.gpu) + " with " + std::to_string(best.residents) + " resident(s), device " +
         (best.device.empty() ? "unknown" : best.device) + " (" + view.device_basis + "), " + where + ": " +
         best.terms + (best.residents > 0 ? " (resident: with/without the pod)" : "") + "; worst " +
         Times(best.worst) + " (" + best.worst_name + ")";
}

// Fills the decision from the best GPU's prediction; true when the node passes.
bool JudgeBestGpu(const GpuOutcome& best, const std::string& prediction, const std::string& ignored,
                  const ExtenderOptions& options, NodeDecision& d) {
  d.pod_slowdown = best.pod_penalty;
  d.worst_penalty = best.worst;
  if (!best.feasible) {
    d.fits = false;
    d.score = 0;
    d.reason = prediction + "; does not fit: " + best.infeasible_reason + ignored;
    return false;
  }
  if (!(best.worst <= options.max_slowdown)) {
    d.fits = false;
    d.score = 0;
    d.reason = prediction + "; above --max-slowdown " + FormatFixed(options.max_slowdown, 2) + ignored;
    return false;
  }
  d.interference_cost = best.cost;
  d.interference_term = std::clamp(1 - best.cost / (options.max_slowdown - 1), 0.0, 1.0);
  d.reason = prediction + "; interference = max(0, 1 - summed extra " + FormatFixed(best.cost, 3) + " / (" +
             FormatFixed(options.max_slowdown, 2) + " - 1)) = " + FormatFixed(d.interference_term, 3) + ignored;
  d.mps_thread_percentage = best.mps_percentage;
  if (best.mps_percentage > 0)
    d.reason += "; MPS: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" + std::to_string(best.mps_percentage) +
                " (the model's SM split with the GPU's residents)";
  return true;
}

}  // namespace

NodeGpuView ViewOfNode(const ExtenderNode& node) {
  NodeGpuView v;
  if (node.hint.resident_demand) v.residents = ParseResidentDemand(*node.hint.resident_demand);
  std::optional<int64_t> replicas = ParseInt64(Label(node, "nvidia.com/gpu.replicas"));
  if (replicas && *replicas >= 1 && *replicas <= kMilliPerGpu) v.replicas = static_cast<int>(*replicas);
  if (Label(node, "nvidia.com/gpu.sharing-strategy") == "mps") v.mode = SharingMode::kMps;
  std::optional<int64_t> count = ParseInt64(Label(node, "nvidia.com/gpu.count"));
  if (count && *count > 0) {
    v.gpus = static_cast<int>(std::min<int64_t>(*count, 1024));
    v.gpus_basis = "label nvidia.com/gpu.count";
  } else {
    int64_t reported = node.allocatable_gpus >= 0 ? node.allocatable_gpus : node.capacity_gpus;
    if (reported > 0) {
      v.gpus = static_cast<int>(std::min<int64_t>(reported / v.replicas, 1024));
      v.gpus_basis = std::string(node.allocatable_gpus >= 0 ? "allocatable" : "capacity") + " nvidia.com/gpu / replicas";
    }
  }
  for (const DemandEntry& e : v.residents.entries) {
    if (e.gpu >= v.gpus) {
      v.gpus = e.gpu + 1;
      v.gpus_basis += " (raised to the highest resident GPU index + 1)";
    }
  }
  for (const char* label : {"kraken.io/gpu-class", "nvidia.com/gpu.product"}) {
    std::string value = Label(node, label);
    if (value.empty()) continue;
    if (const DeviceSpec* d = FindDeviceSpec(value)) {
      v.device = d;
      v.device_basis = std::string("label ") + label;
      break;
    }
    v.device_basis += std::string(label) + " '" + value + "' not in the catalog; ";
  }
  if (v.device == nullptr) v.device_basis += "the model's default (the GPU the pod was measured on)";
  return v;
}

std::vector<ColocationWorkload> WorkloadsOnGpu(const NodeGpuView& view, int gpu, const DemandEntry& pod,
                                               const std::string& pod_name) {
  ColocationParameters params;
  std::vector<ColocationWorkload> ws;
  for (size_t i = 0; i < view.residents.entries.size(); ++i) {
    const DemandEntry& e = view.residents.entries[i];
    if (std::max(e.gpu, 0) != gpu) continue;  // an unknown GPU index counts as GPU 0
    ws.push_back(BuildColocationWorkload(e.demand, {}, params));
    if (ws.back().name.empty()) ws.back().name = "resident " + std::to_string(i + 1);
  }
  ws.push_back(BuildColocationWorkload(pod.demand, {}, params));
  ws.back().name = pod_name;
  return ws;
}

std::vector<NodeDecision> DecideNodesByModel(const ExtenderRequest& request, const DemandEntry& pod,
                                             const ExtenderOptions& options) {
  const std::string pod_name = request.pod_namespace + "/" + request.pod_name;
  const int64_t want = std::max<int64_t>(1, request.pod_gpu_request);
  std::vector<NodeDecision> out;
  std::vector<PackingNode> packing;  // the nodes that pass with kraken data
  for (size_t n = 0; n < request.nodes.size(); ++n) {
    const ExtenderNode& node = request.nodes[n];
    NodeDecision d;
    d.node = node.name;
    d.score = kNeutralScore;
    if (!node.hint.resident_demand) {
      d.basis = "no data";
      d.reason = "no kraken.io/resident-demand on the node: passes with the neutral score " +
                 std::to_string(kNeutralScore);
      out.push_back(std::move(d));
      continue;
    }
    d.basis = "co-location model";
    NodeGpuView view = ViewOfNode(node);
    std::string ignored = IgnoredResidentsNote(view);
    if (view.gpus == 0) {
      d.reason = "the node reports no nvidia.com/gpu: passes with the neutral score " + std::to_string(kNeutralScore);
      out.push_back(std::move(d));
      continue;
    }
    const std::vector<int> used = ResidentsPerGpu(view);
    const bool sharing = want == 1 && view.replicas > 1;
    const std::vector<int> candidates = CandidateGpus(view, used, sharing);
    const std::string where = ModeText(view) + ", " + std::to_string(view.gpus) + " GPU(s) (" + view.gpus_basis + ")";
    if (static_cast<int64_t>(candidates.size()) < (sharing ? 1 : want)) {
      d.fits = false;
      d.score = 0;
      d.reason = NoFreeGpuReason(sharing, want, candidates.size(), where);
      d.reason += ignored;
      out.push_back(std::move(d));
      continue;
    }
    const GpuOutcome best = BestGpuOutcome(view, candidates, used, sharing, pod, pod_name);
    if (JudgeBestGpu(best, PredictionText(best, view, where), ignored, options, d))
      packing.push_back({out.size(), node.name, view.gpus, view.replicas, view.residents.entries});
    out.push_back(std::move(d));
  }
  ScorePacking(packing, want, options, &out);
  return out;
}

}  // namespace kraken::k8s
