// The slow cadence (NvmlSamplerOptions::slow_interval_us): energy, PCIe throughput,
// process utilization and the health fields are asked once per slow interval and appear
// only in the passes that asked them, with their own sources; every other metric is read
// every pass. Counted on a fake NvmlApi, and seen end to end on the replay library.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>

#include "base/testing/built_files.h"
#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/nvml_recorder.h"
#include "collectors/nvml/nvml_test_support.h"

namespace kraken::nvml {
namespace {

using testing::CountMetric;
using testing::FixturePath;
using testing::Pick;
using testing::ValuesOf;

// Two GPUs that answer utilization, energy, PCIe and process utilization, counting calls.
class CountingNvml : public NvmlApi {
 public:
  std::map<std::string, std::array<int, 2>> calls;  // by call, per GPU

  nvmlReturn_t Init() override { return NVML_SUCCESS; }
  nvmlReturn_t Shutdown() override { return NVML_SUCCESS; }
  nvmlReturn_t DeviceGetCount(unsigned int* n) override {
    *n = 2;
    return NVML_SUCCESS;
  }
  nvmlReturn_t DeviceGetHandleByIndex(unsigned int i, nvmlDevice_t* d) override {
    *d = reinterpret_cast<nvmlDevice_t>(&handles_[i]);
    return NVML_SUCCESS;
  }
  nvmlReturn_t DeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) override {
    Count("utilization", d);
    *u = nvmlUtilization_t{50, 10};
    return NVML_SUCCESS;
  }
  nvmlReturn_t DeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long* mj) override {
    *mj = 1000u * static_cast<unsigned>(Count("energy", d));
    return NVML_SUCCESS;
  }
  nvmlReturn_t DeviceGetPcieThroughput(nvmlDevice_t d, int counter, unsigned int* kbps) override {
    Count(counter == NVML_PCIE_UTIL_TX_BYTES ? "pcie_tx" : "pcie_rx", d);
    *kbps = counter == NVML_PCIE_UTIL_TX_BYTES ? 200 : 300;
    return NVML_SUCCESS;
  }
  nvmlReturn_t DeviceGetProcessUtilization(nvmlDevice_t d, nvmlProcessUtilizationSample_t* s, unsigned int* n,
                                           unsigned long long last_seen) override {
    int call = Count("process_utilization", d);
    unsigned long long when = 1000u * static_cast<unsigned>(call);
    if (when <= last_seen) return NVML_ERROR_NOT_FOUND;
    if (*n < 1) {
      *n = 1;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    s[0] = nvmlProcessUtilizationSample_t{4242, when, 70, 20, 0, 0};
    *n = 1;
    return NVML_SUCCESS;
  }
  // The per-pass fields and the health fields come in separate calls; every field answers.
  nvmlReturn_t DeviceGetFieldValues(nvmlDevice_t d, int n, nvmlFieldValue_t* values) override {
    bool health = n > 0 && values[0].fieldId == kHealthFieldRequests[0].field_id;
    Count(health ? "health_fields" : "fields", d);
    for (int i = 0; i < n; ++i) {
      values[i].nvmlReturn = NVML_SUCCESS;
      values[i].valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
      values[i].value.ullVal = 1;
    }
    return NVML_SUCCESS;
  }

 private:
  int Count(const std::string& name, nvmlDevice_t d) {
    size_t gpu = reinterpret_cast<int*>(d) == &handles_[0] ? 0 : 1;
    return ++calls[name][gpu];
  }
  int handles_[2] = {0, 1};
};

// A sampler on `api` whose clock the test moves.
struct SteppedSampler {
  int64_t now_us = 5'000'000;
  NvmlSampler sampler;
  SteppedSampler(NvmlApi& api, int64_t slow_interval_us)
      : sampler(api, NvmlSamplerOptions{"", slow_interval_us, [this] { return now_us; }}) {}
};

TEST(NvmlCadenceTest, SlowCallsAreMadeOncePerSlowInterval) {
  CountingNvml api;
  SteppedSampler s(api, 1'000'000);
  ASSERT_TRUE(s.sampler.Open().ok());
  SampleBatch batch;
  std::array<std::vector<int>, 2> slow_passes;  // per GPU
  for (int pass = 0; pass < 30; ++pass) {  // 3 s at 100 ms
    s.sampler.Sample(batch);
    EXPECT_EQ(ValuesOf(batch, Metric::kGpuUtilPct, Pick{1}), (std::vector<double>{50})) << pass;
    bool any = false;
    for (int32_t gpu = 0; gpu < 2; ++gpu) {
      bool energy = !ValuesOf(batch, Metric::kEnergyMj, Pick{gpu}).empty();
      EXPECT_EQ(ValuesOf(batch, Metric::kPcieTxBytesPerS, Pick{gpu}).size(), energy ? 1u : 0u) << pass;
      EXPECT_EQ(ValuesOf(batch, Metric::kRemappedRowsPending, Pick{gpu}).size(), energy ? 1u : 0u) << pass;
      EXPECT_EQ(ValuesOf(batch, Metric::kEccCorrectedVolatileCount, Pick{gpu}).size(), 1u) << pass;
      // A new sample every call, and a call with the slow ones only.
      EXPECT_EQ(ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{gpu, -1, 4242}).size(), energy ? 1u : 0u) << pass;
      if (energy) slow_passes[static_cast<size_t>(gpu)].push_back(pass);
      any = any || energy;
    }
    EXPECT_EQ(any, s.sampler.last_pass_was_slow()) << pass;
    EXPECT_GE(s.sampler.last_pass_duration_us(), 0);
    s.now_us += 100'000;
  }
  // Both in the first pass; then GPU 1 half an interval after GPU 0, not in the same pass.
  EXPECT_EQ(slow_passes[0], (std::vector<int>{0, 10, 20}));
  EXPECT_EQ(slow_passes[1], (std::vector<int>{0, 15, 25}));
  for (const char* call : {"energy", "pcie_tx", "pcie_rx", "process_utilization", "health_fields"})
    EXPECT_EQ(api.calls[call], (std::array<int, 2>{3, 3})) << call;
  EXPECT_EQ(api.calls["utilization"], (std::array<int, 2>{30, 30}));
  EXPECT_EQ(api.calls["fields"], (std::array<int, 2>{30, 30}));
}

