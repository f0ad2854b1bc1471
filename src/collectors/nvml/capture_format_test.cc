// The capture text format: every committed fixture reads back to the same text, the
// converter regenerates the committed fixtures byte for byte from the real nvidia-smi
// captures, and no malformed input crashes the parser.
#include <gtest/gtest.h>

#include "base/sha256.h"
#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/nvml_test_support.h"
#include "collectors/nvml/smi_capture_converter.h"

namespace kraken::nvml {
namespace {

using testing::FindField;
using testing::FixturePath;

struct Source {
  const char* fixture;
  const char* capture;
  int copies;
};
constexpr Source kSources[] = {
    {"h100.nvml", "capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt", 1},
    {"h100-mig.nvml", "capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt", 1},
    {"h200-mig.nvml", "capture__linux-x86_64__nvidia-h200-mig__590.48.01.txt", 1},
    {"l40s.nvml", "capture__linux-x86_64__nvidia-l40s__595.80.txt", 1},
    {"h100x8.nvml", "capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt", 8},
};

TEST(CaptureFormatTest, FixturesReadBackToTheSameText) {
  for (const Source& s : kSources) {
    std::string text = kraken::testing::ReadFileOrDie(FixturePath(s.fixture));
    Result<Capture> capture = ParseCapture(text);
    ASSERT_TRUE(capture.ok()) << s.fixture << ": " << capture.status().message();
    EXPECT_EQ(WriteCapture(*capture), text) << s.fixture;
    EXPECT_EQ(capture->frames.size(), 10u) << s.fixture;
    EXPECT_EQ(capture->devices.size(), static_cast<size_t>(s.copies)) << s.fixture;
  }
}

TEST(CaptureFormatTest, FixturesAreWhatTheConverterDerivesFromTheRealCaptures) {
  for (const Source& s : kSources) {
    std::string path = kraken::testing::DataPath(std::string("nvidia-smi/") + s.capture);
    SmiConversionOptions options;
    options.copies = s.copies;
    Result<Capture> derived = CaptureFromNvidiaSmi(path, options);
    ASSERT_TRUE(derived.ok()) << s.capture << ": " << derived.status().message();
    EXPECT_EQ(derived->info["source"], "derived-from-nvidia-smi");
    EXPECT_EQ(derived->info["source_file"], s.capture);
    EXPECT_EQ(derived->info["source_sha256"], Sha256Hex(kraken::testing::ReadFileOrDie(path)));
    EXPECT_EQ(WriteCapture(*derived), kraken::testing::ReadFileOrDie(FixturePath(s.fixture))) << s.fixture;
  }
}

TEST(CaptureFormatTest, H100FixtureHoldsTheCapturesNumbers) {
  Result<Capture> c = ParseCapture(kraken::testing::ReadFileOrDie(FixturePath("h100.nvml")));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->info.at("source_sha256"), "a6dca63d968d26aec363a5683b168592daab1fde3d3d0f6d364d4641e9a2d3dd");
  EXPECT_EQ(c->start_unix_us, 1784016758000000u);  // Tue Jul 14 08:12:38 2026 (-q, idle)
  EXPECT_EQ(c->system.cuda_driver_version.value, 13010);
  const DeviceFacts& d = c->devices[0];
  EXPECT_EQ(d.pci.value.device_id, 0x233010DEu);
  EXPECT_EQ(d.nvlinks.size(), 18u);
  EXPECT_FALSE(d.attributes.ok());  // no SM count for a whole GPU in nvidia-smi
  const DeviceFrame& load = c->frames[5].devices[0];
  EXPECT_EQ(load.power_mw.value, 631000u);
  EXPECT_EQ(load.utilization.value, (UtilizationRates{100, 10}));
  EXPECT_EQ(load.memory.value.used, 19818ull << 20);
  EXPECT_EQ(load.processes.value.size(), 3u);
  EXPECT_EQ(load.process_utilization.value, (std::vector<ProcessUtilization>{{11345, 5000000, 99, 10, 0, 0}}));
  EXPECT_FALSE(load.energy_mj.ok());
}

// -q prints "Remapped Rows: Correctable Error 0 ... Pending No" and "Retired Pages: N/A" on
// the H100, and "Remapped Rows: N/A" in MIG mode: the derived frames answer what -q printed
// and leave the rest to NOT_SUPPORTED.
TEST(CaptureFormatTest, HealthFieldsComeFromTheReportsRemappedRowsAndRetiredPages) {
  Result<Capture> h100 = ParseCapture(kraken::testing::ReadFileOrDie(FixturePath("h100.nvml")));
  ASSERT_TRUE(h100.ok());
  for (const Frame& frame : h100->frames) {
    const DeviceFrame& f = frame.devices[0];
    for (uint32_t id : {NVML_FI_DEV_REMAPPED_COR, NVML_FI_DEV_REMAPPED_UNC, NVML_FI_DEV_REMAPPED_PENDING,
                        NVML_FI_DEV_REMAPPED_FAILURE}) {
      const FieldAnswer* a = FindField(f, id);
      ASSERT_NE(a, nullptr) << "field " << id << " at frame " << frame.time_us;
      EXPECT_EQ(a->rc, NVML_SUCCESS);
      EXPECT_EQ(a->value_type, NVML_VALUE_TYPE_UNSIGNED_INT);
      EXPECT_EQ(a->bits, 0u);
    }
    for (uint32_t id : {NVML_FI_DEV_RETIRED_SBE, NVML_FI_DEV_RETIRED_DBE, NVML_FI_DEV_RETIRED_PENDING,
                        NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL})
      EXPECT_EQ(FindField(f, id), nullptr) << "field " << id;
  }
  Result<Capture> mig = ParseCapture(kraken::testing::ReadFileOrDie(FixturePath("h100-mig.nvml")));
  ASSERT_TRUE(mig.ok());
  EXPECT_EQ(FindField(mig->frames[0].devices[0], NVML_FI_DEV_REMAPPED_COR), nullptr);
}

// Every real capture says 0 and No; the same H100 capture with three remapped rows and one
// pending remap shows the counts and the Yes are read, in each phase.
TEST(CaptureFormatTest, HealthFieldsReadCountsAndYes) {
  std::string text = kraken::testing::ReadFileOrDie(
      kraken::testing::DataPath("nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"));
  auto replace_all = [&](const std::string& from, const std::string& to) {
    size_t count = 0;
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()), ++count)
      text.replace(at, from.size(), to);
    return count;
  };
  ASSERT_EQ(replace_all("Correctable Error                              : 0",
                        "Correctable Error                              : 3"),
            2u);  // the idle and the load report
  ASSERT_EQ(replace_all("        Pending                                        : No",
                        "        Pending                                        : Yes"),
            2u);
  Result<Capture> c = CaptureFromNvidiaSmi(testing::WriteTempFile("remapped.txt", text), SmiConversionOptions{});
  ASSERT_TRUE(c.ok()) << c.status().message();
  for (const Frame& frame : c->frames) {
    const FieldAnswer* cor = FindField(frame.devices[0], NVML_FI_DEV_REMAPPED_COR);
    const FieldAnswer* pending = FindField(frame.devices[0], NVML_FI_DEV_REMAPPED_PENDING);
    const FieldAnswer* unc = FindField(frame.devices[0], NVML_FI_DEV_REMAPPED_UNC);
    ASSERT_TRUE(cor != nullptr && pending != nullptr && unc != nullptr);
    EXPECT_EQ(cor->bits, 3u);
    EXPECT_EQ(pending->bits, 1u);
    EXPECT_EQ(unc->bits, 0u);
  }
}

