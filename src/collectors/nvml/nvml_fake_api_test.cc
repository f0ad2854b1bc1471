// The collector against a fake NvmlApi (no library at all): init failures, GPUs kraken may
// not open, drivers that support nothing, growing process lists, garbage samples; and the
// promise that a steady-state pass allocates nothing (on the 8-GPU replay fixture).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>

#include "collectors/nvml/nvml_test_support.h"

#ifndef KRAKEN_SANITIZE_BUILD
// GCC 12 sees the replaced operator delete inlined next to std::allocator's new (one more
// test in this file changed its inlining) and reports a malloc/free pair as mismatched;
// both replacements below use malloc and free, so the pair does match.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
// Counts heap allocations while `g_counting` is set (the sanitizers replace operator new
// themselves, so the check is skipped under them).
namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace
void* operator new(std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
  }
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace kraken::nvml {
namespace {

using testing::CountMetric;
using testing::Pick;
using testing::ValuesOf;

// Two GPUs; the second one answers NO_PERMISSION. Only what a test sets is supported.
class FakeNvml : public NvmlApi {
 public:
  nvmlReturn_t init_rc = NVML_SUCCESS;
  std::vector<nvmlProcessInfo_t> processes;
  std::vector<nvmlProcessUtilizationSample_t> samples;

  nvmlReturn_t Init() override { return init_rc; }
  nvmlReturn_t Shutdown() override { return NVML_SUCCESS; }
  nvmlReturn_t DeviceGetCount(unsigned int* n) override {
    *n = 2;
    return NVML_SUCCESS;
  }
  nvmlReturn_t DeviceGetHandleByIndex(unsigned int i, nvmlDevice_t* d) override {
    if (i == 1) return NVML_ERROR_NO_PERMISSION;
    *d = reinterpret_cast<nvmlDevice_t>(&handle_);
    return NVML_SUCCESS;
  }
  nvmlReturn_t DeviceGetComputeRunningProcesses(nvmlDevice_t, unsigned int* n, nvmlProcessInfo_t* p) override {
    if (processes.empty()) return NVML_ERROR_NOT_SUPPORTED;
    if (*n < processes.size()) {
      *n = static_cast<unsigned int>(processes.size());
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    std::copy(processes.begin(), processes.end(), p);
    *n = static_cast<unsigned int>(processes.size());
    return NVML_SUCCESS;
  }
  nvmlReturn_t DeviceGetProcessUtilization(nvmlDevice_t, nvmlProcessUtilizationSample_t* s, unsigned int* n,
                                           unsigned long long last_seen) override {
    last_seen_ = last_seen;
    if (samples.empty()) return NVML_ERROR_NOT_FOUND;
    if (*n < samples.size()) {
      *n = static_cast<unsigned int>(samples.size());
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    std::copy(samples.begin(), samples.end(), s);
    *n = static_cast<unsigned int>(samples.size());
    return NVML_SUCCESS;
  }
  unsigned long long last_seen() const { return last_seen_; }

 private:
  int handle_ = 0;
  unsigned long long last_seen_ = 0;
};

// Names from `proc_root`; every pass reads everything (the cadence: nvml_cadence_test.cc).
NvmlSamplerOptions EveryPassOptions(std::string proc_root) {
  NvmlSamplerOptions options;
  options.proc_root = std::move(proc_root);
  options.slow_interval_us = 0;
  return options;
}

TEST(NvmlFakeApiTest, InitFailureNamesTheReturnCode) {
  FakeNvml fake;
  fake.init_rc = NVML_ERROR_DRIVER_NOT_LOADED;
  NvmlSampler sampler(fake, EveryPassOptions(""));
  Status status = sampler.Open();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "nvmlInit failed: the NVIDIA driver is not loaded (DRIVER_NOT_LOADED)");
}

TEST(NvmlFakeApiTest, ADriverThatSupportsNothingGivesNoValues) {
  FakeNvml fake;
  NvmlSampler sampler(fake, EveryPassOptions(""));
  ASSERT_TRUE(sampler.Open().ok());
  ASSERT_EQ(sampler.devices().size(), 1u);  // the GPU answering NO_PERMISSION is left out
  const DeviceInfo& d = sampler.devices()[0];
  EXPECT_EQ(d.name, "");
  EXPECT_EQ(d.memory_bytes, -1);
  EXPECT_FALSE(d.power_limit_w.has_value());
  EXPECT_FALSE(sampler.gpm_supported(0));
  SampleBatch batch;
  sampler.Sample(batch);
  EXPECT_EQ(batch.entities.size(), 1u);
  EXPECT_TRUE(batch.values.empty());  // absent, never zeros
}

TEST(NvmlFakeApiTest, ProcessListsGrowAndGarbageSamplesAreDropped) {
  FakeNvml fake;
  for (unsigned int pid = 100; pid < 140; ++pid)  // more than the first buffer holds
    fake.processes.push_back(nvmlProcessInfo_t{pid, pid * 1000ull, NVML_NO_INSTANCE_ID, NVML_NO_INSTANCE_ID});
  fake.samples = {{100, 5000, 30, 4, 0, 0}, {100, 7000, 35, 5, 0, 0}, {101, 6000, 250, 1, 0, 0}};
  // Process names come from <proc_root>/<pid>/comm.
  std::string proc = kraken::testing::MakeTempDir("fake_proc");
  std::filesystem::create_directories(proc + "/100");
  std::ofstream(proc + "/100/comm") << "python3\n";
  NvmlSampler sampler(fake, EveryPassOptions(proc));
  ASSERT_TRUE(sampler.Open().ok());
  SampleBatch batch;
  sampler.Sample(batch);
  EXPECT_EQ(batch.entities.size(), 41u);
  EXPECT_EQ(CountMetric(batch, Metric::kProcessUsedMemoryBytes), 40u);
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessUsedMemoryBytes, Pick{0, -1, 139}), (std::vector<double>{139000}));
  EXPECT_EQ(batch.entities[1].pid, 100);
  EXPECT_EQ(batch.entities[1].process_name, "python3");
  EXPECT_EQ(batch.entities[2].process_name, "");  // no /proc entry: unknown, not invented
  // The first read answers the driver's whole buffer: pid 100's newest sample stands for
  // now. pid 101's 250 % is garbage: dropped.
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 100}), (std::vector<double>{35}));
  EXPECT_TRUE(ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 101}).empty());
  sampler.Sample(batch);
  EXPECT_EQ(fake.last_seen(), 7000u);  // the next pass asks only for newer samples
  // A later read answers the interval since the previous one: both samples count.
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 100}), (std::vector<double>{32.5}));
}

