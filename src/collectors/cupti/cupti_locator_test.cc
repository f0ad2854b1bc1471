// Where libcupti is looked for, on a staged file tree (a CUDA toolkit, a virtual
// environment with PyTorch's nvidia-cuda-cupti wheel, a conda prefix), and the tracer's
// environment settings.
#include "collectors/cupti/cupti_locator.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "base/testing/test_data.h"
#include "collectors/cupti/tracer_config.h"
#include "collectors/cupti/tracer_config_testing.h"

namespace kraken::cupti {
namespace {

namespace fs = std::filesystem;

void Touch(const std::string& path) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << "";
}

struct StagedEnvironment {
  std::string root = testing::MakeTempDir("cupti_locator");
  std::map<std::string, std::string> vars;
  LocatorEnvironment Get() {
    LocatorEnvironment env = ProcessEnvironment();
    env.getenv = [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
    env.root = root;
    return env;
  }
};

std::vector<std::string> Paths(const std::vector<CuptiCandidate>& candidates) {
  std::vector<std::string> paths;
  for (const CuptiCandidate& c : candidates) paths.push_back(c.path);
  return paths;
}

TEST(CuptiLocatorTest, ToolkitThenPythonPackagesThenTheSystemLoader) {
  StagedEnvironment staged;
  const std::string& r = staged.root;
  Touch(r + "/home/cuda-12.8/extras/CUPTI/lib64/libcupti.so.12");
  Touch(r + "/usr/local/cuda/lib64/libcupti.so");
  Touch(r + "/usr/local/cuda/lib64/libcupti.so.13");
  Touch(r + "/venv/lib/python3.12/site-packages/nvidia/cuda_cupti/lib/libcupti.so.12");
  Touch(r + "/venv/bin/python3");
  Touch(r + "/opt/conda/lib/python3.11/site-packages/nvidia/cu13/lib/libcupti.so.13");
  staged.vars["CUDA_HOME"] = r + "/home/cuda-12.8";
  staged.vars["PATH"] = r + "/venv/bin:/nonexistent/bin";
  std::vector<std::string> paths = Paths(CuptiCandidates(staged.Get()));
  std::vector<std::string> expected = {
      r + "/home/cuda-12.8/extras/CUPTI/lib64/libcupti.so.12",
      r + "/usr/local/cuda/lib64/libcupti.so",  // one per folder: the unversioned link first
      r + "/venv/bin/../lib/python3.12/site-packages/nvidia/cuda_cupti/lib/libcupti.so.12",
      r + "/opt/conda/lib/python3.11/site-packages/nvidia/cu13/lib/libcupti.so.13",
      "libcupti.so", "libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8"};
  EXPECT_EQ(paths, expected);
}

TEST(CuptiLocatorTest, VirtualEnvAndLauncherFoldersAreSearched) {
  StagedEnvironment staged;
  const std::string& r = staged.root;
  Touch(r + "/env/lib/python3.10/site-packages/nvidia/cuda_cupti/lib/libcupti.so.12");
  Touch(r + "/pkgs/nvidia/cuda_cupti/lib/libcupti.so.12");
  staged.vars["VIRTUAL_ENV"] = r + "/env";
  staged.vars["KRAKEN_PYTHON_SITE_PACKAGES"] = r + "/pkgs";
  std::vector<std::string> paths = Paths(CuptiCandidates(staged.Get()));
  ASSERT_GE(paths.size(), 2u);
  EXPECT_EQ(paths[0], r + "/pkgs/nvidia/cuda_cupti/lib/libcupti.so.12");
  EXPECT_EQ(paths[1], r + "/env/lib/python3.10/site-packages/nvidia/cuda_cupti/lib/libcupti.so.12");
}

TEST(CuptiLocatorTest, AnExplicitLibraryIsTheOnlyCandidate) {
  StagedEnvironment staged;
  Touch(staged.root + "/usr/local/cuda/lib64/libcupti.so");
  staged.vars["KRAKEN_CUPTI_LIBRARY"] = "/opt/my/libcupti.so.12";
  std::vector<CuptiCandidate> candidates = CuptiCandidates(staged.Get());
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].path, "/opt/my/libcupti.so.12");
  EXPECT_EQ(candidates[0].where, "KRAKEN_CUPTI_LIBRARY");
}

