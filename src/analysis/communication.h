// Which kernels are communication, from all the evidence a trace carries. Kernel names
// alone miss collectives that do not say "nccl" (NVLS/multimem kernels, the custom
// all-reduce of vLLM, SGLang and TensorRT-LLM, PyTorch symmetric memory), so each kernel
// is judged on, in order:
//   1. name      its name belongs to a communication family (CommunicationNameFamilies());
//   2. args      the profiler recorded collective args on it (Kineto "Collective name",
//                "In msg nelems", ...: Profile::collectives);
//   3. op        the innermost CPU op running on the launching thread when its runtime call
//                (by correlation id) started is a communication op (c10d::,
//                record_param_comms, nccl:, symm_mem::, a custom all-reduce op), and its
//                name is of no compute or memory family (copies and casts that a
//                collective launches around itself stay what they are);
//   4. stream    it runs on a stream whose other kernels are communication by 1-3 and
//                its name is of no compute or memory family (NCCL's dedicated streams).
// The first that applies is the kernel's evidence. Pure function of the profile.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "model/profile.h"

namespace kraken {

enum class CommEvidence : uint8_t { kNone, kName, kCollectiveArgs, kLaunchingOp, kStream };

const char* CommEvidenceName(CommEvidence evidence);  // "none", "name", "collective_args", ...

struct CommNameFamily {
  std::string_view pattern;  // lower case, matched as a substring of the lower-cased name
  std::string_view source;   // who writes such kernels
};

// The kernel-name families of communication kernels.
std::span<const CommNameFamily> CommunicationNameFamilies();

// True when the kernel name belongs to a communication family (case-insensitive).
bool IsCommunicationKernelName(std::string_view name);

// True for CPU ops that issue collectives: c10d::/_c10d_functional:: ops,
// record_param_comms, nccl:/rccl:/hccl: annotations, symm_mem:: ops and custom
// all-reduce ops (a namespaced op whose name says all_reduce/all_gather/reduce_scatter).
bool IsCommunicationOpName(std::string_view name);

struct CommunicationKernels {
  std::vector<CommEvidence> evidence;  // one per Profile::kernels entry
  // Kernels and kernel time per evidence, indexed by CommEvidence.
  int64_t kernels[5] = {};
  TimeNs time_ns[5] = {};

  bool is_communication(size_t kernel_index) const { return evidence[kernel_index] != CommEvidence::kNone; }
  int64_t communication_kernels() const { return kernels[1] + kernels[2] + kernels[3] + kernels[4]; }
  TimeNs communication_ns() const { return time_ns[1] + time_ns[2] + time_ns[3] + time_ns[4]; }
};

CommunicationKernels ClassifyCommunication(const Profile& profile);

}  // namespace kraken
