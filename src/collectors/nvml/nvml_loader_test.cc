// The loader and the replay library's contracts: versioned-symbol fallback (the legacy
// replay build exports only unversioned names), struct-version fallback at run time, the
// "libnvidia-ml not found" message, malformed captures, and the metrics only some GPUs
// have (GPM on Hopper, XID events, NVLink counters) on small inline captures.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "base/testing/built_files.h"
#include "collectors/nvml/nvml_test_support.h"

namespace kraken::nvml {
namespace {

using testing::kMiB;

using testing::CountMetric;
using testing::FixturePath;
using testing::OpenReplay;
using testing::Pick;
using testing::Series;
using testing::ValuesOf;
using testing::WriteTempFile;

std::string Fixture(const std::string& name) { return kraken::testing::ReadFileOrDie(FixturePath(name)); }

// The fixture with `line` added to its [capture] section.
std::string WithCaptureLine(const std::string& text, const std::string& line) {
  std::string out = text;
  size_t at = out.find("[capture]\n");
  out.insert(at + 10, line + "\n");
  return out;
}

TEST(NvmlLoaderTest, ResolvesTheNewestVersionedSymbols) {
  auto library = NvmlLibrary::Load(KRAKEN_NVML_REPLAY_LIBRARY);
  ASSERT_TRUE(library.ok()) << library.status().message();
  EXPECT_EQ((*library)->ResolvedSymbol("Init"), "nvmlInit_v2");
  EXPECT_EQ((*library)->ResolvedSymbol("DeviceGetCount"), "nvmlDeviceGetCount_v2");
  EXPECT_EQ((*library)->ResolvedSymbol("DeviceGetPciInfo"), "nvmlDeviceGetPciInfo_v3");
  EXPECT_EQ((*library)->ResolvedSymbol("DeviceGetComputeRunningProcesses"), "nvmlDeviceGetComputeRunningProcesses_v3");
  EXPECT_EQ((*library)->ResolvedSymbol("DeviceGetMemoryInfoV2"), "nvmlDeviceGetMemoryInfo_v2");
  EXPECT_EQ((*library)->ResolvedSymbol("GpmMetricsGet"), "nvmlGpmMetricsGet");
  EXPECT_TRUE((*library)->is_replay());  // so process names are not looked up in this /proc
}

TEST(NvmlLoaderTest, FallsBackToUnversionedSymbolsOfAnOldDriver) {
  auto library = NvmlLibrary::Load(KRAKEN_NVML_REPLAY_LEGACY_LIBRARY);
  ASSERT_TRUE(library.ok()) << library.status().message();
  EXPECT_EQ((*library)->ResolvedSymbol("Init"), "nvmlInit");
  EXPECT_EQ((*library)->ResolvedSymbol("DeviceGetCount"), "nvmlDeviceGetCount");
  EXPECT_EQ((*library)->ResolvedSymbol("DeviceGetHandleByIndex"), "nvmlDeviceGetHandleByIndex");
  EXPECT_EQ((*library)->ResolvedSymbol("DeviceGetPciInfo"), "nvmlDeviceGetPciInfo");
  EXPECT_EQ((*library)->ResolvedSymbol("DeviceGetComputeRunningProcesses"), "nvmlDeviceGetComputeRunningProcesses");
  EXPECT_EQ((*library)->ResolvedSymbol("DeviceGetMemoryInfoV2"), "");  // optional: kept NULL
  EXPECT_EQ((*library)->ResolvedSymbol("DeviceGetTemperatureV"), "");
  EXPECT_EQ((*library)->ResolvedSymbol("GpmQueryDeviceSupport"), "");
  library = InvalidInput("closed");

  // The same values through the old entry points: the v1 PCI call (legacy bus id), the v1
  // process list (16-byte entries), v1 memory (whose "used" includes the reserved memory).
  auto session = OpenReplay(FixturePath("h100.nvml"), /*legacy=*/true);
  ASSERT_TRUE(session.ok()) << session.status().message();
  const DeviceInfo& d = session->sampler->devices()[0];
  EXPECT_EQ(d.pci_bus_id, "00000000:00:09.0");
  EXPECT_FALSE(session->sampler->gpm_supported(0));  // no GPM symbols: not an error, just absent
  SampleBatch batch;
  for (int i = 0; i < 6; ++i) session->sampler->Sample(batch);
  EXPECT_EQ(ValuesOf(batch, Metric::kFbUsedBytes), (std::vector<double>{(19818 + 479) * kMiB}));
  EXPECT_EQ(CountMetric(batch, Metric::kFbReservedBytes), 0u);
  EXPECT_EQ(ValuesOf(batch, Metric::kGpuTempC), (std::vector<double>{63}));
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessUsedMemoryBytes, Pick{0, -1, 11345}), (std::vector<double>{15690 * kMiB}));
  EXPECT_EQ(ValuesOf(batch, Metric::kPowerW), (std::vector<double>{631}));
}

