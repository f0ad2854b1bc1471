// Frequent kernel sequences on a hand-built stream and on real Kineto traces.
#include "analysis/insights/kernel_sequences.h"

#include <gtest/gtest.h>

#include "analysis/insights/insights_testing.h"

namespace kraken {
namespace {

// Appends kernel `name` on `stream` at [start, start + duration).
void AddSequenceKernel(Profile* p, std::string_view name, int64_t stream, TimeNs start, TimeNs duration) {
  Kernel k;
  k.name = p->strings.Intern(name);
  k.stream = stream;
  k.device = 0;
  k.start_ns = start;
  k.duration_ns = duration;
  p->kernels.push_back(k);
}

TEST(KernelSequences, RepeatingCycleIsOneSequenceNotItsRotations) {
  Profile p;
  TimeNs t = 0;
  for (int i = 0; i < 5; ++i) {
    AddSequenceKernel(&p, "norm", 7, t, 10);
    AddSequenceKernel(&p, "gemm", 7, t + 12, 50);
    AddSequenceKernel(&p, "relu", 7, t + 64, 5);
    t += 1'000'000;  // 1 ms apart: each cycle is a run of its own
  }
  KernelSequenceOptions options;
  options.min_count = 3;
  const auto found = FindFrequentKernelSequences(p, options);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kernels, (std::vector<std::string>{"norm", "gemm", "relu"}));
  EXPECT_EQ(found[0].count, 5);
  EXPECT_EQ(found[0].kernel_time_ns, 5 * 65);
  EXPECT_EQ(found[0].gap_time_ns, 5 * 4);
}

TEST(KernelSequences, CommunicationAndStreamsEndARun) {
  Profile p;
  for (int i = 0; i < 4; ++i) {
    const TimeNs t = i * 1'000;
    AddSequenceKernel(&p, "a", 7, t, 10);
    AddSequenceKernel(&p, "ncclKernel_AllReduce", 7, t + 10, 10);
    AddSequenceKernel(&p, "b", 7, t + 20, 10);
    AddSequenceKernel(&p, "c", 9, t + 20, 10);
  }
  // a|nccl|b never forms a run, and b (stream 7) never runs into c (stream 9): only
  // pairs across the 1 µs gaps between cycles remain (b a on stream 7, c c on stream 9).
  for (const KernelSequence& s : FindFrequentKernelSequences(p)) {
    for (const std::string& k : s.kernels) EXPECT_EQ(k.find("nccl"), std::string::npos);
    EXPECT_FALSE(s.kernels.front() == "a" && s.kernels.back() == "b");
  }
}

TEST(KernelSequences, ResNetBackwardOnV100) {
  const Profile p = testing::ImportFirstProfile("kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  const auto found = FindFrequentKernelSequences(p);
  ASSERT_EQ(found.size(), 10u);
  // The heaviest: batch-norm backward, two elementwise kernels, two sgemms and the
  // wgrad reduction, 40 times, launched from aten::cudnn_batch_norm_backward.
  EXPECT_EQ(found[0].count, 40);
  EXPECT_EQ(found[0].kernel_time_ns, 38'680'961);
  EXPECT_EQ(found[0].gap_time_ns, 173'760);
  ASSERT_EQ(found[0].kernels.size(), 6u);
  EXPECT_EQ(found[0].kernels[0].rfind("void cudnn::bn_bw_1C11_kernel_", 0), 0u);
  EXPECT_EQ(found[0].kernels[3], "volta_sgemm_32x128_nt");
  EXPECT_EQ(found[0].launching_operator, "aten::cudnn_batch_norm_backward");
  for (size_t i = 1; i < found.size(); ++i) EXPECT_LE(found[i].total_ns(), found[i - 1].total_ns());
}

}  // namespace
}  // namespace kraken
