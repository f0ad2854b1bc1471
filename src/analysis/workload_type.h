// Training or inference? Decided from evidence in the trace, each piece listed so a
// reader can check it: a backward pass (autograd backward ops, dgrad/wgrad kernels), an
// optimizer step, gradient all-reduce, versus serving-engine ops (vLLM, SGLang, paged
// attention, prefill/decode) and the absence of any backward pass.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.h"

namespace kraken {

enum class WorkloadType { kTraining, kInference, kUnknown };
const char* WorkloadTypeName(WorkloadType type);

struct WorkloadTypeEvidence {
  int64_t backward_ops = 0;       // CPU ops of the autograd backward pass
  int64_t backward_kernels = 0;   // kernels named *backward*, *bwd*, dgrad, wgrad
  int64_t optimizer_ops = 0;      // optimizer step / zero_grad / fused Adam/SGD ops and kernels
  int64_t gradient_allreduce = 0; // all-reduce collectives (ops or kernels)
  int64_t serving_ops = 0;        // ops or kernels of serving engines (vllm, sglang, paged attention)
  int64_t forward_ops = 0;        // framework operators seen at all
  int64_t kernels = 0;
};

struct WorkloadTypeResult {
  WorkloadType type = WorkloadType::kUnknown;
  std::string confidence;             // "high", "medium", "low"
  std::vector<std::string> evidence;  // plain sentences with the counts
  WorkloadTypeEvidence counts;
};

WorkloadTypeResult ClassifyWorkloadType(const Profile& profile);

}  // namespace kraken
