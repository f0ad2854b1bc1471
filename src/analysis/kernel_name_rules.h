// Kernel-family rules on kernel names: the table behind the name heuristic of
// ClassifyKernel, for kernels nothing was measured for (Kineto traces, Orion lists).
//
// A rule is a lower-case pattern, the class the family usually has, and why. Rules are
// tried in table order and the first match wins, so the table reads top-down:
//   1. communication (NCCL/RCCL, custom and NVLS all-reduce: communication.h): bound by
//      the interconnect, never classified;
//   2. wrappers whose name says what they are whatever functor they carry (PyTorch's
//      elementwise_kernel/reduce_kernel, Triton Inductor's poi/red/per prefixes);
//   3. memory-bound members of compute-looking families (gemv, depthwise conv, ...);
//   4. compute families (GEMM, convolution, attention);
//   5. memory families (norms, softmax, pooling, copies, indexing, optimizers, ...).
// Names are matched case-insensitively, demangled or not (Itanium-mangled names keep
// their identifiers verbatim, so "_ZN5aiter24add_rmsnorm..." still shows "rmsnorm").
#pragma once

#include <span>
#include <string_view>

#include "analysis/boundness.h"

namespace kraken {

enum class NameMatch {
  kSubstring,  // the pattern occurs anywhere in the name
  kWholeName,  // the (trimmed) name is the pattern: short framework operator names
};

struct KernelNameRule {
  std::string_view pattern;  // lower case
  NameMatch match;
  Boundness bound;  // kCompute, kMemory, or kUnknown for "never classify by name"
  std::string_view why;
};

// The whole table, in matching order.
std::span<const KernelNameRule> KernelNameRules();

// The first rule that matches `kernel_name`, or nullptr.
const KernelNameRule* MatchKernelNameRule(std::string_view kernel_name);

}  // namespace kraken
