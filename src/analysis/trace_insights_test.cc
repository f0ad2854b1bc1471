// The HTA-style analyses on real shared traces. Expected figures come from two places:
//   - "independent": scripts/crosscheck_hta_analyses.py over the raw Kineto JSON (json module, µs text x 1000
//     converted to integer ns with Decimal, HTA's rules re-implemented in a few lines, no
//     kraken code), run once;
//   - a reference computation in this file over the imported events (brute force).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "analysis/characterize.h"
#include "analysis/trace_insights.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken {
namespace {

constexpr char kAlexnet[] = "kineto/hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz";
constexpr char kResnetTb[] = "kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
constexpr char kTraceDiffControl[] = "kineto/hta/trace_diff/control/control.json.gz";
constexpr char kDfIndex[] = "kineto/hta/df_index_resolver/df_index_resolver.json.gz";

Profile ImportInsightsTrace(const std::string& relative) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->empty()) return Profile();
  return std::move((*result)[0]);
}

const StreamIdle* FindStreamIdle(const IdleBreakdown& idle, int64_t stream) {
  for (const StreamIdle& s : idle.streams)
    if (s.stream == stream) return &s;
  return nullptr;
}

// Brute-force HTA rule over one stream of the imported events.
IdleParts ReferenceStreamIdle(const Profile& p, int64_t stream) {
  std::map<int64_t, TimeNs> launch;
  for (const RuntimeCall& c : p.runtime_calls) launch.emplace(c.correlation_id, c.start_ns);
  std::vector<std::tuple<TimeNs, TimeNs, int64_t>> ev;
  for (const Kernel& k : p.kernels)
    if (k.stream == stream) ev.emplace_back(k.start_ns, k.end_ns(), k.correlation_id);
  for (const MemoryOp& m : p.memory_ops)
    if (m.stream == stream) ev.emplace_back(m.start_ns, m.end_ns(), m.correlation_id);
  std::sort(ev.begin(), ev.end());
  IdleParts parts;
  for (size_t i = 1; i < ev.size(); ++i) {
    TimeNs prev_end = std::get<1>(ev[i - 1]), gap = std::get<0>(ev[i]) - prev_end;
    if (gap <= 0) continue;
    ++parts.gaps;
    auto it = launch.find(std::get<2>(ev[i]));
    if (it != launch.end() && it->second > prev_end) parts.host_wait_ns += gap;
    else if (gap < 30) parts.kernel_wait_ns += gap;
    else parts.other_ns += gap;
  }
  return parts;
}

struct IdleCase {
  const char* file;
  int64_t stream;
  TimeNs host_wait_ns, kernel_wait_ns, other_ns;  // independent (HTA's per-stream rule)
  TimeNs union_host_wait_ns, union_other_ns;      // independent, union of all streams
};

// Figures printed by the independent script for these files.
const IdleCase kIdleCases[] = {
    {kAlexnet, 7, 12'855'007'000, 0, 104'000, 12'853'995'000, 108'000},
    {kResnetTb, 7, 382'676'000, 0, 10'243'000, 382'676'000, 10'243'000},
    {kTraceDiffControl, 7, 133'311'000, 0, 49'903'000, 66'571'000, 9'436'000},
};

TEST(IdleBreakdownTest, MatchesHtaRuleOnRealTraces) {
  for (const IdleCase& c : kIdleCases) {
    Profile p = ImportInsightsTrace(c.file);
    IdleBreakdown idle = AnalyzeIdleBreakdown(p, {});
    const StreamIdle* s = FindStreamIdle(idle, c.stream);
    ASSERT_NE(s, nullptr) << c.file;
    IdleParts ref = ReferenceStreamIdle(p, c.stream);
    EXPECT_EQ(s->idle.host_wait_ns, ref.host_wait_ns) << c.file;
    EXPECT_EQ(s->idle.kernel_wait_ns, ref.kernel_wait_ns) << c.file;
    EXPECT_EQ(s->idle.other_ns, ref.other_ns) << c.file;
    EXPECT_EQ(s->idle.gaps, ref.gaps) << c.file;
    // Against the independent script, to the nanosecond.
    EXPECT_EQ(s->idle.host_wait_ns, c.host_wait_ns) << c.file;
    EXPECT_EQ(s->idle.kernel_wait_ns, c.kernel_wait_ns) << c.file;
    EXPECT_EQ(s->idle.other_ns, c.other_ns) << c.file;
    EXPECT_EQ(idle.rank.host_wait_ns, c.union_host_wait_ns) << c.file;
    EXPECT_EQ(idle.rank.other_ns, c.union_other_ns) << c.file;
  }
}