TEST(CaptureFormatTest, ReturnCodesAndDefaults) {
  Result<Capture> c = ParseCapture(
      "# comment\nkraken-nvml-capture 1\n[device 0]\nname = G\npower_limit_mw = !NO_PERMISSION\n"
      "[frame 0]\ntime_us = 5\ngpu0.power_mw = !GPU_IS_LOST\ngpu0.processes = !NO_PERMISSION\n"
      "gpu0.field.82 = !NOT_SUPPORTED\ngpu0.field.139.4294967295 = double 1.5\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->devices[0].power_limit_mw.rc, NVML_ERROR_NO_PERMISSION);
  EXPECT_EQ(c->devices[0].max_sm_clock_mhz.rc, NVML_ERROR_NOT_SUPPORTED);  // not mentioned
  const DeviceFrame& f = c->frames[0].devices[0];
  EXPECT_EQ(f.power_mw.rc, NVML_ERROR_GPU_IS_LOST);
  EXPECT_EQ(f.processes.rc, NVML_ERROR_NO_PERMISSION);
  EXPECT_EQ(f.process_utilization.rc, NVML_ERROR_NOT_FOUND);  // no samples: "nothing new"
  EXPECT_EQ(f.gpm.rc, NVML_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(f.fields.size(), 2u);
  EXPECT_EQ(f.fields[1].scope_id, NVML_NVLINK_SCOPE_ALL_LINKS);
  EXPECT_EQ(FieldNumber(f.fields[1]), 1.5);
  // Written back, the NOT_SUPPORTED field is left out like every default answer.
  std::string text = WriteCapture(*c);
  EXPECT_EQ(text.find("field.82"), std::string::npos);
  Result<Capture> again = ParseCapture(text);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(WriteCapture(*again), text);
  EXPECT_EQ(again->devices, c->devices);
}

TEST(CaptureFormatTest, CpuLists) {
  std::vector<uint32_t> cpus;
  ASSERT_TRUE(ParseCpuList("0-3,8,10-11", cpus));
  EXPECT_EQ(cpus, (std::vector<uint32_t>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(FormatCpuList(cpus), "0-3,8,10-11");
  for (const char* bad : {"3-1", "1,1", "a", "1,", "-", "0-99999999"}) EXPECT_FALSE(ParseCpuList(bad, cpus)) << bad;
}

TEST(CaptureFormatTest, TruncatedAndCorruptedInputsNeverCrash) {
  std::string text = kraken::testing::ReadFileOrDie(FixturePath("h100-mig.nvml"));
  int accepted = 0, refused = 0;
  for (size_t cut = 0; cut < text.size(); cut += 37) {
    Result<Capture> c = ParseCapture(std::string_view(text).substr(0, cut));
    (c.ok() ? accepted : refused)++;
  }
  // Deterministic byte corruption: every 13th byte replaced by a character from a small set.
  const char kNoise[] = {'!', '=', '[', ']', '\n', '9', '-', ' ', '.', '\0'};
  for (size_t i = 0; i < 400; ++i) {
    std::string bad = text;
    bad[(i * 7919) % bad.size()] = kNoise[i % sizeof(kNoise)];
    Result<Capture> c = ParseCapture(bad);
    (c.ok() ? accepted : refused)++;
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(accepted, 0);
}

// Driver text the format cannot carry (a return code's '!', a line break, space around it,
// nothing at all) is left out, so a recorded capture always reads back; the rest is kept.
TEST(CaptureFormatTest, TextTheFormatCannotCarryIsLeftOut) {
  for (std::string_view odd : {"", "!NO_PERMISSION", "two\nlines", " padded", "padded\t", "cr\r"})
    EXPECT_FALSE(CarriesText(odd)) << odd;
  for (std::string_view fine : {"NVIDIA H100 80GB HBM3", "a!b", "x = y", "#1"}) EXPECT_TRUE(CarriesText(fine)) << fine;

  Result<Capture> c = ParseCapture(kraken::testing::ReadFileOrDie(FixturePath("h100.nvml")));
  ASSERT_TRUE(c.ok());
  c->devices[0].name.Set("!NO_PERMISSION");
  c->devices[0].uuid.Set("GPU-1\n[device 1]");
  c->system.driver_version.Set(" 590.48.01");
  c->system.nvml_version.Set("13.590.48.01");
  c->info["host"] = "node\nstart_unix_us = 0";
  const std::string text = WriteCapture(*c);
  Result<Capture> again = ParseCapture(text);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->devices[0].name.rc, NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(again->devices[0].uuid.rc, NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(again->system.driver_version.rc, NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(again->system.nvml_version.value, "13.590.48.01");
  EXPECT_EQ(again->info.count("host"), 0u);
  EXPECT_EQ(again->start_unix_us, c->start_unix_us);
  EXPECT_EQ(again->devices.size(), 1u);
  EXPECT_EQ(WriteCapture(*again), text);
}

// A frame recorded on the slow cadence says that it did not read process utilization; it
// reads back so, and such a frame with samples or a code is refused with its line.
TEST(CaptureFormatTest, FramesThatDidNotReadProcessUtilization) {
  const std::string head = "kraken-nvml-capture 1\n[device 0]\nname = G\n[frame 0]\ntime_us = 0\n";
  Result<Capture> c = ParseCapture(head + "gpu0.process_utilization_read = 0\n[frame 1]\ntime_us = 5\n"
                                          "gpu0.process_sample = 7 5 40 3 0 0\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c->frames[0].devices[0].process_utilization_read);
  EXPECT_TRUE(c->frames[1].devices[0].process_utilization_read);  // the key is absent: read
  EXPECT_EQ(c->frames[1].devices[0].process_utilization.rc, NVML_SUCCESS);
  std::string text = WriteCapture(*c);
  EXPECT_NE(text.find("gpu0.process_utilization_read = 0\n"), std::string::npos);
  EXPECT_EQ(text.find("process_utilization_read = 1"), std::string::npos);  // the default is not written
  Result<Capture> again = ParseCapture(text);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(WriteCapture(*again), text);

  for (const char* bad : {"gpu0.process_utilization_read = 0\ngpu0.process_sample = 7 0 40 3 0 0\n",
                          "gpu0.process_utilization_read = 0\ngpu0.process_utilization = !NOT_SUPPORTED\n",
                          "gpu0.process_utilization_read = 2\n"}) {
    Result<Capture> refused = ParseCapture(head + bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidInput) << bad;
    EXPECT_NE(refused.status().message().find("process_utilization"), std::string::npos)
        << refused.status().message();
  }
}

}  // namespace
}  // namespace kraken::nvml