// A read on the slow cadence answers every sample since the previous read, several per
// pid: each pid's value is their mean, over the samples left once garbage (a value above
// 100 %, SM or memory) and a sample listed twice are left out.
TEST(NvmlFakeApiTest, ProcessUtilizationIsTheMeanOfTheReadsValidSamplesPerPid) {
  FakeNvml fake;
  fake.samples = {{100, 1000, 30, 4, 0, 0},  {200, 1100, 10, 2, 0, 0}, {100, 1200, 50, 8, 0, 0},
                  {100, 1400, 250, 9, 0, 0},  // garbage SM %
                  {200, 1300, 60, 180, 0, 0},  // garbage memory %
                  {100, 1200, 50, 8, 0, 0},    // pid 100's 1200 µs sample again
                  {200, 1500, 20, 6, 0, 0},  {100, 1600, 40, 3, 0, 0}, {300, 1700, 101, 0, 0, 0}};
  const auto later_samples = fake.samples;
  // The first read (lastSeenTimeStamp 0) answers the driver's whole buffer, samples from
  // before kraken started among them: only each pid's newest counts.
  fake.samples = {{100, 400, 10, 1, 0, 0}, {100, 500, 90, 9, 0, 0}, {200, 450, 20, 2, 0, 0}};
  NvmlSampler sampler(fake, EveryPassOptions(""));
  ASSERT_TRUE(sampler.Open().ok());
  SampleBatch batch;
  sampler.Sample(batch);
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 100}), (std::vector<double>{90}));
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 200}), (std::vector<double>{20}));
  EXPECT_EQ(fake.last_seen(), 0u);  // the first read asks for everything the driver keeps
  fake.samples = later_samples;
  sampler.Sample(batch);
  EXPECT_EQ(fake.last_seen(), 500u);  // the next asks for what came after the first
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 100}), (std::vector<double>{40}));  // 30 50 40
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessMemUtilPct, Pick{0, -1, 100}), (std::vector<double>{5}));  // 4 8 3
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 200}), (std::vector<double>{15}));  // 10 20
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessMemUtilPct, Pick{0, -1, 200}), (std::vector<double>{4}));  // 2 6
  // pid 300 has only garbage: no value, and no entity made up for it.
  EXPECT_EQ(CountMetric(batch, Metric::kProcessSmUtilPct), 2u);
  EXPECT_EQ(batch.entities.size(), 3u);  // the GPU, pids 100 and 200
  sampler.Sample(batch);
  EXPECT_EQ(fake.last_seen(), 1700u);  // the newest listed, garbage or not: it was delivered
}