TEST(NvmlLoaderTest, StructVersionMismatchFallsBackAtRunTime) {
  // A driver that exports nvmlDeviceGetMemoryInfo_v2 but rejects the v2 struct.
  std::string path = WriteTempFile(
      "mismatch.nvml", WithCaptureLine(Fixture("h100.nvml"), "version_mismatch = nvmlDeviceGetMemoryInfo_v2"));
  auto session = OpenReplay(path);
  ASSERT_TRUE(session.ok()) << session.status().message();
  EXPECT_EQ(session->sampler->devices()[0].memory_bytes, static_cast<int64_t>(81559 * kMiB));
  SampleBatch batch;
  for (int i = 0; i < 6; ++i) session->sampler->Sample(batch);
  EXPECT_EQ(ValuesOf(batch, Metric::kFbUsedBytes), (std::vector<double>{(19818 + 479) * kMiB}));
  EXPECT_EQ(CountMetric(batch, Metric::kFbReservedBytes), 0u);
}

TEST(NvmlLoaderTest, MissingLibraryIsAOneLineNotFound) {
  auto explicit_path = NvmlLibrary::Load("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(explicit_path.ok());
  EXPECT_EQ(explicit_path.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(explicit_path.status().message().rfind("cannot load the NVML library /nonexistent/libnvidia-ml.so.1 (", 0), 0u)
      << explicit_path.status().message();
  // The default names: only meaningful where no driver is installed (CI, this project's
  // build machines); a GPU machine has one.
  void* driver = ::dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_NOLOAD);
  void* any = driver != nullptr ? driver : ::dlopen("libnvidia-ml.so.1", RTLD_LAZY);
  if (any != nullptr) {
    ::dlclose(any);
    GTEST_SKIP() << "an NVIDIA driver is installed here";
  }
  ::unsetenv(kNvmlLibraryEnv);
  auto by_default = NvmlLibrary::Load();
  ASSERT_FALSE(by_default.ok());
  EXPECT_EQ(by_default.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(by_default.status().message(),
            "libnvidia-ml.so.1 was not found: no NVIDIA driver on this machine? Point kraken at the library with "
            "--nvml-library PATH or KRAKEN_NVML_LIBRARY=PATH");
  ::setenv(kNvmlLibraryEnv, KRAKEN_NVML_REPLAY_LIBRARY, 1);
  auto by_env = NvmlLibrary::Load();
  ::unsetenv(kNvmlLibraryEnv);
  ASSERT_TRUE(by_env.ok());
  EXPECT_EQ((*by_env)->path(), KRAKEN_NVML_REPLAY_LIBRARY);
}

TEST(NvmlLoaderTest, ALibraryWithoutNvmlIsRefused) {
  auto library = NvmlLibrary::Load("libz.so.1");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().message(), "libz.so.1 is not an NVML library: it lacks nvmlInit_v2");
}

TEST(NvmlLoaderTest, MalformedCapturesFailInitWithTheirLine) {
  std::string good = Fixture("h100.nvml");
  struct Case {
    std::string text;
    std::string message;
  };
  std::string power = "gpu0.power_mw = 69000";
  std::vector<Case> cases = {
      {"", "not an NVML capture"},
      {"kraken-nvml-capture 2\n", "capture format version 2 is not supported"},
      {WithCaptureLine(good, "[bogus]"), "unknown section [bogus]"},
      {good.substr(0, good.find("[frame 0]")), "no [frame] section"},
      {std::string(good).replace(good.find(power), power.size(), "gpu0.power_mw = lots"), "bad value 'lots'"},
      {std::string(good).replace(good.find(power), power.size(), "gpu0.powr_mw = 69000"), "unknown key 'gpu0.powr_mw'"},
      {std::string(good).replace(good.find(power), power.size(), "gpu7.power_mw = 1"), "gpu7 is not a declared device"},
      {std::string(good).replace(good.find(power), power.size(), "gpu0.power_mw = !MAYBE"),
       "unknown NVML return code '!MAYBE'"},
      {std::string(good).replace(good.find("[frame 1]"), 9, "[frame 7]"), "[frame 7] out of order"},
  };
  for (const Case& c : cases) {
    auto session = OpenReplay(WriteTempFile("bad.nvml", c.text));
    ASSERT_FALSE(session.ok()) << c.message;
    EXPECT_EQ(session.status().code(), StatusCode::kInvalidInput) << session.status().message();
    EXPECT_NE(session.status().message().find("nvmlInit failed: an unknown driver error (UNKNOWN): "), std::string::npos)
        << session.status().message();
    EXPECT_NE(session.status().message().find(c.message), std::string::npos) << session.status().message();
  }
  ::unsetenv("KRAKEN_NVML_REPLAY");
  auto unset = OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY);
  ASSERT_FALSE(unset.ok());
  EXPECT_EQ(unset.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unset.status().message().find("KRAKEN_NVML_REPLAY is not set"), std::string::npos);
}

