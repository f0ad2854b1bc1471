// Timeline breakdown on small hand-made profiles whose every figure can be worked out on
// paper. The real traces are in timeline_golden_test.cc.
#include "analysis/timeline.h"
#include "analysis/analysis_testing.h"

#include <gtest/gtest.h>

#include <string_view>

namespace kraken {
namespace {

using testing::AddStep;

void AddKernel(Profile* p, std::string_view name, TimeNs start, TimeNs duration, int64_t stream,
               int64_t correlation_id, int32_t device = 0) {
  Kernel k;
  k.name = p->strings.Intern(name);
  k.start_ns = start;
  k.duration_ns = duration;
  k.device = device;
  k.stream = stream;
  k.correlation_id = correlation_id;
  p->kernels.push_back(k);
}

void AddMemoryOp(Profile* p, MemoryOpKind kind, TimeNs start, TimeNs duration, int64_t stream,
                 int64_t correlation_id) {
  MemoryOp m;
  m.name = p->strings.Intern(kind == MemoryOpKind::kMemcpy ? "Memcpy HtoD (Pageable -> Device)" : "Memset (Device)");
  m.kind = kind;
  m.start_ns = start;
  m.duration_ns = duration;
  m.device = 0;
  m.stream = stream;
  m.correlation_id = correlation_id;
  p->memory_ops.push_back(m);
}

void AddLaunch(Profile* p, TimeNs start, int64_t correlation_id) {
  RuntimeCall call;
  call.name = p->strings.Intern("cudaLaunchKernel");
  call.start_ns = start;
  call.duration_ns = 5;
  call.correlation_id = correlation_id;
  p->runtime_calls.push_back(call);
}

// compute [0,100) on stream 7, NCCL [50,150) on 8, memcpy [140,200) on 9, memset [300,310)
// on 7, a zero-length kernel at 400 with no runtime call, a kernel on device 1 [20,30).
Profile MixedProfile() {
  Profile p;
  AddKernel(&p, "volta_sgemm_128x64_nn", 0, 100, 7, 1);
  AddKernel(&p, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 50, 100, 8, 2);
  AddMemoryOp(&p, MemoryOpKind::kMemcpy, 140, 60, 9, 3);
  AddMemoryOp(&p, MemoryOpKind::kMemset, 300, 10, 7, 4);
  AddKernel(&p, "empty_kernel", 400, 0, 7, 5);
  AddKernel(&p, "volta_sgemm_128x64_nn", 20, 10, 3, 6, /*device=*/1);
  for (int64_t corr : {1, 2, 3, 4, 6}) AddLaunch(&p, 0, corr);
  return p;
}

TEST(TimelineTest, CommunicationKernelNames) {
  EXPECT_TRUE(IsCommunicationKernelName("ncclDevKernel_Generic"));
  EXPECT_TRUE(IsCommunicationKernelName("void rcclGenericKernel<1>(ncclDevComm*)"));
  EXPECT_TRUE(IsCommunicationKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
  EXPECT_TRUE(IsCommunicationKernelName("void vllm::cross_device_reduce_1stage<float, 8>(...)"));
  EXPECT_TRUE(IsCommunicationKernelName("NCCL_ALLGATHER"));
  EXPECT_TRUE(IsCommunicationKernelName("multimem_all_reduce_kernel"));  // NVLS, not named nccl (issue 17)
  EXPECT_FALSE(IsCommunicationKernelName("volta_sgemm_128x64_nn"));
  EXPECT_FALSE(IsCommunicationKernelName(""));
}

TEST(TimelineTest, WholeTraceBreakdownOfOverlappingClasses) {
  RankTimeline t = AnalyzeTimeline(MixedProfile());
  const TimelineBreakdown& b = t.trace;
  EXPECT_EQ(b.window, (Interval{0, 400}));  // the zero-length kernel bounds the span
  EXPECT_EQ(b.total_ns, 400);
  EXPECT_EQ(b.busy_ns, 210);     // [0,200) + [300,310)
  EXPECT_EQ(b.idle_ns, 190);
  EXPECT_EQ(b.compute_ns, 110);  // gemm [0,100) + memset [300,310)
  EXPECT_EQ(b.comm_ns, 100);
  EXPECT_EQ(b.exposed_comm_ns, 50);    // [100,150)
  EXPECT_EQ(b.memcpy_ns, 60);
  EXPECT_EQ(b.exposed_memcpy_ns, 50);  // [150,200)
  EXPECT_EQ(b.gpu_events, 6);
  EXPECT_DOUBLE_EQ(b.idle_pct(), 47.5);
  // TraceLens' identity: compute + exposed comm + exposed memcpy + idle = total.
  EXPECT_EQ(b.compute_ns + b.exposed_comm_ns + b.exposed_memcpy_ns + b.idle_ns, b.total_ns);
  EXPECT_TRUE(t.steps.empty());
  EXPECT_FALSE(t.steps_total.has_value());
}

TEST(TimelineTest, LinkedOnlyDropsEventsWithoutRuntimeCall) {
  TimelineOptions options;
  options.linked_only = true;
  RankTimeline t = AnalyzeTimeline(MixedProfile(), options);
  EXPECT_EQ(t.trace.window, (Interval{0, 310}));
  EXPECT_EQ(t.trace.busy_ns, 210);
  EXPECT_EQ(t.trace.idle_ns, 100);
  EXPECT_EQ(t.trace.gpu_events, 5);
}

TEST(TimelineTest, StreamsSortedByDeviceThenStreamOverTheRankWindow) {
  RankTimeline t = AnalyzeTimeline(MixedProfile());
  ASSERT_EQ(t.streams.size(), 4u);
  EXPECT_EQ(t.streams[0].device, 0);
  EXPECT_EQ(t.streams[0].stream, 7);
  EXPECT_EQ(t.streams[1].stream, 8);
  EXPECT_EQ(t.streams[2].stream, 9);
  EXPECT_EQ(t.streams[3].device, 1);
  EXPECT_EQ(t.streams[3].stream, 3);
  const TimelineBreakdown& s7 = t.streams[0].breakdown;
  EXPECT_EQ(s7.window, (Interval{0, 400}));
  EXPECT_EQ(s7.busy_ns, 110);
  EXPECT_EQ(s7.compute_ns, 110);
  EXPECT_EQ(s7.gpu_events, 3);
  // Alone on its stream the NCCL kernel is not hidden by anything.
  EXPECT_EQ(t.streams[1].breakdown.exposed_comm_ns, 100);
  EXPECT_EQ(t.streams[2].breakdown.exposed_memcpy_ns, 60);
  EXPECT_EQ(t.streams[3].breakdown.busy_ns, 10);
}

TEST(TimelineTest, RocmCopyKernelsCountAsMemcpy) {
  Profile p;
  AddKernel(&p, "__amd_rocclr_copyBuffer.kd", 0, 40, 1, 1);
  AddKernel(&p, "MEMORY_COPY_DEVICE_TO_HOST", 50, 10, 1, 2);
  AddKernel(&p, "__amd_rocclr_fillBufferAligned.kd", 100, 20, 1, 3);  // a fill: compute, like memset
  RankTimeline t = AnalyzeTimeline(p);
  EXPECT_EQ(t.trace.memcpy_ns, 50);
  EXPECT_EQ(t.trace.compute_ns, 20);
  EXPECT_EQ(t.trace.idle_ns, 50);  // [40,50) + [60,100)
}

TEST(TimelineTest, NothingWithoutValidKernelTimestamps) {
  Profile p = MixedProfile();
  AddStep(&p, 1, 0, 1000);
  p.metadata.kernel_timestamps_valid = false;
  RankTimeline t = AnalyzeTimeline(p);
  EXPECT_EQ(t.trace.total_ns, 0);
  EXPECT_EQ(t.trace.gpu_events, 0);
  EXPECT_TRUE(t.streams.empty());
  EXPECT_TRUE(t.steps.empty());
  EXPECT_FALSE(t.steps_total.has_value());
  EXPECT_EQ(AnalyzeTimelineWindow(p, {0, 100}).busy_ns, 0);
}

TEST(TimelineTest, EmptyProfileGivesZeroes) {
  RankTimeline t = AnalyzeTimeline(Profile());
  EXPECT_EQ(t.trace.total_ns, 0);
  EXPECT_DOUBLE_EQ(t.trace.idle_pct(), 0);
  EXPECT_TRUE(t.streams.empty());
}

// Steps at [0,1000), [1000,2000), [2000,3000), [3000,4000). Step 1 launches a kernel at
// 900 that runs in step 2's CPU time; step 2 also has an unlinked kernel (mapped by its
// own start); step 4 launches nothing.
Profile SteppedProfile() {
  Profile p;
  for (int64_t i = 0; i < 4; ++i) AddStep(&p, i + 1, 1000 * i, 1000);
  AddLaunch(&p, 100, 10);
  AddLaunch(&p, 900, 11);
  AddLaunch(&p, 1100, 20);
  AddLaunch(&p, 2500, 30);
  AddKernel(&p, "k10", 500, 300, 7, 10);
  AddKernel(&p, "k11", 1200, 300, 7, 11);
  AddKernel(&p, "k20", 1600, 100, 7, 20);
  AddKernel(&p, "unlinked", 1750, 10, 7, -1);
  AddKernel(&p, "k30", 2600, 300, 7, 30);
  return p;
}

TEST(TimelineTest, StepWindowsRunFromEachStepsFirstGpuEventToTheNext) {
  RankTimeline t = AnalyzeTimeline(SteppedProfile());
  ASSERT_EQ(t.steps.size(), 4u);
  EXPECT_EQ(t.steps[0].step_number, 1);
  EXPECT_EQ(t.steps[0].cpu_window, (Interval{0, 1000}));
  EXPECT_EQ(t.steps[0].breakdown.window, (Interval{500, 1600}));
  EXPECT_EQ(t.steps[0].breakdown.busy_ns, 600);
  EXPECT_EQ(t.steps[0].breakdown.idle_ns, 500);
  EXPECT_EQ(t.steps[0].launched_gpu_events, 2);
  EXPECT_EQ(t.steps[0].last_gpu_end_ns, 1500);
  EXPECT_EQ(t.steps[1].breakdown.window, (Interval{1600, 2600}));
  EXPECT_EQ(t.steps[1].breakdown.busy_ns, 110);
  EXPECT_EQ(t.steps[1].launched_gpu_events, 2);
  EXPECT_EQ(t.steps[1].last_gpu_end_ns, 1760);
  EXPECT_EQ(t.steps[2].breakdown.window, (Interval{2600, 2900}));
  EXPECT_EQ(t.steps[2].breakdown.idle_ns, 0);
  EXPECT_EQ(t.steps[3].breakdown.window, (Interval{2900, 2900}));
  EXPECT_EQ(t.steps[3].launched_gpu_events, 0);
  EXPECT_EQ(t.steps[3].last_gpu_end_ns, -1);
  ASSERT_TRUE(t.steps_total.has_value());
  EXPECT_EQ(t.steps_total->window, (Interval{500, 2900}));
  EXPECT_EQ(t.steps_total->busy_ns, 1010);
  EXPECT_EQ(t.steps_total->gpu_events, 5);
}

TEST(TimelineTest, StepWindowsNeverGoBackwards) {
  Profile p;
  AddStep(&p, 1, 0, 1000);
  AddStep(&p, 2, 1000, 1000);
  AddLaunch(&p, 100, 1);
  AddLaunch(&p, 1100, 2);
  AddKernel(&p, "late", 1500, 100, 7, 1);   // step 1's work starts late...
  AddKernel(&p, "early", 1200, 100, 8, 2);  // ...after step 2's first kernel
  RankTimeline t = AnalyzeTimeline(p);
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(t.steps[0].breakdown.window, (Interval{1500, 1500}));
  EXPECT_EQ(t.steps[1].breakdown.window, (Interval{1500, 1600}));
  EXPECT_EQ(t.steps_total->window, (Interval{1500, 1600}));
}

TEST(TimelineTest, ArbitraryWindowClipsEvents) {
  TimelineBreakdown b = AnalyzeTimelineWindow(MixedProfile(), {90, 160});
  EXPECT_EQ(b.total_ns, 70);
  EXPECT_EQ(b.busy_ns, 70);
  EXPECT_EQ(b.compute_ns, 10);
  EXPECT_EQ(b.comm_ns, 60);
  EXPECT_EQ(b.exposed_comm_ns, 50);
  EXPECT_EQ(b.memcpy_ns, 20);
  EXPECT_EQ(b.exposed_memcpy_ns, 10);
  EXPECT_EQ(b.gpu_events, 3);
}

}  // namespace
}  // namespace kraken
