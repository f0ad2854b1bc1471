// The kernel-family table: its own consistency, and what it says about real kernel names
// (taken from the Kineto traces in shared/data/kineto and the Orion lists).
#include "analysis/kernel_name_rules.h"

#include <gtest/gtest.h>

#include <set>

#include "base/text.h"

namespace kraken {
namespace {

TEST(KernelNameRulesTest, TableIsConsistent) {
  std::set<std::string_view> patterns;
  auto rules = KernelNameRules();
  for (size_t i = 0; i < rules.size(); ++i) {
    const KernelNameRule& rule = rules[i];
    SCOPED_TRACE(std::string(rule.pattern));
    EXPECT_FALSE(rule.pattern.empty());
    EXPECT_EQ(ToLower(rule.pattern), rule.pattern) << "patterns are matched on the lower-cased name";
    EXPECT_FALSE(rule.why.empty());
    EXPECT_TRUE(rule.bound == Boundness::kCompute || rule.bound == Boundness::kMemory ||
                rule.bound == Boundness::kUnknown);
    EXPECT_TRUE(patterns.insert(rule.pattern).second) << "duplicate pattern";
    // A rule is dead if an earlier substring rule matches every name it could match.
    for (size_t j = 0; j < i; ++j) {
      const KernelNameRule& earlier = rules[j];
      if (earlier.match != NameMatch::kSubstring) continue;
      EXPECT_EQ(rule.pattern.find(earlier.pattern), std::string_view::npos)
          << "shadowed by the earlier rule \"" << earlier.pattern << "\"";
    }
  }
}

struct NameCase {
  const char* name;
  Boundness expected;
  const char* rule;
};

TEST(KernelNameRulesTest, RealKernelNames) {
  const NameCase cases[] = {
      // Orion's operator names.
      {"Conv", Boundness::kCompute, "conv"},
      {"BatchNorm", Boundness::kMemory, "norm"},
      {"volta_sgemm_128x64_tn", Boundness::kCompute, "gemm"},
      {"void at::native::(anonymous namespace)::conv_depthwise2d_forward_kernel", Boundness::kMemory, "depthwise"},
      {"void at::native::(anonymous namespace)::CatArrayBatchedCopy", Boundness::kMemory, "copy"},
      {"void at::native::(anonymous namespace)::indexSelectLargeIndex", Boundness::kMemory, "index"},
      {"void at_cuda_detail::cub::DeviceReduceSingleTileKernel", Boundness::kMemory, "cub::"},
      {"void (anonymous namespace)::softmax_warp_forward", Boundness::kMemory, "softmax"},
      {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel", Boundness::kMemory, "gammabeta"},
      // Kineto traces (CUDA).
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >"
       "(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
       Boundness::kMemory, "elementwise_kernel"},
      {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*)", Boundness::kCompute,
       "dgrad"},
      {"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float, float)", Boundness::kMemory, "bn_bw"},
      {"cudnn_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", Boundness::kCompute, "scudnn"},
      {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::WinogradDataParams)",
       Boundness::kMemory, "winograd_nonfused"},
      {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1>(cutlass_80_tensorop_s1688gemm_256x64_16x4_"
       "tn_align1::Params)",
       Boundness::kCompute, "gemm"},
      {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4", Boundness::kCompute,
       "gemm"},
      {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int, int, int)",
       Boundness::kCompute, "gemm"},
      {"void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams<float>)",
       Boundness::kMemory, "reduce_kernel"},
      {"void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float>(int, int volatile*)",
       Boundness::kMemory, "multi_tensor_apply"},
      {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>", Boundness::kMemory,
       "nchwtonhwc"},
      {"void linearize_index_kernel<long>(at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>)",
       Boundness::kMemory, "index"},
      {"void vllm::reshape_and_cache_flash_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0>",
       Boundness::kMemory, "reshape_and_cache"},
      {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", Boundness::kUnknown, "nccl"},
      {"_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1_swiglu", Boundness::kCompute, "matmul"},
      // Triton Inductor: the fused op names inside the kernel name do not decide.
      {"triton_poi_fused_addmm_gelu_view_15", Boundness::kMemory, "triton_poi"},
      {"triton_red_fused__unsafe_view_add_addmm_mul_native_layer_norm_split_unsqueeze_19", Boundness::kMemory, "triton_red"},
      {"triton_per_fused__to_copy_add_addmm_mean_mul_pow_rsqrt_transpose_view_8", Boundness::kMemory, "triton_per"},
      {"attn_fwd", Boundness::kCompute, "attn"},
      // ROCm.
      {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x256x32_MI16x16x1_SN_LDSB1", Boundness::kCompute, "cijk_"},
      {"igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x256x32_wt32x32x8", Boundness::kCompute, "gemm"},
      {"SubTensorOpWithScalar1d", Boundness::kMemory, "subtensorop"},
      {"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi64ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib",
       Boundness::kMemory, "norm"},
      {"_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelINS_40BlockFmhaBatchPrefillPipelineQRKSVSAsync",
       Boundness::kCompute, "fmha"},
      // Framework operator names, whole-name rules.
      {"Linear", Boundness::kCompute, "linear"},
      {" bmm ", Boundness::kCompute, "bmm"},
  };
  for (const NameCase& c : cases) {
    SCOPED_TRACE(c.name);
    const KernelNameRule* rule = MatchKernelNameRule(c.name);
    ASSERT_NE(rule, nullptr);
    EXPECT_EQ(rule->bound, c.expected);
    EXPECT_EQ(rule->pattern, c.rule);
  }
  // Whole-name rules do not fire inside longer names; unknown names match nothing.
  EXPECT_EQ(MatchKernelNameRule("upsample_bilinear2d_out_frame"), MatchKernelNameRule("upsample"));
  EXPECT_EQ(MatchKernelNameRule("SomethingLinearish"), nullptr);
  EXPECT_EQ(MatchKernelNameRule("my_custom_kernel"), nullptr);
  EXPECT_EQ(MatchKernelNameRule(""), nullptr);
}

}  // namespace
}  // namespace kraken
