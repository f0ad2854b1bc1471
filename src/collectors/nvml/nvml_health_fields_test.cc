// The GPU health counters (remapped rows, retired pages, NVLink error totals): asked in one
// extra nvmlDeviceGetFieldValues call on the slow cadence, turned into series only in the
// passes that asked, absent where NVML answers NOT_SUPPORTED, and kept by record-nvml so
// that a replay of the recording answers the same. The real H100 capture has none of these
// fields (nvml_h100_node_capture_test.cc): they replay as NOT_SUPPORTED there; the fixtures
// derived from nvidia-smi captures answer the remapped rows and retired pages -q printed.
#include <gtest/gtest.h>

#include <string>

#include "base/testing/built_files.h"
#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/nvml_health_fields.h"
#include "collectors/nvml/nvml_recorder.h"
#include "collectors/nvml/nvml_test_support.h"

namespace kraken::nvml {
namespace {

using testing::CountMetric;
using testing::Pick;
using testing::ValuesOf;
using testing::WriteTempFile;

constexpr int kHealthFrames = 5;

// An Ampere-like GPU over 5 frames, 100 ms apart: remapped rows answered (the correctable
// count is 10 + frame, so a value tells which frame it was read from; a remap pending),
// retired pages NOT_SUPPORTED (written out for one field, left out for the others: both
// mean the same), NVLink error totals over all links answered except recovery.
std::string HealthCapture() {
  std::string text = "kraken-nvml-capture 1\n[capture]\nstart_unix_us = 0\ninterval_us = 100000\n[device 0]\n"
                     "name = Test GPU\nuuid = GPU-health\narchitecture = 7\n";
  for (int f = 0; f < kHealthFrames; ++f) {
    text += "[frame " + std::to_string(f) + "]\ntime_us = " + std::to_string(f * 100000) + "\n";
    text += "gpu0.utilization = 50 20\n";
    text += "gpu0.field.3 = ullong 2\n";
    text += "gpu0.field.29 = !NOT_SUPPORTED\n";
    text += "gpu0.field.38.4294967295 = ullong 7\n";
    text += "gpu0.field.45.4294967295 = ullong 0\n";
    text += "gpu0.field.52.4294967295 = ullong 12\n";
    text += "gpu0.field.59.4294967295 = !NOT_SUPPORTED\n";
    text += "gpu0.field.142 = uint " + std::to_string(10 + f) + "\n";
    text += "gpu0.field.143 = uint 1\n";
    text += "gpu0.field.144 = uint 1\n";
    text += "gpu0.field.145 = uint 0\n";
  }
  return text;
}

// The sampler on the replay of HealthCapture(), with a clock the test moves.
struct HealthReplay {
  int64_t now_us = 0;
  Result<NvmlSession> session = InvalidInput("not opened");
  explicit HealthReplay(int64_t slow_interval_us) {
    ::setenv("KRAKEN_NVML_REPLAY", WriteTempFile("health.nvml", HealthCapture()).c_str(), 1);
    session = OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY,
                              NvmlSamplerOptions{"", slow_interval_us, [this] { return now_us; }});
  }
};

TEST(NvmlHealthFieldsTest, EveryHealthRequestHasACanonicalMetric) {
  for (const FieldRequest& request : kHealthFieldRequests) {
    const HealthFieldMetric* health = FindHealthFieldMetric(request.field_id);
    ASSERT_NE(health, nullptr) << request.field_id;
    EXPECT_NE(health->metric, Metric::kOther);
    for (const FieldRequest& every_pass : kFieldRequests) EXPECT_NE(every_pass.field_id, request.field_id);
  }
  EXPECT_EQ(FindHealthFieldMetric(NVML_FI_DEV_ECC_SBE_VOL_TOTAL), nullptr);
}

TEST(NvmlHealthFieldsTest, SeriesComeFromTheSlowPassesOnly) {
  HealthReplay replay(1'000'000);
  ASSERT_TRUE(replay.session.ok()) << replay.session.status().message();
  SampleBatch batch;
  std::vector<double> correctable, ecc;
  for (int pass = 0; pass < 8; ++pass) {  // 250 ms apart: passes 0 and 4 are slow
    replay.session->sampler->Sample(batch);
    auto v = ValuesOf(batch, Metric::kRemappedRowsCorrectableCount);
    correctable.push_back(v.empty() ? -1 : v[0]);
    ecc.push_back(static_cast<double>(ValuesOf(batch, Metric::kEccCorrectedVolatileCount).size()));
    if (pass == 4) {
      EXPECT_EQ(ValuesOf(batch, Metric::kRemappedRowsUncorrectableCount), (std::vector<double>{1}));
      EXPECT_EQ(ValuesOf(batch, Metric::kRemappedRowsPending), (std::vector<double>{1}));
      EXPECT_EQ(ValuesOf(batch, Metric::kRemappedRowsFailure), (std::vector<double>{0}));
      EXPECT_EQ(ValuesOf(batch, Metric::kNvlinkCrcFlitErrorCount), (std::vector<double>{7}));
      EXPECT_EQ(ValuesOf(batch, Metric::kNvlinkCrcDataErrorCount), (std::vector<double>{0}));
      EXPECT_EQ(ValuesOf(batch, Metric::kNvlinkReplayErrorCount), (std::vector<double>{12}));
      // NOT_SUPPORTED, whether the capture says so or leaves the field out: no series.
      for (Metric absent : {Metric::kRetiredPagesSbeCount, Metric::kRetiredPagesDbeCount,
                            Metric::kRetiredPagesPending, Metric::kNvlinkRecoveryErrorCount})
        EXPECT_EQ(CountMetric(batch, absent), 0u) << GetMetricInfo(absent).name;
      for (const SampleBatch::Value& value : batch.values) {
        if (value.metric != Metric::kRemappedRowsPending) continue;
        EXPECT_EQ(value.source_name, "NVML_FI_DEV_REMAPPED_PENDING");
      }
    }
    replay.now_us += 250'000;
  }
  // Pass 4 is the replay's frame 4: the value was read then, not held from pass 0.
  EXPECT_EQ(correctable, (std::vector<double>{10, -1, -1, -1, 14, -1, -1, -1}));
  EXPECT_EQ(ecc, std::vector<double>(8, 1));  // the per-pass fields, every pass
}

TEST(NvmlHealthFieldsTest, AFrameBetweenSlowReadsHoldsTheLastAnswers) {
  HealthReplay replay(1'000'000);
  ASSERT_TRUE(replay.session.ok()) << replay.session.status().message();
  SampleBatch batch;
  replay.session->sampler->Sample(batch);
  replay.now_us += 100'000;
  replay.session->sampler->Sample(batch);  // frame 1, not slow
  const DeviceFrame& frame = replay.session->sampler->last_frame().devices[0];
  EXPECT_FALSE(frame.slow_read);
  ASSERT_EQ(frame.fields.size(), kFieldRequests.size() + kHealthFieldRequests.size());
  const FieldAnswer& correctable = frame.fields[kFieldRequests.size()];
  EXPECT_EQ(correctable.field_id, NVML_FI_DEV_REMAPPED_COR);
  EXPECT_EQ(FieldNumber(correctable), 10);  // frame 0's
  EXPECT_EQ(CountMetric(batch, Metric::kRemappedRowsCorrectableCount), 0u);
}

// The fixture derived from the real H100's nvidia-smi capture: -q printed its remapped rows
// (0, not pending, no failure) and its retired pages as N/A. The sampler's series say the same.
TEST(NvmlHealthFieldsTest, TheDerivedH100FixtureAnswersWhatItsReportPrinted) {
  Result<NvmlSession> session = testing::OpenReplay(testing::FixturePath("h100.nvml"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  SampleBatch batch;
  session->sampler->Sample(batch);
  for (Metric metric : {Metric::kRemappedRowsCorrectableCount, Metric::kRemappedRowsUncorrectableCount,
                        Metric::kRemappedRowsPending, Metric::kRemappedRowsFailure})
    EXPECT_EQ(ValuesOf(batch, metric), (std::vector<double>{0})) << GetMetricInfo(metric).name;
  for (Metric absent : {Metric::kRetiredPagesSbeCount, Metric::kRetiredPagesPending, Metric::kNvlinkCrcFlitErrorCount})
    EXPECT_EQ(CountMetric(batch, absent), 0u) << GetMetricInfo(absent).name;
}

// record-nvml through the collector's reader: every frame read (slow interval 0) keeps the
// answers NVML gave, and the text parses back to the same capture.
TEST(NvmlHealthFieldsTest, RecordNvmlRoundTripsTheHealthFields) {
  ::setenv("KRAKEN_NVML_REPLAY", WriteTempFile("health.nvml", HealthCapture()).c_str(), 1);
  auto library = NvmlLibrary::Load(KRAKEN_NVML_REPLAY_LIBRARY);
  ASSERT_TRUE(library.ok()) << library.status().message();
  RecordOptions options;
  options.frames = kHealthFrames;
  options.sleep = [](int64_t) {};
  Result<Capture> recorded = RecordCapture(**library, options);
  ASSERT_TRUE(recorded.ok()) << recorded.status().message();
  std::string text = WriteCapture(*recorded);
  EXPECT_NE(text.find("gpu0.field.142 = uint 14\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu0.field.144 = uint 1\n"), std::string::npos);
  EXPECT_NE(text.find("gpu0.field.52.4294967295 = ullong 12\n"), std::string::npos);
  EXPECT_EQ(text.find("gpu0.field.29 "), std::string::npos);  // NOT_SUPPORTED: left out
  EXPECT_EQ(text.find("gpu0.field.59."), std::string::npos);
  Result<Capture> parsed = ParseCapture(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(WriteCapture(*parsed), text);
  ASSERT_EQ(parsed->frames.size(), recorded->frames.size());
  for (size_t f = 0; f < parsed->frames.size(); ++f) {
    std::vector<FieldAnswer> answered;
    for (const FieldAnswer& field : recorded->frames[f].devices[0].fields)
      if (field.rc != NVML_ERROR_NOT_SUPPORTED) answered.push_back(field);
    EXPECT_EQ(parsed->frames[f].devices[0].fields, answered) << "frame " << f;
  }
  // The answers are the replayed capture's own.
  Result<Capture> original = ParseCapture(HealthCapture());
  ASSERT_TRUE(original.ok());
  for (const FieldAnswer& field : original->frames[3].devices[0].fields) {
    if (field.rc == NVML_ERROR_NOT_SUPPORTED) continue;
    bool found = false;
    for (const FieldAnswer& got : parsed->frames[3].devices[0].fields) found = found || got == field;
    EXPECT_TRUE(found) << "field " << field.field_id;
  }
}

}  // namespace
}  // namespace kraken::nvml