#ifndef KRAKEN_SANITIZE_BUILD
TEST(NvmlFakeApiTest, SteadyStatePassesDoNotAllocate) {
  auto session = testing::OpenReplay(testing::FixturePath("h100x8.nvml"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  SampleBatch batch;
  // The first round of frames sizes every buffer (the load frames have processes).
  for (int i = 0; i < 10; ++i) session->sampler->Sample(batch);
  g_allocations = 0;
  g_counting = true;
  for (int i = 0; i < 10; ++i) session->sampler->Sample(batch);
  g_counting = false;
  EXPECT_EQ(g_allocations.load(), 0);
  EXPECT_EQ(ValuesOf(batch, Metric::kPowerW, Pick{7}), (std::vector<double>{636}));
}

// The agent's per-pod intervals: a pass over some GPUs has neither entities nor values of
// the others, and passes that alternate between two masks allocate nothing once sized
// (entries a shorter pass cuts wait in the sampler's spares).
TEST(NvmlFakeApiTest, APassOverSomeGpusLeavesTheOthersOutWithoutAllocating) {
  auto session = testing::OpenReplay(testing::FixturePath("h100x8.nvml"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  SampleBatch batch;
  const std::vector<uint8_t> all(8, 1);
  std::vector<uint8_t> some(8, 1);
  some[3] = 0;
  some[5] = 0;
  // Two rounds of frames size every buffer: a GPU skipped in the last frame of a round gets
  // that frame's process samples in the next round's first pass (the driver keeps them).
  for (int i = 0; i < 20; ++i) session->sampler->Sample(batch, i % 2 ? std::span<const uint8_t>(some) : all);
  g_allocations = 0;
  g_counting = true;
  for (int i = 0; i < 10; ++i) session->sampler->Sample(batch, i % 2 ? std::span<const uint8_t>(some) : all);
  g_counting = false;
  EXPECT_EQ(g_allocations.load(), 0);
  session->sampler->Sample(batch, some);
  uint32_t gpus = 0;  // bit per GPU with an entity
  for (const SeriesEntity& e : batch.entities) gpus |= 1u << e.gpu_index;
  EXPECT_EQ(gpus, 0b11010111u);  // GPUs 0, 1, 2, 4, 6, 7
  int power = 0;
  for (const SampleBatch::Value& v : batch.values) power += v.metric == Metric::kPowerW;
  EXPECT_EQ(power, 6);
}
#endif

}  // namespace
}  // namespace kraken::nvml
