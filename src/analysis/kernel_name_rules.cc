#include "analysis/kernel_name_rules.h"

#include <array>

#include "base/text.h"

namespace kraken {
namespace {

constexpr Boundness C = Boundness::kCompute;
constexpr Boundness M = Boundness::kMemory;
constexpr Boundness U = Boundness::kUnknown;
constexpr NameMatch S = NameMatch::kSubstring;
constexpr NameMatch W = NameMatch::kWholeName;

// Why these classes: a family's usual arithmetic intensity against the ridge of current
// GPUs (FP32 ridge 10-25 FLOP/B, tensor ridge 100-400 FLOP/B, docs/analysis-classification.md).
// GEMM and convolution reuse every loaded element O(tile) times; elementwise, norm,
// softmax, pooling and copy kernels do O(1) FLOPs per byte moved.
constexpr auto kRules = std::to_array<KernelNameRule>({
    // 1. Communication.
    {"nccl", S, U, "collective communication: bound by the interconnect, not by this GPU's roofs"},
    {"rccl", S, U, "collective communication: bound by the interconnect, not by this GPU's roofs"},
    {"cross_device_reduce", S, U, "custom all-reduce (vLLM, SGLang): bound by the interconnect"},
    {"multimem", S, U, "NVLS multimem collective: bound by the interconnect"},
    {"one_shot_all_reduce", S, U, "symmetric-memory all-reduce: bound by the interconnect"},
    {"two_shot_all_reduce", S, U, "symmetric-memory all-reduce: bound by the interconnect"},
    {"oneshotallreduce", S, U, "TensorRT-LLM custom all-reduce: bound by the interconnect"},
    {"twoshotallreduce", S, U, "TensorRT-LLM custom all-reduce: bound by the interconnect"},
    {"allreduce_fusion", S, U, "fused all-reduce (TensorRT-LLM, FlashInfer): bound by the interconnect"},
    {"lamport", S, U, "Lamport all-reduce (TensorRT-LLM): bound by the interconnect"},
    {"quickreduce", S, U, "quick all-reduce (vLLM ROCm): bound by the interconnect"},
    {"userbuffers", S, U, "userbuffers communication (Transformer Engine): bound by the interconnect"},
    {"mscclpp", S, U, "MSCCL++ collective: bound by the interconnect"},
    {"deep_ep", S, U, "DeepEP all-to-all: bound by the interconnect"},
    {"nvshmem", S, U, "NVSHMEM collective: bound by the interconnect"},
    // 2. Wrappers that name their own family whatever functor or fused op they carry.
    {"elementwise_kernel", S, M, "PyTorch elementwise kernel: O(1) FLOPs per element loaded"},
    {"reduce_kernel", S, M, "PyTorch reduction: reads every element once"},
    {"multi_tensor_apply", S, M, "fused optimizer step: elementwise over parameters and states"},
    {"triton_poi", S, M, "Triton Inductor pointwise kernel: elementwise"},
    {"triton_red", S, M, "Triton Inductor reduction kernel"},
    {"triton_per", S, M, "Triton Inductor persistent reduction kernel"},
    {"triton_tem", S, C, "Triton Inductor template kernel: matmul/convolution/attention templates"},
    // 3. Memory-bound members of compute-looking families.
    {"gemv", S, M, "matrix-vector product: each matrix element is used once (AI ~ 1 FLOP/B)"},
    {"depthwise", S, M, "depthwise convolution: one filter per channel, little reuse"},
    {"convert", S, M, "data-type conversion: elementwise"},
    {"im2col", S, M, "im2col/col2im: re-layout of convolution inputs, a copy"},
    {"col2im", S, M, "im2col/col2im: re-layout of convolution inputs, a copy"},
    {"nchwtonhwc", S, M, "tensor layout transform: a copy"},
    {"nhwctonchw", S, M, "tensor layout transform: a copy"},
    {"winograd_nonfused", S, M,
     "non-fused Winograd transform pass: a few FLOPs per element; its GEMM is a separate kernel"},
    {"fft", S, M, "FFT pass: AI grows only with log n, bandwidth-bound on GPUs"},
    {"paged_attention", S, M, "paged decode attention: streams the KV cache once per token"},
    {"reshape_and_cache", S, M, "KV-cache write: a copy"},
    {"store_kvcache", S, M, "KV-cache write: a copy"},
    {"subtensorop", S, M, "MIOpen sub-tensor op: elementwise"},
    {"upsample", S, M, "upsampling/interpolation: elementwise gather"},
    // 4. Compute families.
    {"gemm", S, C, "GEMM: O(tile) reuse of every loaded element"},
    {"cutlass", S, C, "CUTLASS kernel: GEMM, convolution or attention templates"},
    {"xmma", S, C, "cuBLAS/cuDNN xmma GEMM or implicit-GEMM convolution"},
    {"wgmma", S, C, "Hopper warpgroup MMA kernel: GEMM"},
    {"hmma", S, C, "half-precision MMA kernel: GEMM"},
    {"tensorop", S, C, "tensor-core GEMM or convolution (CUTLASS tensorop)"},
    {"nvjet", S, C, "cuBLAS nvjet GEMM kernel"},
    {"cijk_", S, C, "Tensile/hipBLASLt GEMM kernel (ROCm)"},
    {"scudnn", S, C, "cuDNN implicit-GEMM convolution"},
    {"conv", S, C, "convolution: implicit GEMM, O(filter x channels) reuse"},
    {"winograd", S, C, "fused Winograd convolution"},
    {"dgrad", S, C, "convolution data gradient: implicit GEMM"},
    {"wgrad", S, C, "convolution weight gradient: implicit GEMM"},
    {"fmha", S, C, "fused multi-head attention: two GEMMs per tile"},
    {"flash", S, C, "flash attention: two GEMMs per tile"},
    {"attn", S, C, "fused attention kernel: two GEMMs per tile"},
    {"attention", S, C, "fused attention kernel: two GEMMs per tile"},
    {"matmul", S, C, "matrix multiplication"},
    {"linear", W, C, "Linear operator: a GEMM"},
    {"mm", W, C, "matrix multiplication operator"},
    {"bmm", W, C, "batched matrix multiplication operator"},
    {"addmm", W, C, "matrix multiplication operator"},
    {"cublas", S, C, "cuBLAS kernel: GEMM"},
    // 5. Memory families.
    {"norm", S, M, "normalization (batch/layer/group/RMS): a few FLOPs per element"},
    {"bn_fw", S, M, "cuDNN batch-norm forward"},
    {"bn_bw", S, M, "cuDNN batch-norm backward"},
    {"gammabeta", S, M, "norm backward (gamma/beta gradients): a reduction"},
    {"softmax", S, M, "softmax: a reduction and an elementwise pass"},
    {"pool", S, M, "pooling: reads each element once"},
    {"dropout", S, M, "dropout: elementwise"},
    {"activation", S, M, "activation function: elementwise"},
    {"gelu", S, M, "activation function: elementwise"},
    {"silu", S, M, "activation function: elementwise"},
    {"relu", S, M, "activation function: elementwise"},
    {"epilogue", S, M, "GEMM epilogue run as its own kernel: elementwise over the output"},
    {"copy", S, M, "copy"},
    {"catarray", S, M, "concatenation: a copy"},
    {"concat", S, M, "concatenation: a copy"},
    {"transpose", S, M, "transpose: a copy"},
    {"permute", S, M, "permutation: a copy"},
    {"fill", S, M, "fill: writes only"},
    {"embedding", S, M, "embedding lookup: a gather"},
    {"rotary", S, M, "rotary position embedding: elementwise"},
    {"index", S, M, "indexing: gather/scatter"},
    {"gather", S, M, "gather"},
    {"scatter", S, M, "scatter"},
    {"cub::", S, M, "CUB device-wide primitive (scan, sort, select, reduce): bandwidth-bound"},
    {"sort", S, M, "sort: bandwidth-bound passes over the keys"},
    {"topk", S, M, "top-k selection: reads each element once"},
    {"quantize", S, M, "(de)quantization: elementwise"},
    {"reduce", S, M, "reduction: reads every element once"},
    {"loss", S, M, "loss function: elementwise and a reduction"},
    {"cross_entropy", S, M, "loss function: elementwise and a reduction"},
    {"triu", S, M, "triangular mask: elementwise"},
    {"adam", S, M, "optimizer step: elementwise"},
    {"elementwise", S, M, "elementwise kernel"},
});

bool Matches(const KernelNameRule& rule, std::string_view lower_name) {
  if (rule.match == NameMatch::kWholeName) return lower_name == rule.pattern;
  return lower_name.find(rule.pattern) != std::string_view::npos;
}

}  // namespace

std::span<const KernelNameRule> KernelNameRules() { return kRules; }

const KernelNameRule* MatchKernelNameRule(std::string_view kernel_name) {
  std::string lower = ToLower(Trim(kernel_name));
  for (const KernelNameRule& rule : kRules)
    if (Matches(rule, lower)) return &rule;
  return nullptr;
}

}  // namespace kraken
