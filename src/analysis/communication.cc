#include "analysis/communication.h"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "analysis/kernel_name_rules.h"
#include "base/text.h"

namespace kraken {
namespace {

// Lower-case substrings. Public kernel names of each source (its kernels' source code).
constexpr auto kFamilies = std::to_array<CommNameFamily>({
    {"nccl", "NCCL (ncclKernel_*, ncclDevKernel_*, incl. NVLS and CollNet variants)"},
    {"rccl", "RCCL"},
    {"cross_device_reduce", "vLLM and SGLang custom all-reduce (cross_device_reduce_1stage/2stage)"},
    {"multimem", "NVLS multimem all-reduce/all-gather (PyTorch symmetric memory multimem_* kernels)"},
    {"one_shot_all_reduce", "PyTorch symmetric memory one-shot all-reduce"},
    {"two_shot_all_reduce", "PyTorch symmetric memory two-shot all-reduce"},
    {"oneshotallreduce", "TensorRT-LLM custom all-reduce (oneShotAllReduceKernel)"},
    {"twoshotallreduce", "TensorRT-LLM custom all-reduce (twoShotAllReduceKernel)"},
    {"allreduce_fusion", "TensorRT-LLM / FlashInfer fused all-reduce (allreduce_fusion_kernel*)"},
    {"lamport", "TensorRT-LLM Lamport all-reduce"},
    {"quickreduce", "vLLM quick all-reduce (ROCm)"},
    {"userbuffers", "Transformer Engine userbuffers comm-GEMM overlap"},
    {"mscclpp", "MSCCL++"},
    {"deep_ep", "DeepEP expert-parallel all-to-all (dispatch/combine)"},
    {"nvshmem", "NVSHMEM collectives"},
});

constexpr std::string_view kCommOpPrefixes[] = {
    "c10d::", "_c10d_functional::", "c10d_functional::", "_c10d_functional_autograd::", "record_param_comms",
    "nccl:",  "rccl:",              "hccl:",             "symm_mem::",
};

constexpr std::string_view kCollectiveWords[] = {"all_reduce", "allreduce", "all_gather", "allgather",
                                                 "reduce_scatter", "reducescatter", "all_to_all", "alltoall"};

// Names of no compute or memory family: a name rule that classifies nothing (or none).
bool HasNoKernelFamily(std::string_view name) {
  const KernelNameRule* rule = MatchKernelNameRule(name);
  return rule == nullptr || rule->bound == Boundness::kUnknown;
}

using ThreadKey = std::pair<int64_t, int64_t>;  // pid, tid

// Whether the innermost CPU operator running on the launching thread when each runtime
// call started is a communication op (indexed like Profile::runtime_calls). Innermost,
// not any enclosing one: a long collective op can span launches of computation issued
// inside it (MTIA's hccl:all_to_all holds aten::addmm launches).
std::vector<bool> LaunchedInsideCommOp(const Profile& profile) {
  std::vector<bool> out(profile.runtime_calls.size(), false);
  std::vector<int8_t> comm_name(profile.strings.size(), -1);
  auto is_comm = [&](StringId id) {
    if (id >= comm_name.size()) return false;
    if (comm_name[id] < 0) comm_name[id] = IsCommunicationOpName(profile.Name(id)) ? 1 : 0;
    return comm_name[id] == 1;
  };
  std::map<ThreadKey, std::vector<const CpuOp*>> ops;
  bool any_comm = false;
  for (const CpuOp& op : profile.cpu_ops) {
    if (op.category != CpuOpCategory::kOperator && op.category != CpuOpCategory::kUserAnnotation) continue;
    ops[{op.pid, op.tid}].push_back(&op);
    any_comm = any_comm || is_comm(op.name);
  }
  if (!any_comm) return out;
  std::map<ThreadKey, std::vector<size_t>> calls;
  for (size_t i = 0; i < profile.runtime_calls.size(); ++i)
    calls[{profile.runtime_calls[i].pid, profile.runtime_calls[i].tid}].push_back(i);
  for (auto& [thread, thread_calls] : calls) {
    auto found = ops.find(thread);
    if (found == ops.end()) continue;
    std::vector<const CpuOp*>& list = found->second;
    // Outer ops first at equal starts, so the stack nests.
    std::sort(list.begin(), list.end(), [](const CpuOp* a, const CpuOp* b) {
      return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->end_ns() > b->end_ns();
    });
    std::sort(thread_calls.begin(), thread_calls.end(), [&](size_t a, size_t b) {
      return profile.runtime_calls[a].start_ns < profile.runtime_calls[b].start_ns;
    });
    std::vector<const CpuOp*> stack;
    size_t next = 0;
    for (size_t call : thread_calls) {
      const TimeNs t = profile.runtime_calls[call].start_ns;
      for (; next < list.size() && list[next]->start_ns <= t; ++next) {
        while (!stack.empty() && stack.back()->end_ns() <= list[next]->start_ns) stack.pop_back();
        stack.push_back(list[next]);
      }
      while (!stack.empty() && stack.back()->end_ns() <= t) stack.pop_back();
      out[call] = !stack.empty() && is_comm(stack.back()->name);
    }
  }
  return out;
}

// Kernels launched directly by a communication op (see LaunchedInsideCommOp).
void MarkLaunchedByCommOps(const Profile& profile, const std::vector<int8_t>& family_free,
                           std::vector<CommEvidence>& evidence) {
  const std::vector<bool> inside = LaunchedInsideCommOp(profile);
  std::vector<std::pair<int64_t, size_t>> calls;  // correlation id -> runtime call
  calls.reserve(profile.runtime_calls.size());
  for (size_t i = 0; i < profile.runtime_calls.size(); ++i)
    if (inside[i] && profile.runtime_calls[i].correlation_id >= 0) calls.push_back({profile.runtime_calls[i].correlation_id, i});
  if (calls.empty()) return;
  std::sort(calls.begin(), calls.end());
  for (size_t i = 0; i < profile.kernels.size(); ++i) {
    const Kernel& k = profile.kernels[i];
    if (evidence[i] != CommEvidence::kNone || k.correlation_id < 0 || family_free[i] == 0) continue;
    auto it = std::lower_bound(calls.begin(), calls.end(), std::make_pair(k.correlation_id, size_t{0}));
    if (it != calls.end() && it->first == k.correlation_id) evidence[i] = CommEvidence::kLaunchingOp;
  }
}

// Kernels of no family on streams that carry communication and nothing of a family.
void MarkCommunicationStreams(const Profile& profile, const std::vector<int8_t>& family_free,
                              std::vector<CommEvidence>& evidence) {
  struct StreamUse {
    int64_t comm = 0;
    int64_t family_kernels = 0;  // non-communication kernels of a compute/memory family
  };
  std::map<std::pair<int32_t, int64_t>, StreamUse> streams;
  for (size_t i = 0; i < profile.kernels.size(); ++i) {
    StreamUse& use = streams[{profile.kernels[i].device, profile.kernels[i].stream}];
    if (evidence[i] != CommEvidence::kNone) ++use.comm;
    else if (family_free[i] == 0) ++use.family_kernels;
  }
  for (size_t i = 0; i < profile.kernels.size(); ++i) {
    if (evidence[i] != CommEvidence::kNone) continue;
    const StreamUse& use = streams[{profile.kernels[i].device, profile.kernels[i].stream}];
    if (use.comm > 0 && use.family_kernels == 0) evidence[i] = CommEvidence::kStream;
  }
}

}  // namespace

const char* CommEvidenceName(CommEvidence evidence) {
  switch (evidence) {
    case CommEvidence::kName: return "name";
    case CommEvidence::kCollectiveArgs: return "collective_args";
    case CommEvidence::kLaunchingOp: return "launching_op";
    case CommEvidence::kStream: return "stream";
    default: return "none";
  }
}

std::span<const CommNameFamily> CommunicationNameFamilies() { return kFamilies; }

bool IsCommunicationKernelName(std::string_view name) {
  for (const CommNameFamily& family : kFamilies)
    if (ContainsIgnoreCase(name, family.pattern)) return true;
  return false;
}

bool IsCommunicationOpName(std::string_view name) {
  for (std::string_view prefix : kCommOpPrefixes)
    if (StartsWith(name, prefix)) return true;
  if (name.find("::") == std::string_view::npos || StartsWith(name, "aten::")) return false;
  for (std::string_view word : kCollectiveWords)
    if (ContainsIgnoreCase(name, word)) return true;
  return false;
}

CommunicationKernels ClassifyCommunication(const Profile& profile) {
  CommunicationKernels out;
  const size_t n = profile.kernels.size();
  out.evidence.assign(n, CommEvidence::kNone);
  // Per distinct name: 1 communication family, 2 no family at all, 0 a compute/memory family.
  std::vector<int8_t> name_class(profile.strings.size(), -1);
  std::vector<int8_t> family_free(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Kernel& k = profile.kernels[i];
    int8_t c = 0;
    if (k.name < name_class.size()) {
      if (name_class[k.name] < 0) {
        std::string_view name = profile.Name(k.name);
        name_class[k.name] = IsCommunicationKernelName(name) ? 1 : (HasNoKernelFamily(name) ? 2 : 0);
      }
      c = name_class[k.name];
    }
    family_free[i] = c == 2 ? 1 : 0;
    if (c == 1) out.evidence[i] = CommEvidence::kName;
    else if (k.collective_index >= 0) out.evidence[i] = CommEvidence::kCollectiveArgs;
  }
  MarkLaunchedByCommOps(profile, family_free, out.evidence);
  MarkCommunicationStreams(profile, family_free, out.evidence);
  for (size_t i = 0; i < n; ++i) {
    auto e = static_cast<size_t>(out.evidence[i]);
    ++out.kernels[e];
    out.time_ns[e] += std::max<TimeNs>(0, profile.kernels[i].duration_ns);
  }
  return out;
}

}  // namespace kraken
