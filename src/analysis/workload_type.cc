#include "analysis/workload_type.h"

#include <array>
#include <string_view>
#include <unordered_map>

#include "base/text.h"

namespace kraken {

const char* WorkloadTypeName(WorkloadType type) {
  switch (type) {
    case WorkloadType::kTraining: return "training";
    case WorkloadType::kInference: return "inference";
    case WorkloadType::kUnknown: break;
  }
  return "unknown";
}

namespace {

bool ContainsAny(const std::string& lower, std::initializer_list<std::string_view> needles) {
  for (std::string_view n : needles)
    if (lower.find(n) != std::string::npos) return true;
  return false;
}

// What one distinct name says; computed once per name, then weighted by occurrences.
struct NameSignals {
  bool backward = false;
  bool optimizer = false;
  bool allreduce = false;
  bool serving = false;
};

NameSignals SignalsOfOpName(std::string_view name) {
  std::string lower = ToLower(name);
  NameSignals s;
  // Autograd node names ("ConvolutionBackward0") and the engine's evaluate_function.
  s.backward = lower.find("backward") != std::string::npos ||
               StartsWith(lower, "autograd::engine::evaluate_function");
  s.optimizer = ContainsAny(lower, {"optimizer.step", "optimizer.zero_grad", "optimizer#", "_foreach_",
                                    "fused_adam", "adamw", "aten::adam", "sgd.step", "_fused_sgd"});
  s.allreduce = ContainsAny(lower, {"all_reduce", "allreduce"});
  s.serving = ContainsAny(lower, {"vllm", "sglang", "paged_attention", "pagedattention", "prefill", "decode",
                                  "kv_cache", "kvcache", "reshape_and_cache"});
  return s;
}

NameSignals SignalsOfKernelName(std::string_view name) {
  std::string lower = ToLower(name);
  NameSignals s;
  s.backward = ContainsAny(lower, {"backward", "bwd", "dgrad", "wgrad"});
  // multi_tensor_apply is how PyTorch's fused optimizers (and few other ops) run.
  s.optimizer = ContainsAny(lower, {"multi_tensor_apply", "adam", "fused_sgd"});
  s.allreduce = ContainsAny(lower, {"allreduce", "all_reduce", "cross_device_reduce"});
  s.serving = ContainsAny(lower, {"paged_attention", "reshape_and_cache", "kvcache", "kv_cache", "vllm", "sglang"});
  return s;
}

template <typename Events, typename Fn>
void Tally(const Profile& profile, const Events& events, Fn signals_of, WorkloadTypeEvidence* ev,
           bool kernels) {
  std::unordered_map<StringId, int64_t> occurrences;
  for (const auto& e : events) ++occurrences[e.name];
  for (const auto& [name, n] : occurrences) {
    NameSignals s = signals_of(profile.Name(name));
    if (s.backward) (kernels ? ev->backward_kernels : ev->backward_ops) += n;
    if (s.optimizer) ev->optimizer_ops += n;
    if (s.allreduce) ev->gradient_allreduce += n;
    if (s.serving) ev->serving_ops += n;
  }
}

}  // namespace

WorkloadTypeResult ClassifyWorkloadType(const Profile& profile) {
  WorkloadTypeResult result;
  WorkloadTypeEvidence& ev = result.counts;
  Tally(profile, profile.cpu_ops, SignalsOfOpName, &ev, false);
  Tally(profile, profile.kernels, SignalsOfKernelName, &ev, true);
  for (const CpuOp& op : profile.cpu_ops) ev.forward_ops += op.category == CpuOpCategory::kOperator;
  ev.kernels = static_cast<int64_t>(profile.kernels.size());

  auto say = [&](int64_t n, const std::string& what) {
    if (n > 0) result.evidence.push_back(std::to_string(n) + " " + what);
  };
  say(ev.backward_ops, "autograd backward operators");
  say(ev.backward_kernels, "backward-pass kernels (backward/bwd/dgrad/wgrad)");
  say(ev.optimizer_ops, "optimizer operators or kernels");
  say(ev.gradient_allreduce, "all-reduce operations");
  say(ev.serving_ops, "serving-engine operators or kernels (vllm/sglang/paged attention/prefill/decode)");
  if (!profile.steps.empty()) say(static_cast<int64_t>(profile.steps.size()), "ProfilerStep iterations");

  bool has_backward = ev.backward_ops > 0 || ev.backward_kernels > 0;
  if (has_backward && (ev.optimizer_ops > 0 || ev.gradient_allreduce > 0)) {
    result.type = WorkloadType::kTraining;
    result.confidence = "high";
  } else if (has_backward) {
    result.type = WorkloadType::kTraining;
    result.confidence = "medium";
    result.evidence.push_back("a backward pass but no optimizer step in the captured window");
  } else if (ev.serving_ops > 0) {
    result.type = WorkloadType::kInference;
    result.confidence = "high";
  } else if (ev.forward_ops > 0 && ev.kernels > 0) {
    // Operators ran on the GPU and none of them was a backward pass or an optimizer
    // step: a forward-only workload.
    result.type = WorkloadType::kInference;
    result.confidence = ev.forward_ops >= 100 ? "medium" : "low";
    result.evidence.push_back(std::to_string(ev.forward_ops) +
                              " framework operators ran and none belongs to a backward pass or optimizer");
  } else {
    result.type = WorkloadType::kUnknown;
    result.confidence = "low";
    result.evidence.push_back(ev.kernels > 0 ? "only GPU kernels without a backward pass: not enough to tell"
                                             : "no framework operators or GPU kernels to judge from");
  }
  return result;
}

}  // namespace kraken
