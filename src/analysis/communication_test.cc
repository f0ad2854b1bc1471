// Communication kernels from all the evidence (communication.h), on real traces: with
// their names the NCCL kernels are found by name; with the names taken away (what a
// custom or NVLS collective looks like to a name matcher) the collective args, the
// launching c10d/record_param_comms ops and the NCCL streams still find every one of them.
#include "analysis/communication.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/kernel_name_rules.h"
#include "analysis/timeline.h"
#include "base/testing/test_data.h"
#include "base/text.h"
#include "importers/registry.h"

namespace kraken {
namespace {

Profile ImportCommTrace(const std::string& relative) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->empty()) return Profile();
  return std::move((*result)[0]);
}

// Kernels whose name says nccl or rccl, counted straight from the profile.
int64_t NcclNamedKernels(const Profile& p, TimeNs* time) {
  int64_t n = 0;
  *time = 0;
  for (const Kernel& k : p.kernels) {
    if (!ContainsIgnoreCase(p.Name(k.name), "nccl") && !ContainsIgnoreCase(p.Name(k.name), "rccl")) continue;
    ++n;
    *time += k.duration_ns;
  }
  return n;
}

struct CommCase {
  const char* file;
  int64_t nccl_kernels;  // kernel events named nccl*, counted in the raw JSON with Python
};

const CommCase kCommCases[] = {
    {"kineto/hta/nccl_parser_config/nccl_data.json.gz", 21},
    {"kineto/hta/trace_diff/control/control.json.gz", 60},
    {"kineto/tracelens/mi300/resnet_act_checkpoint.json.gz", 17},
    {"kineto/hta/negative_queue_length_values_check/rank0.json.gz", 80},
};

TEST(CommunicationTest, NamedCollectivesOfRealTracesAreFoundByName) {
  for (const CommCase& c : kCommCases) {
    Profile p = ImportCommTrace(c.file);
    TimeNs nccl_time = 0;
    ASSERT_EQ(NcclNamedKernels(p, &nccl_time), c.nccl_kernels) << c.file;
    CommunicationKernels comm = ClassifyCommunication(p);
    EXPECT_EQ(comm.kernels[static_cast<int>(CommEvidence::kName)], c.nccl_kernels) << c.file;
    EXPECT_EQ(comm.time_ns[static_cast<int>(CommEvidence::kName)], nccl_time) << c.file;
    // No other kernel of these traces is communication: the timeline keeps TraceLens' figures.
    EXPECT_EQ(comm.communication_kernels(), c.nccl_kernels) << c.file;
  }
}

// The same traces with every NCCL kernel renamed to a name of no family.
TEST(CommunicationTest, CollectivesWithoutTellingNamesAreFoundFromOtherEvidence) {
  for (const CommCase& c : kCommCases) {
    Profile p = ImportCommTrace(c.file);
    TimeNs nccl_time = 0;
    NcclNamedKernels(p, &nccl_time);
    TimelineBreakdown before = AnalyzeTimeline(p).trace;
    const StringId anonymous = p.strings.Intern("void custom_collective_kernel<float>(Params)");
    for (Kernel& k : p.kernels)
      if (ContainsIgnoreCase(p.Name(k.name), "nccl") || ContainsIgnoreCase(p.Name(k.name), "rccl")) k.name = anonymous;
    CommunicationKernels comm = ClassifyCommunication(p);
    EXPECT_EQ(comm.kernels[static_cast<int>(CommEvidence::kName)], 0) << c.file;
    EXPECT_EQ(comm.communication_kernels(), c.nccl_kernels) << c.file;
    EXPECT_EQ(comm.communication_ns(), nccl_time) << c.file;
    TimelineBreakdown after = AnalyzeTimeline(p).trace;
    EXPECT_EQ(after.comm_ns, before.comm_ns) << c.file;
    EXPECT_EQ(after.exposed_comm_ns, before.exposed_comm_ns) << c.file;
  }
}

TEST(CommunicationTest, EachEvidenceIsUsedOnRealTraces) {
  // nccl_data records collective args on its NCCL kernels (Kineto "Collective name").
  Profile with_args = ImportCommTrace("kineto/hta/nccl_parser_config/nccl_data.json.gz");
  // control.json has no collective args: the launching ops and the streams must do.
  Profile without_args = ImportCommTrace("kineto/hta/trace_diff/control/control.json.gz");
  for (Profile* p : {&with_args, &without_args}) {
    const StringId anonymous = p->strings.Intern("anonymous_kernel");
    for (Kernel& k : p->kernels)
      if (ContainsIgnoreCase(p->Name(k.name), "nccl")) k.name = anonymous;
  }
  CommunicationKernels a = ClassifyCommunication(with_args);
  EXPECT_EQ(a.kernels[static_cast<int>(CommEvidence::kCollectiveArgs)], 21);
  CommunicationKernels b = ClassifyCommunication(without_args);
  EXPECT_EQ(b.kernels[static_cast<int>(CommEvidence::kCollectiveArgs)], 0);
  EXPECT_GT(b.kernels[static_cast<int>(CommEvidence::kLaunchingOp)], 0);
  EXPECT_EQ(b.kernels[static_cast<int>(CommEvidence::kLaunchingOp)] + b.kernels[static_cast<int>(CommEvidence::kStream)], 60);
}

TEST(CommunicationTest, NameFamiliesOfRecentCollectives) {
  for (const char* name : {
           "ncclDevKernel_AllReduce_Sum_bf16_NVLS(ncclDevKernelArgsStorage<4096ul>)",
           "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, int)",
           "void c10d::symmetric_memory::multimem_all_reduce_kernel<__nv_bfloat16, 16>(...)",
           "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 8>(...)",
           "void c10d::symmetric_memory::two_shot_all_reduce_kernel<float, 8>(...)",
           "void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>(AllReduceParams)",
           "void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot_lamport<...>(...)",
           "void quickreduce::allreduce_prototype_twoshot<...>(...)",
           "void deep_ep::intranode::dispatch<8, 768>(...)",
       }) {
    EXPECT_TRUE(IsCommunicationKernelName(name)) << name;
    const KernelNameRule* rule = MatchKernelNameRule(name);
    ASSERT_NE(rule, nullptr) << name;
    EXPECT_EQ(rule->bound, Boundness::kUnknown) << name << " matched " << rule->pattern;
  }
  for (const char* name : {"ampere_sgemm_128x64_nn", "void at::native::reduce_kernel<512, 1>(...)",
                           "void at::native::vectorized_elementwise_kernel<4, ...>(...)", "Memcpy DtoD"})
    EXPECT_FALSE(IsCommunicationKernelName(name)) << name;
}

TEST(CommunicationTest, LaunchingOpNames) {
  for (const char* op : {"c10d::allreduce_", "record_param_comms", "nccl:all_reduce", "_c10d_functional::all_reduce",
                         "vllm::all_reduce", "_C_custom_ar::all_reduce", "symm_mem::one_shot_all_reduce",
                         "trtllm::allreduce", "hccl:allgather"})
    EXPECT_TRUE(IsCommunicationOpName(op)) << op;
  for (const char* op : {"aten::add", "## alltoall_fwd_single ##", "ProfilerStep#3", "aten::_foreach_add_",
                         "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"})
    EXPECT_FALSE(IsCommunicationOpName(op)) << op;
}

}  // namespace
}  // namespace kraken