// A minimal Hopper capture: one GPU, GPM values in frames 1 and 2, an XID in frame 1, and
// NVLink byte counters that grow by 1 GiB and 2 GiB per 100 ms frame.
std::string SyntheticCapture(int gpm_supported) {
  std::string text = "kraken-nvml-capture 1\n[capture]\nstart_unix_us = 0\ninterval_us = 100000\n[device 0]\n"
                     "name = Test GPU\nuuid = GPU-test\narchitecture = 9\ngpm_supported = " +
                     std::to_string(gpm_supported) + "\n";
  for (int f = 0; f < 3; ++f) {
    text += "[frame " + std::to_string(f) + "]\ntime_us = " + std::to_string(f * 100000) + "\n";
    text += "gpu0.utilization = 50 20\n";
    text += "gpu0.field.138.4294967295 = ullong " + std::to_string(1048576 * (f + 1)) + "\n";
    text += "gpu0.field.139.4294967295 = ullong " + std::to_string(2097152 * (f + 1)) + "\n";
    if (f == 1) text += "gpu0.xid = 79\n";
    if (f > 0) text += "gpu0.gpm.2 = 87.5\ngpu0.gpm.5 = 42\ngpu0.gpm.10 = 61.25\ngpu0.gpm.12 = !NOT_SUPPORTED\n";
  }
  return text;
}

TEST(NvmlLoaderTest, GpmOnlyWhereTheGpuSupportsIt) {
  auto hopper = OpenReplay(WriteTempFile("hopper.nvml", SyntheticCapture(1)));
  ASSERT_TRUE(hopper.ok()) << hopper.status().message();
  // Pass 1 takes the first GPM sample; from pass 2 on each pass compares with the previous.
  EXPECT_EQ(Series(*hopper->sampler, Metric::kSmActiveRatio, 4), (std::vector<double>{-1, 0.875, 0.875, -1}));
  hopper = InvalidInput("closed");
  auto again = OpenReplay(WriteTempFile("hopper.nvml", SyntheticCapture(1)));
  ASSERT_TRUE(again.ok());
  SampleBatch batch;
  again->sampler->Sample(batch);
  again->sampler->Sample(batch);
  EXPECT_EQ(ValuesOf(batch, Metric::kTensorActiveRatio), (std::vector<double>{0.42}));
  EXPECT_EQ(ValuesOf(batch, Metric::kDramActiveRatio), (std::vector<double>{0.6125}));
  EXPECT_EQ(CountMetric(batch, Metric::kFp32ActiveRatio), 0u);  // that metric answered NOT_SUPPORTED
  again = InvalidInput("closed");
  // The same values on a GPU without GPM support are never asked for.
  auto older = OpenReplay(WriteTempFile("ampere.nvml", SyntheticCapture(0)));
  ASSERT_TRUE(older.ok());
  EXPECT_EQ(Series(*older->sampler, Metric::kSmActiveRatio, 3), (std::vector<double>{-1, -1, -1}));
}

TEST(NvmlLoaderTest, XidEventsAndNvlinkRates) {
  auto session = OpenReplay(WriteTempFile("events.nvml", SyntheticCapture(1)));
  ASSERT_TRUE(session.ok()) << session.status().message();
  // The XID arrives in pass 2 and stays the last one seen.
  EXPECT_EQ(Series(*session->sampler, Metric::kXidLast, 4), (std::vector<double>{-1, 79, 79, 79}));
  session = InvalidInput("closed");
  // 1 Mi KiB = 1 GiB more per 100 ms of replay time: 10 GiB/s TX, 20 GiB/s RX. None on the
  // first pass, and none when the counters fall back as the replay wraps to frame 0.
  constexpr double kGiB = 1024.0 * kMiB;
  auto tx = OpenReplay(WriteTempFile("nvlink.nvml", SyntheticCapture(1)));
  ASSERT_TRUE(tx.ok());
  EXPECT_EQ(Series(*tx->sampler, Metric::kNvlinkTxBytesPerS, 5), (std::vector<double>{-1, 10 * kGiB, 10 * kGiB, -1, 10 * kGiB}));
  tx = InvalidInput("closed");
  auto rx = OpenReplay(WriteTempFile("nvlink.nvml", SyntheticCapture(1)));
  ASSERT_TRUE(rx.ok());
  EXPECT_EQ(Series(*rx->sampler, Metric::kNvlinkRxBytesPerS, 3), (std::vector<double>{-1, 20 * kGiB, 20 * kGiB}));
}

}  // namespace
}  // namespace kraken::nvml