TEST(NvmlCadenceTest, SlowValuesKeepTheirSources) {
  CountingNvml api;
  SteppedSampler s(api, 1'000'000);
  ASSERT_TRUE(s.sampler.Open().ok());
  SampleBatch batch;
  s.sampler.Sample(batch);
  std::map<Metric, std::string> sources;
  for (const SampleBatch::Value& v : batch.values)
    if (batch.entities[static_cast<size_t>(v.entity)].gpu_index == 0) sources[v.metric] = v.source_name;
  EXPECT_EQ(sources[Metric::kEnergyMj], "nvmlDeviceGetTotalEnergyConsumption");
  EXPECT_EQ(sources[Metric::kPcieTxBytesPerS], "nvmlDeviceGetPcieThroughput.tx");
  EXPECT_EQ(sources[Metric::kPcieRxBytesPerS], "nvmlDeviceGetPcieThroughput.rx");
  EXPECT_EQ(sources[Metric::kProcessSmUtilPct], "nvmlDeviceGetProcessUtilization.sm");
  EXPECT_EQ(ValuesOf(batch, Metric::kPcieRxBytesPerS), (std::vector<double>{300e3}));
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 4242}), (std::vector<double>{70}));
}

TEST(NvmlCadenceTest, ZeroReadsEverythingEveryPass) {
  CountingNvml api;
  SteppedSampler s(api, 0);
  ASSERT_TRUE(s.sampler.Open().ok());
  SampleBatch batch;
  for (int pass = 0; pass < 4; ++pass) {
    s.sampler.Sample(batch);
    EXPECT_EQ(CountMetric(batch, Metric::kEnergyMj), 2u);
    EXPECT_EQ(CountMetric(batch, Metric::kProcessSmUtilPct), 2u);
  }
  EXPECT_EQ(api.calls["pcie_tx"], (std::array<int, 2>{4, 4}));
  EXPECT_EQ(api.calls["process_utilization"], (std::array<int, 2>{4, 4}));
}