TEST(IdleBreakdownTest, RankPartsAddUpToTimelineIdleAndStepsTileIt) {
  Profile p = ImportInsightsTrace(kResnetTb);
  WorkloadReport r = CharacterizeWorkload(p);
  const IdleBreakdown& idle = r.insights.idle;
  EXPECT_EQ(idle.rank.total_ns(), r.timeline.trace.idle_ns);
  ASSERT_EQ(idle.steps.size(), r.timeline.steps.size());
  ASSERT_FALSE(idle.steps.empty());
  for (size_t i = 0; i < idle.steps.size(); ++i)
    EXPECT_EQ(idle.steps[i].idle.total_ns(), r.timeline.steps[i].breakdown.idle_ns) << "step " << idle.steps[i].step_number;
}

// Brute force: the queue length just after time t = launches started at or before t
// whose GPU operation starts after t.
int64_t ReferenceQueueAt(const Profile& p, int64_t stream, TimeNs t) {
  std::map<int64_t, TimeNs> launch;
  for (const RuntimeCall& c : p.runtime_calls) launch.emplace(c.correlation_id, c.start_ns);
  int64_t n = 0;
  auto count = [&](int64_t s, int64_t corr, TimeNs start) {
    auto it = launch.find(corr);
    if (s == stream && it != launch.end() && it->second <= t && start > t) ++n;
  };
  for (const Kernel& k : p.kernels) count(k.stream, k.correlation_id, k.start_ns);
  for (const MemoryOp& m : p.memory_ops) count(m.stream, m.correlation_id, m.start_ns);
  return n;
}

TEST(LaunchQueueTest, MaximumMatchesBruteForceAndBlockedTimeFollowsTheLimit) {
  Profile p = ImportInsightsTrace(kAlexnet);
  LaunchQueueOptions all_points;
  all_points.max_points = 0;
  LaunchQueues q = AnalyzeLaunchQueues(p, all_points);
  ASSERT_FALSE(q.streams.empty());
  for (const StreamQueue& s : q.streams) {
    EXPECT_EQ(ReferenceQueueAt(p, s.stream, s.max_at_ns), s.max_length) << "stream " << s.stream;
    EXPECT_GT(s.launches, 0);
  }
  EXPECT_EQ(q.blocked_ns, 0);  // nothing near CUDA's 1024-deep queue
  LaunchQueueOptions tight = all_points;
  tight.max_queue_length = 1;
  LaunchQueues t = AnalyzeLaunchQueues(p, tight);
  // Time with at least one operation queued: sum the series' intervals by hand.
  for (const StreamQueue& s : t.streams) {
    TimeNs expected = 0;
    for (size_t i = 0; i + 1 < s.series.size(); ++i)
      if (s.series[i].length >= 1) expected += s.series[i + 1].time_ns - s.series[i].time_ns;
    EXPECT_EQ(s.blocked_ns, expected);
  }
  EXPECT_GT(t.blocked_ns, 0);
}

struct BandwidthCase {
  const char* file;
  const char* kind;
  int64_t operations, bytes;
  double gb_per_s;  // independent: bytes / summed duration
};

const BandwidthCase kBandwidthCases[] = {
    {kResnetTb, "h2d", 12, 115'607'040, 10.0598},
    {kTraceDiffControl, "d2d", 18, 1'821'299'360, 665.923},
    {kTraceDiffControl, "h2d", 150, 423'923'260, 8.36867},
    {kDfIndex, "d2d", 2040, 5'892'787'600, 269.545},
};

TEST(MemcpyBandwidthTest, KindsMatchIndependentSums) {
  for (const BandwidthCase& c : kBandwidthCases) {
    Profile p = ImportInsightsTrace(c.file);
    std::vector<CopyKindBandwidth> kinds = AnalyzeMemcpyBandwidth(p);
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const CopyKindBandwidth& b) { return b.kind == c.kind; });
    ASSERT_NE(it, kinds.end()) << c.file << " " << c.kind;
    EXPECT_EQ(it->operations, c.operations) << c.file << " " << c.kind;
    EXPECT_EQ(it->bytes, c.bytes) << c.file << " " << c.kind;
    EXPECT_NEAR(it->mean_gb_per_s, c.gb_per_s, c.gb_per_s * 1e-3) << c.file << " " << c.kind;
    EXPECT_GE(it->max_gb_per_s, it->p50_gb_per_s) << c.file << " " << c.kind;
  }
}

