// Critical path on a hand-built rank (every rule of the walk, exact figures) and on real
// Kineto traces from shared/data/kineto (figures measured once with this code and checked
// for consistency: the kinds add up to each window, the path is never truncated).
#include "analysis/insights/critical_path.h"

#include <gtest/gtest.h>

#include "analysis/insights/insights_testing.h"

namespace kraken {
namespace {

using Kind = CriticalPathKind;

TimeNs KindNs(const CriticalPathReport& r, Kind kind) { return r.by_kind[static_cast<size_t>(kind)]; }

// One CPU thread (pid 1, tid 1): aten::op [0,100) holding a cudaLaunchKernel [10,20)
// (correlation 7) and a cudaDeviceSynchronize [30,100); the kernel runs [50,85) on
// stream 7. Step 1 covers [0,100).
Profile SyncedLaunchProfile() {
  Profile p;
  const StringId op = p.strings.Intern("aten::op");
  const StringId launch = p.strings.Intern("cudaLaunchKernel");
  const StringId sync = p.strings.Intern("cudaDeviceSynchronize");
  const StringId kernel = p.strings.Intern("gemm_kernel");
  p.cpu_ops.push_back(CpuOp{op, 0, 100, 1, 1, 1, CpuOpCategory::kOperator});
  p.runtime_calls.push_back(RuntimeCall{launch, 10, 10, 1, 1, 7, 1, false});
  p.runtime_calls.push_back(RuntimeCall{sync, 30, 70, 1, 1, 8, 1, false});
  Kernel k;
  k.name = kernel;
  k.start_ns = 50;
  k.duration_ns = 35;
  k.stream = 7;
  k.device = 0;
  k.correlation_id = 7;
  p.kernels.push_back(k);
  p.steps.push_back(StepAnnotation{1, 0, 100, 1});
  return p;
}

TEST(CriticalPath, FollowsSyncToKernelAndLaunchBackToTheCpu) {
  const CriticalPathReport r = AnalyzeCriticalPath(SyncedLaunchProfile());
  ASSERT_EQ(r.windows.size(), 1u);
  EXPECT_EQ(r.windows[0].window, (Interval{0, 100}));
  // Backwards from 100: the sync waits 85..100 for the kernel (cpu_sync 15), the kernel
  // 50..85 (gpu_compute 35), launch returned at 20 with an empty stream (launch_delay
  // 30), the launch call 10..20 (cpu_launch 10), the operator itself 0..10.
  EXPECT_EQ(KindNs(r, Kind::kCpuSync), 15);
  EXPECT_EQ(KindNs(r, Kind::kGpuCompute), 35);
  EXPECT_EQ(KindNs(r, Kind::kLaunchDelay), 30);
  EXPECT_EQ(KindNs(r, Kind::kCpuLaunch), 10);
  EXPECT_EQ(KindNs(r, Kind::kCpuOperator), 10);
  EXPECT_EQ(r.total_ns(), 100);
  EXPECT_EQ(r.windows[0].events_on_path, 1);
  EXPECT_EQ(r.dominant(), Kind::kGpuCompute);
  ASSERT_FALSE(r.top.empty());
  EXPECT_EQ(r.top[0].name, "gemm_kernel");
  EXPECT_EQ(r.top[0].count, 1);
}

TEST(CriticalPath, QueuedKernelWaitsForThePreviousOnItsStream) {
  Profile p = SyncedLaunchProfile();
  // A second launch at [21,25) whose kernel queues behind the first: [87,95).
  p.runtime_calls.push_back(RuntimeCall{p.strings.Intern("cudaLaunchKernel"), 21, 4, 1, 1, 9, 1, false});
  Kernel k = p.kernels[0];
  k.start_ns = 87;
  k.duration_ns = 8;
  k.correlation_id = 9;
  p.kernels.push_back(k);
  const CriticalPathReport r = AnalyzeCriticalPath(p);
  EXPECT_EQ(KindNs(r, Kind::kCpuSync), 5);         // 95..100
  EXPECT_EQ(KindNs(r, Kind::kGpuKernelGap), 2);    // 85..87
  EXPECT_EQ(KindNs(r, Kind::kGpuCompute), 43);     // 8 + 35
  EXPECT_EQ(KindNs(r, Kind::kLaunchDelay), 30);    // the first kernel's, not the queued one's
  EXPECT_EQ(r.total_ns(), 100);
}

TEST(CriticalPath, KernelWaitingOnAnotherStreamFollowsIt) {
  Profile p = SyncedLaunchProfile();
  // An all-reduce on stream 9 [20,60) with no launch call in the trace, and a kernel on
  // stream 11 launched at [21,25) that starts only at 62: it waited for the all-reduce.
  Kernel comm = p.kernels[0];
  comm.name = p.strings.Intern("ncclKernel_AllReduce");
  comm.stream = 9;
  comm.start_ns = 20;
  comm.duration_ns = 40;
  comm.correlation_id = -1;
  p.kernels.push_back(comm);
  p.runtime_calls.push_back(RuntimeCall{p.strings.Intern("cudaLaunchKernel"), 21, 4, 1, 1, 9, 1, false});
  Kernel waiting = p.kernels[0];
  waiting.stream = 11;
  waiting.start_ns = 62;
  waiting.duration_ns = 30;  // ends at 92, the last GPU event the sync waits for
  waiting.correlation_id = 9;
  p.kernels.push_back(waiting);
  const CriticalPathReport r = AnalyzeCriticalPath(p);
  // Back from 100: sync 92..100, the waiting kernel 62..92, the gap 60..62 after the
  // all-reduce it waited for, the all-reduce 20..60, then nothing before it on its
  // stream and no launch: unattributed 0..20.
  EXPECT_EQ(KindNs(r, Kind::kCpuSync), 8);
  EXPECT_EQ(KindNs(r, Kind::kGpuCompute), 30);
  EXPECT_EQ(KindNs(r, Kind::kGpuKernelGap), 2);
  EXPECT_EQ(KindNs(r, Kind::kGpuCommunication), 40);
  EXPECT_EQ(KindNs(r, Kind::kUnattributed), 20);
  EXPECT_EQ(r.total_ns(), 100);
}

TEST(CriticalPath, NothingWithoutTimestampsOrGpuEvents) {
  Profile p = SyncedLaunchProfile();
  p.metadata.kernel_timestamps_valid = false;
  EXPECT_TRUE(AnalyzeCriticalPath(p).windows.empty());
  Profile cpu_only = SyncedLaunchProfile();
  cpu_only.kernels.clear();
  EXPECT_TRUE(AnalyzeCriticalPath(cpu_only).windows.empty());
}

struct RealCase {
  const char* file;
  size_t windows;
  Kind dominant;
  double dominant_pct;  // measured with this code, 2 decimals
};

class CriticalPathOnRealTraces : public ::testing::TestWithParam<RealCase> {};

TEST_P(CriticalPathOnRealTraces, KindsAddUpAndTheDominantShareHolds) {
  const RealCase& c = GetParam();
  const Profile p = testing::ImportFirstProfile(c.file);
  const CriticalPathReport r = AnalyzeCriticalPath(p);
  EXPECT_FALSE(r.truncated);
  ASSERT_EQ(r.windows.size(), c.windows);
  for (const CriticalPathWindow& w : r.windows) EXPECT_EQ(w.total_ns(), w.window.length()) << w.step_number;
  EXPECT_EQ(r.dominant(), c.dominant);
  EXPECT_NEAR(r.pct(c.dominant), c.dominant_pct, 0.005);
}

INSTANTIATE_TEST_SUITE_P(
    Kineto, CriticalPathOnRealTraces,
    ::testing::Values(
        // ResNet DDP on V100, steps 101-105: the GPU sets the step (compute bound).
        RealCase{"kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 5,
                 Kind::kGpuCompute, 97.48},
        // FBGEMM/DLRM-like training on A100, steps 1009-1014: the CPU operators do
        // (with launches 25.30 %, idle CPU 20.18 %; GPU work 10.64 %).
        RealCase{"kineto/hta/trace_diff/control/control.json.gz", 6, Kind::kCpuOperator, 42.56},
        // HTA's event-sync example: one step, CPU bound in aten::empty.
        RealCase{"kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz", 1, Kind::kCpuOperator, 72.00},
        // AlexNet without ProfilerSteps: CUDA context set-up dominates the whole trace.
        RealCase{"kineto/hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 1,
                 Kind::kCpuRuntime, 90.34}));

TEST(CriticalPath, DlrmStragglerIsCpuBoundAndTheOthersWaitInCollectives) {
  const std::vector<Profile> ranks = testing::ImportAllProfiles("kineto/param/dlrm_kineto.tar.gz");
  ASSERT_EQ(ranks.size(), 8u);
  for (const Profile& p : ranks) {
    const CriticalPathReport r = AnalyzeCriticalPath(p);
    ASSERT_EQ(r.windows.size(), 1u) << p.metadata.source;
    EXPECT_EQ(r.windows[0].step_number, 10);
    EXPECT_EQ(r.windows[0].total_ns(), r.windows[0].window.length());
    // GPU compute is under 1 % of every rank's path: faster kernels would not help.
    EXPECT_LT(r.pct(Kind::kGpuCompute), 1.0) << p.metadata.source;
  }
  // worker7 (rank 7, the straggler of stragglers_test.cc): its own CPU work sets its step,
  // 51.44 % in operators and 35.58 % idle CPU, and it never waits in a collective.
  ASSERT_NE(ranks[2].metadata.source.find("worker7"), std::string::npos);
  const CriticalPathReport r7 = AnalyzeCriticalPath(ranks[2]);
  EXPECT_NEAR(r7.pct(Kind::kCpuOperator), 51.44, 0.005);
  EXPECT_NEAR(r7.pct(Kind::kCpuIdle), 35.58, 0.005);
  EXPECT_EQ(KindNs(r7, Kind::kGpuCommunication), 0);
  EXPECT_EQ(r7.total_ns(), 12'509'000);
  // worker1 (rank 1, the longest wait): waiting in collectives is the largest share.
  ASSERT_NE(ranks[7].metadata.source.find("worker1"), std::string::npos);
  const CriticalPathReport r1 = AnalyzeCriticalPath(ranks[7]);
  EXPECT_EQ(r1.dominant(), Kind::kGpuCommunication);
  EXPECT_NEAR(r1.pct(Kind::kGpuCommunication), 38.36, 0.005);
}

}  // namespace
}  // namespace kraken