// The agent samples some GPUs only (per-pod intervals): each GPU keeps its own cadence, and
// one skipped past its slow time reads the slow calls when it is next sampled.
TEST(NvmlCadenceTest, EachGpuKeepsItsOwnCadence) {
  CountingNvml api;
  SteppedSampler s(api, 1'000'000);
  ASSERT_TRUE(s.sampler.Open().ok());
  SampleBatch batch;
  const uint8_t only_first[] = {1, 0};
  // GPU 1 only in passes 0 and 16: past its slow time (1.5 s: 1 s plus its half-interval
  // offset), so pass 16 reads them.
  for (int pass = 0; pass < 17; ++pass) {
    if (pass == 0 || pass == 16) {
      s.sampler.Sample(batch);
    } else {
      s.sampler.Sample(batch, only_first);
    }
    s.now_us += 100'000;
  }
  EXPECT_EQ(api.calls["energy"], (std::array<int, 2>{2, 2}));
  EXPECT_EQ(api.calls["utilization"], (std::array<int, 2>{17, 2}));
}

// End to end on the replay: the cheap metrics every pass, PCIe and process utilization
// from the slow passes only, with the capture's values of those frames.
TEST(NvmlCadenceTest, ReplayShowsSlowValuesOnlyInSlowPasses) {
  ::setenv("KRAKEN_NVML_REPLAY", FixturePath("h100.nvml").c_str(), 1);
  int64_t now_us = 0;
  NvmlSamplerOptions options{"", 1'000'000, [&now_us] { return now_us; }};
  auto session = OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  SampleBatch batch;
  std::vector<double> rx, util, process_sm;
  for (int pass = 0; pass < 10; ++pass) {  // the capture's 10 frames, 4 passes per slow interval
    session->sampler->Sample(batch);
    auto v = ValuesOf(batch, Metric::kPcieRxBytesPerS);
    rx.push_back(v.empty() ? -1 : v[0]);
    util.push_back(static_cast<double>(ValuesOf(batch, Metric::kGpuUtilPct).size()));
    auto p = ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 11345});
    process_sm.push_back(p.empty() ? -1 : p[0]);
    now_us += 250'000;
  }
  EXPECT_EQ(rx, (std::vector<double>{329e3, -1, -1, -1, 329e3, -1, -1, -1, 6346e3, -1}));
  EXPECT_EQ(util, std::vector<double>(10, 1));
  // The capture has a sample in frames 5-9, each 99 %: the slow pass 8 has the mean of 5-8.
  EXPECT_EQ(process_sm, (std::vector<double>{-1, -1, -1, -1, -1, -1, -1, -1, 99, -1}));
}

// record-nvml: frames between slow reads hold energy and PCIe and say that they did not
// read process utilization; the stats count the frames that made the slow reads.
TEST(NvmlCadenceTest, RecorderReadsSlowCallsAtTheSlowInterval) {
  CountingNvml api;
  RecordOptions options;
  options.frames = 12;
  options.interval_us = 100'000;
  options.slow_interval_us = 500'000;
  options.sleep = [](int64_t) {};
  RecordStats stats;
  auto capture = RecordCapture(api, options, &stats);
  ASSERT_TRUE(capture.ok()) << capture.status().message();
  EXPECT_EQ(stats.frames, 12);
  // Without real sleeps every frame falls at ~0 µs: only the first is due.
  EXPECT_EQ(stats.slow_frames, 1);
  EXPECT_EQ(api.calls["energy"], (std::array<int, 2>{1, 1}));
  EXPECT_GE(stats.max_read_us, stats.median_read_us);
  const DeviceFrame& last = capture->frames.back().devices[0];
  EXPECT_EQ(last.energy_mj.value, 1000u);  // held from frame 0
  EXPECT_EQ(last.pcie_tx_kbps.value, 200u);
  EXPECT_FALSE(last.process_utilization_read);
  EXPECT_TRUE(last.process_utilization.value.empty());
  EXPECT_TRUE(capture->frames.front().devices[0].process_utilization_read);
  EXPECT_EQ(capture->frames.front().devices[0].process_utilization.value.size(), 1u);
  EXPECT_EQ(api.calls["process_utilization"], (std::array<int, 2>{1, 1}));
  // The capture keeps which frames read them.
  auto parsed = ParseCapture(WriteCapture(*capture));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->frames.size(), capture->frames.size());
  for (size_t i = 0; i < parsed->frames.size(); ++i)
    for (size_t d = 0; d < 2; ++d) {
      const DeviceFrame& was = capture->frames[i].devices[d];
      const DeviceFrame& is = parsed->frames[i].devices[d];
      EXPECT_EQ(is.process_utilization_read, was.process_utilization_read) << i;
      EXPECT_EQ(is.process_utilization, was.process_utilization) << i;
    }
}

}  // namespace
}  // namespace kraken::nvml