TEST(OverlapTest, CategoriesTileTheSpanAndAgreeWithTheTimeline) {
  Profile p = ImportInsightsTrace(kTraceDiffControl);
  WorkloadReport r = CharacterizeWorkload(p);
  const OverlapBreakdown& o = r.insights.overlap;
  TimeNs sum = 0;
  for (const OverlapCategory& c : o.categories) {
    EXPECT_GE(c.duration_ns, 0) << c.name;
    sum += c.duration_ns;
  }
  EXPECT_EQ(sum, o.window.length());
  EXPECT_EQ(o.window.length(), r.timeline.trace.total_ns);
  EXPECT_EQ(o.Duration("idle"), r.timeline.trace.idle_ns);
  EXPECT_EQ(o.comm_ns, r.timeline.trace.comm_ns);
  EXPECT_EQ(o.comm_overlapped_ns, r.timeline.trace.comm_ns - r.timeline.trace.exposed_comm_ns);
  EXPECT_GT(o.Duration("compute_comm"), 0);
}

TEST(MemoryTimelineTest, PeakAndPlaceOnRealTrace) {
  Profile p = ImportInsightsTrace(kDfIndex);
  std::vector<DeviceMemoryTimeline> devices = AnalyzeMemoryTimeline(p);
  ASSERT_EQ(devices.size(), 1u);
  const DeviceMemoryTimeline& d = devices[0];
  EXPECT_EQ(d.device, 1);
  // Independent: the largest "Total Allocated" of the device's [memory] events, and the
  // "Total Reserved" of that same event.
  EXPECT_EQ(d.peak_allocated_bytes, 6'629'508'096.0);
  EXPECT_EQ(d.fragmentation_at_peak_bytes, 12'782'141'440.0 - 6'629'508'096.0);
  EXPECT_GE(d.peak_reserved_bytes, 12'782'141'440.0);
  EXPECT_FALSE(d.peak_allocated_op.empty());
  EXPECT_LE(d.series.size(), 400u);
  EXPECT_GT(d.mean_fragmentation_pct, 0);
  EXPECT_LT(d.mean_fragmentation_pct, 100);
}

TEST(StepKernelsTest, TablesCountTheKernelsOfEachStepWindow) {
  Profile p = ImportInsightsTrace(kResnetTb);
  WorkloadReport r = CharacterizeWorkload(p);
  ASSERT_EQ(r.insights.step_kernels.size(), r.timeline.steps.size());
  for (const StepKernelTable& t : r.insights.step_kernels) {
    int64_t n = 0;
    for (const Kernel& k : p.kernels) n += k.start_ns >= t.window.start_ns && k.start_ns < t.window.end_ns;
    EXPECT_EQ(t.kernels, n) << "step " << t.step_number;
    ASSERT_FALSE(t.top.empty());
    EXPECT_GE(t.top.front().total_ns, t.top.back().total_ns);
  }
}

TEST(StepKernelsTest, StepsWindowRestrictsTheKernelTable) {
  // One ProfilerStep; 8 of its 1516 kernels run before the step's GPU window.
  Profile p = ImportInsightsTrace("kineto/tracelens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
  CharacterizeOptions whole, steps;
  steps.kernels_over_steps = true;
  WorkloadReport a = CharacterizeWorkload(p, whole), b = CharacterizeWorkload(p, steps);
  ASSERT_TRUE(b.timeline.steps_total.has_value());
  int64_t in_steps = 0;
  const Interval w = b.timeline.steps_total->window;
  for (const Kernel& k : p.kernels) in_steps += k.start_ns >= w.start_ns && k.start_ns <= w.end_ns;
  EXPECT_EQ(b.kernels.kernel_count, in_steps);
  EXPECT_EQ(b.kernels.kernel_count, 1508);
  EXPECT_EQ(a.kernels.kernel_count, 1516);
}

}  // namespace
}  // namespace kraken