TEST(TracerConfigTest, SettingsAndBadValues) {
  std::map<std::string, std::string> vars = {{"KRAKEN_CUPTI_OUTPUT", "/tmp/t_%p_%h.json"},
                                             {"KRAKEN_CUPTI_API", "everything"},
                                             {"KRAKEN_CUPTI_BUFFER_MB", "64"},
                                             {"KRAKEN_CUPTI_FLUSH_MS", "5"},
                                             {"KRAKEN_CUPTI_NVTX", "0"}};
  TracerConfig config = ReadTracerConfig([&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
  EXPECT_EQ(config.output, "/tmp/t_%p_%h.json");
  EXPECT_EQ(config.api, ApiRecording::kLaunches);
  EXPECT_EQ(config.buffer_limit_bytes, 64 << 20);
  EXPECT_EQ(config.flush_interval_ms, 1000);  // 5 ms is below the floor: default kept
  EXPECT_FALSE(config.nvtx);
  ASSERT_EQ(config.problems.size(), 2u);
  EXPECT_EQ(config.problems[0], "KRAKEN_CUPTI_API=everything is not one of launches, all, none; using launches");
  EXPECT_EQ(config.problems[1], "KRAKEN_CUPTI_FLUSH_MS=5 is not a whole number from 10 to 3600000; using 1000");
}

TEST(TracerConfigTest, OutputPathPerProcess) {
  auto no_dirs = [](const std::string&) { return false; };
  EXPECT_EQ(ResolveOutputPath("/tmp/t_%p_%h.json", 42, "node7", no_dirs), "/tmp/t_42_node7.json");
  EXPECT_EQ(ResolveOutputPath("traces/", 42, "h", no_dirs), "traces/kraken_cupti_42.json");
  EXPECT_EQ(ResolveOutputPath("/data/run", 42, "h", [](const std::string& p) { return p == "/data/run"; }),
            "/data/run/kraken_cupti_42.json");
  EXPECT_EQ(ResolveOutputPath("fixed.json", 42, "h", no_dirs), "fixed.json");
  EXPECT_EQ(ResolveOutputPath("100%.json", 42, "h", no_dirs), "100%.json");
}

}  // namespace
}  // namespace kraken::cupti

