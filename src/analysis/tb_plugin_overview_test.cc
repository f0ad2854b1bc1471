// tb_plugin Overview figures: the plugin's own synthetic unit test, the step rules, and
// the expected output of its two ResNet-50 sample runs (tb_plugin/test/result_check_file.txt).
#include "analysis/tb_plugin_overview.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <string_view>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "analysis/analysis_testing.h"

namespace kraken {
namespace {

using testing::AddStep;
using testing::Round2;

void AddKernel(Profile* p, TimeNs start, TimeNs duration, int64_t stream, double blocks_per_sm,
               double occupancy, int64_t correlation_id, int32_t device = 1) {
  Kernel k;
  k.name = p->strings.Intern("kernel");
  k.start_ns = start;
  k.duration_ns = duration;
  k.device = device;
  k.stream = stream;
  k.blocks_per_sm = blocks_per_sm;
  k.est_achieved_occupancy_pct = occupancy;
  k.correlation_id = correlation_id;
  p->kernels.push_back(k);
}

void AddLaunch(Profile* p, TimeNs start, TimeNs duration, int64_t correlation_id) {
  RuntimeCall call;
  call.name = p->strings.Intern("cudaLaunchKernel");
  call.start_ns = start;
  call.duration_ns = duration;
  call.correlation_id = correlation_id;
  p->runtime_calls.push_back(call);
}

// tb_plugin's test_profiler.py::test_gpu_utilization: kernels A [130,140) 0.5 blocks/SM
// occupancy 0.6, B [135,150) 0.6/0.1, C at 150 of zero duration, D [145,170) 0.3/1.0,
// E [200,220) 10.5/0.3, launched from a step at [100,200).
TEST(TbPluginOverviewTest, ThePluginsOwnGpuUtilizationCase) {
  Profile p;
  AddStep(&p, 1, 100, 100);
  AddKernel(&p, 130, 10, 7, 0.5, 0.6, 1);
  AddKernel(&p, 135, 15, 8, 0.6, 0.1, 2);
  AddKernel(&p, 150, 0, 8, 100, 100, 3);  // zero duration: no weight anywhere
  AddKernel(&p, 145, 25, 7, 0.3, 1.0, 4);
  AddKernel(&p, 200, 20, 7, 10.5, 0.3, 5);
  for (int64_t corr = 1; corr <= 5; ++corr) AddLaunch(&p, 100 + 10 * corr, 5, corr);
  auto overview = ComputeTbPluginOverview(p);
  ASSERT_TRUE(overview.has_value());
  EXPECT_EQ(overview->window, (Interval{100, 220}));
  EXPECT_EQ(overview->steps, 1);
  EXPECT_EQ(overview->average_step_ns, 120);
  EXPECT_EQ(overview->device, 1);
  EXPECT_EQ(overview->kernel_union_ns, 60);
  EXPECT_DOUBLE_EQ(overview->gpu_utilization_pct, 50.0);
  ASSERT_TRUE(overview->est_sm_efficiency_pct.has_value());
  // (0.5*5 + 1.0*5 + 0.6*5 + 0.9*5 + 0.3*20 + 1.0*20) / 120: concurrent sums capped at 1.
  EXPECT_NEAR(*overview->est_sm_efficiency_pct, 100.0 * 41 / 120, 1e-9);
  ASSERT_TRUE(overview->est_achieved_occupancy_pct.has_value());
  // (0.6*10 + 0.1*15 + 1.0*25 + 0.3*20) / 70
  EXPECT_NEAR(*overview->est_achieved_occupancy_pct, 0.55, 1e-12);
}

TEST(TbPluginOverviewTest, NothingWithoutStepsOrKernels) {
  Profile no_steps;
  AddKernel(&no_steps, 0, 10, 7, 1, 50, 1);
  EXPECT_FALSE(ComputeTbPluginOverview(no_steps).has_value());
  Profile no_kernels;
  AddStep(&no_kernels, 1, 0, 100);
  EXPECT_FALSE(ComputeTbPluginOverview(no_kernels).has_value());
}

TEST(TbPluginOverviewTest, FiguresNeedBlocksPerSmAndOccupancy) {
  Profile p;
  AddStep(&p, 1, 0, 100);
  AddKernel(&p, 10, 40, 7, -1, -1, 1);  // ROCm: neither estimate recorded
  AddLaunch(&p, 5, 2, 1);
  auto overview = ComputeTbPluginOverview(p);
  ASSERT_TRUE(overview.has_value());
  EXPECT_DOUBLE_EQ(overview->gpu_utilization_pct, 40.0);
  EXPECT_FALSE(overview->est_sm_efficiency_pct.has_value());
  EXPECT_FALSE(overview->est_achieved_occupancy_pct.has_value());
}

// Steps [0,100), [100,200), [200,300). Step 1's kernel runs until 150, so step 2 starts
// there. Step 3 launches 1 kernel against step 2's 2 (< 80 %): the plugin drops it as a
// step the profiler cut short. A runtime call straddling a step's end launches in no step.
TEST(TbPluginOverviewTest, StepsStretchOverTheirGpuWorkAndAShortLastStepIsDropped) {
  Profile p;
  AddStep(&p, 1, 0, 100);
  AddStep(&p, 2, 100, 100);
  AddStep(&p, 3, 200, 100);
  AddLaunch(&p, 10, 5, 1);
  AddLaunch(&p, 120, 5, 2);
  AddLaunch(&p, 130, 5, 3);
  AddLaunch(&p, 195, 10, 4);  // straddles 200
  AddLaunch(&p, 210, 5, 5);
  AddKernel(&p, 50, 100, 7, 1, 50, 1);
  AddKernel(&p, 150, 10, 7, 1, 50, 2);
  AddKernel(&p, 160, 10, 7, 1, 50, 3);
  AddKernel(&p, 205, 10, 7, 1, 50, 4);
  AddKernel(&p, 290, 50, 7, 1, 50, 5);
  auto overview = ComputeTbPluginOverview(p);
  ASSERT_TRUE(overview.has_value());
  EXPECT_EQ(overview->steps, 2);
  EXPECT_EQ(overview->window, (Interval{0, 200}));
  EXPECT_EQ(overview->kernel_union_ns, 120);  // [50,170)
}

TEST(TbPluginOverviewTest, WorkLaunchedBeforeTheFirstStepDelaysItsStart) {
  Profile p;
  AddStep(&p, 1, 100, 100);
  AddLaunch(&p, 10, 5, 1);   // before the step
  AddLaunch(&p, 110, 5, 2);  // in it
  AddKernel(&p, 90, 30, 7, 1, 50, 1);  // still running at 100, ends before step 1's kernel
  AddKernel(&p, 150, 20, 7, 1, 50, 2);
  auto overview = ComputeTbPluginOverview(p);
  ASSERT_TRUE(overview.has_value());
  EXPECT_EQ(overview->window, (Interval{120, 200}));
  EXPECT_EQ(overview->kernel_union_ns, 20);
}

struct SampleRun {
  const char* file;
  TimeNs window_ns;
  TimeNs kernel_union_ns;
  double gpu_utilization_pct, sm_efficiency_pct, occupancy_pct;
};

// The Overview of span 1 of each sample run. Windows: 1,065,553 µs = 6 x 177,592 µs (the
// plugin's average step) and 846,542 µs (the plugin prints 6 x 141,068; its per-step
// table is rounded differently).
TEST(TbPluginOverviewTest, ResnetSampleRunsMatchThePluginsExpectedOutput) {
  const SampleRun runs[] = {
      {"kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", 1065553000,
       591532000, 55.51, 54.68, 49.13},
      {"kineto/kineto_tb_plugin/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz", 846542000,
       594868000, 70.27, 69.22, 48.91},
  };
  for (const SampleRun& run : runs) {
    auto profiles = ImportFile(BuiltinImporters(), testing::DataPath(run.file));
    ASSERT_TRUE(profiles.ok()) << profiles.status().message();
    auto overview = ComputeTbPluginOverview((*profiles)[0]);
    ASSERT_TRUE(overview.has_value()) << run.file;
    EXPECT_EQ(overview->steps, 6);
    EXPECT_EQ(overview->device, 0);
    EXPECT_EQ(overview->window.length(), run.window_ns) << run.file;
    EXPECT_EQ(overview->window.start_ns, (*profiles)[0].steps.front().start_ns) << run.file;
    EXPECT_EQ(overview->kernel_union_ns, run.kernel_union_ns) << run.file;
    EXPECT_EQ(Round2(overview->gpu_utilization_pct), run.gpu_utilization_pct) << run.file;
    ASSERT_TRUE(overview->est_sm_efficiency_pct.has_value());
    EXPECT_EQ(Round2(*overview->est_sm_efficiency_pct), run.sm_efficiency_pct) << run.file;
    ASSERT_TRUE(overview->est_achieved_occupancy_pct.has_value());
    EXPECT_EQ(Round2(*overview->est_achieved_occupancy_pct), run.occupancy_pct) << run.file;
  }
}

}  // namespace
}  // namespace kraken