namespace kraken::cupti {
namespace {

TracerConfig ConfigWithActivities(const char* activities, const char* api = nullptr) {
  return ReadTracerConfig([&](const std::string_view name) -> const char* {
    if (name == "KRAKEN_CUPTI_ACTIVITIES") return activities;
    if (name == "KRAKEN_CUPTI_API") return api;
    return nullptr;
  });
}

TEST(TracerConfigTest, ActivitiesChooseTheOptionalKinds) {
  TracerConfig all = ConfigWithActivities(nullptr);
  EXPECT_EQ(all.activities, kDefaultActivities);
  EXPECT_EQ(ActivitiesText(all.activities), "kernels,memcpy,memset,nvtx,api,memory");  // sync: opt-in
  EXPECT_EQ(ConfigWithActivities("all").activities, kAllActivities);
  EXPECT_EQ(ActivitiesText(kAllActivities), "kernels,memcpy,memset,sync,nvtx,api,memory");
  EXPECT_EQ(ConfigWithActivities("sync,api").activities, uint32_t{kActivitySync | kActivityApi});
  EXPECT_TRUE(all.nvtx);
  EXPECT_EQ(all.api, ApiRecording::kLaunches);

  TracerConfig kernels = ConfigWithActivities("kernels");
  EXPECT_EQ(kernels.activities, 0u);
  EXPECT_FALSE(kernels.nvtx);
  EXPECT_EQ(kernels.api, ApiRecording::kNone);
  EXPECT_TRUE(kernels.problems.empty());

  TracerConfig some = ConfigWithActivities("memcpy,marker,api", "all");
  EXPECT_EQ(some.activities, uint32_t{kActivityMemcpy | kActivityNvtx | kActivityApi});
  EXPECT_EQ(ActivitiesText(some.activities), "kernels,memcpy,nvtx,api");
  EXPECT_EQ(some.api, ApiRecording::kAll);

  TracerConfig memory = ConfigWithActivities("kernels,memory");
  EXPECT_EQ(memory.activities, uint32_t{kActivityMemory});
  EXPECT_EQ(ActivitiesText(memory.activities), "kernels,memory");

  // KRAKEN_CUPTI_API=none wins over `api` in the list.
  TracerConfig no_api = ConfigWithActivities("api,sync", "none");
  EXPECT_EQ(no_api.activities, uint32_t{kActivitySync});
  EXPECT_EQ(no_api.api, ApiRecording::kNone);
}

TEST(TracerConfigTest, CaptureWindowAndHardwareTrace) {
  TracerConfig defaults = TracerConfigFromVars({});
  EXPECT_EQ(defaults.delay_ms, 0);
  EXPECT_EQ(defaults.duration_ms, 0);
  EXPECT_TRUE(defaults.hw_trace);
  EXPECT_TRUE(defaults.detach);

  TracerConfig window = TracerConfigFromVars({{"KRAKEN_CUPTI_DELAY_MS", "30000"},
                                              {"KRAKEN_CUPTI_DURATION_MS", "5000"},
                                              {"KRAKEN_CUPTI_HW_TRACE", "0"},
                                              {"KRAKEN_CUPTI_DETACH", "0"}});
  EXPECT_EQ(window.delay_ms, 30000);
  EXPECT_EQ(window.duration_ms, 5000);
  EXPECT_FALSE(window.hw_trace);
  EXPECT_FALSE(window.detach);
  EXPECT_TRUE(window.problems.empty());
  EXPECT_TRUE(TracerConfigFromVars({{"KRAKEN_CUPTI_HW_TRACE", "1"}}).hw_trace);
  TracerConfig bad_detach = TracerConfigFromVars({{"KRAKEN_CUPTI_DETACH", "no"}});
  EXPECT_TRUE(bad_detach.detach);
  ASSERT_EQ(bad_detach.problems.size(), 1u);
  EXPECT_EQ(bad_detach.problems[0], "KRAKEN_CUPTI_DETACH=no is not 0 or 1; using 1");
}

TEST(TracerConfigTest, CountersAreNotCombinedWithACaptureWindow) {
  EXPECT_TRUE(TracerConfigFromVars({{"KRAKEN_CUPTI_COUNTERS", "1"}}).counters);
  TracerConfig both = TracerConfigFromVars({{"KRAKEN_CUPTI_COUNTERS", "1"}, {"KRAKEN_CUPTI_DELAY_MS", "1000"}});
  EXPECT_FALSE(both.counters);
  EXPECT_EQ(both.delay_ms, 1000);  // the window stands, the counters go
  ASSERT_EQ(both.problems.size(), 1u);
  EXPECT_EQ(both.problems[0],
            "KRAKEN_CUPTI_COUNTERS=1 is not combined with a capture window (KRAKEN_CUPTI_DELAY_MS, "
            "KRAKEN_CUPTI_DURATION_MS, KRAKEN_CUPTI_START_ON_NVTX); per-kernel counters stay off");
}

TEST(TracerConfigTest, TheCounterBatchIsAtMostWhatOneCounterDataImageHolds) {
  EXPECT_EQ(TracerConfigFromVars({}).counters_batch, 128);
  // Counters replay kernels: smaller activity buffers, more of them in flight (run 10b).
  EXPECT_EQ(TracerConfigFromVars({}).buffer_bytes, int64_t{8} << 20);
  EXPECT_EQ(TracerConfigFromVars({{"KRAKEN_CUPTI_COUNTERS", "1"}}).buffer_bytes, int64_t{1} << 20);
  EXPECT_EQ(TracerConfigFromVars({{"KRAKEN_CUPTI_COUNTERS", "1"}}).buffer_limit_bytes, int64_t{256} << 20);
  EXPECT_EQ(TracerConfigFromVars({{"KRAKEN_CUPTI_COUNTERS_BATCH", "16"}}).counters_batch, 16);
  TracerConfig big = TracerConfigFromVars({{"KRAKEN_CUPTI_COUNTERS_BATCH", "129"}});
  EXPECT_EQ(big.counters_batch, 128);
  ASSERT_EQ(big.problems.size(), 1u);
  EXPECT_NE(big.problems[0].find("KRAKEN_CUPTI_COUNTERS_BATCH"), std::string::npos) << big.problems[0];
}

TEST(TracerConfigTest, ABadWindowValueIsOneLineAndKeepsTheDefault) {
  TracerConfig bad = TracerConfigFromVars({{"KRAKEN_CUPTI_DELAY_MS", "10s"},
                                     {"KRAKEN_CUPTI_DURATION_MS", "-5"},
                                     {"KRAKEN_CUPTI_HW_TRACE", "yes"}});
  EXPECT_EQ(bad.delay_ms, 0);
  EXPECT_EQ(bad.duration_ms, 0);
  EXPECT_TRUE(bad.hw_trace);
  ASSERT_EQ(bad.problems.size(), 3u);
  EXPECT_EQ(bad.problems[0], "KRAKEN_CUPTI_DELAY_MS=10s is not a whole number from 0 to 604800000; using 0");
  EXPECT_EQ(bad.problems[1], "KRAKEN_CUPTI_DURATION_MS=-5 is not a whole number from 0 to 604800000; using 0");
  EXPECT_EQ(bad.problems[2], "KRAKEN_CUPTI_HW_TRACE=yes is not 0 or 1; using 1");
  // The range start needs NVTX forwarded to libcupti.
  TracerConfig range = TracerConfigFromVars({{"KRAKEN_CUPTI_START_ON_NVTX", "ProfilerStep#10"}});
  EXPECT_EQ(range.start_on_nvtx, "ProfilerStep#10");
  EXPECT_TRUE(range.problems.empty());
  TracerConfig no_nvtx =
      TracerConfigFromVars({{"KRAKEN_CUPTI_START_ON_NVTX", "ProfilerStep#10"}, {"KRAKEN_CUPTI_ACTIVITIES", "kernels"}});
  EXPECT_EQ(no_nvtx.start_on_nvtx, "");
  ASSERT_EQ(no_nvtx.problems.size(), 1u);
  EXPECT_EQ(no_nvtx.problems[0],
            "KRAKEN_CUPTI_START_ON_NVTX=ProfilerStep#10 needs the NVTX ranges, which KRAKEN_CUPTI_NVTX=0 or "
            "KRAKEN_CUPTI_ACTIVITIES turned off; recording without it");
  // Longer than a week: a unit mistake, refused.
  EXPECT_EQ(TracerConfigFromVars({{"KRAKEN_CUPTI_DURATION_MS", "604800001"}}).duration_ms, 0);
}

TEST(TracerConfigTest, ABadActivityIsOneLineAndKeepsTheDefault) {
  for (const char* bad : {"memcpy,kernel", "memcpy,", "", ","}) {
    TracerConfig config = ConfigWithActivities(bad);
    EXPECT_EQ(config.activities, kDefaultActivities) << bad;
    if (*bad == '\0') {
      EXPECT_TRUE(config.problems.empty());  // empty: unset
      continue;
    }
    ASSERT_EQ(config.problems.size(), 1u) << bad;
    EXPECT_EQ(config.problems[0].find('\n'), std::string::npos);
  }
  EXPECT_EQ(ConfigWithActivities("memcpy,kernel").problems[0],
            "KRAKEN_CUPTI_ACTIVITIES=memcpy,kernel: 'kernel' is not one of kernels, memcpy, memset, sync, nvtx, "
            "marker, api, memory, all; using kernels,memcpy,memset,nvtx,api,memory");
}

}  // namespace
}  // namespace kraken::cupti
