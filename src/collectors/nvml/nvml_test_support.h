// Helpers shared by the NVML collector tests: fixtures, replay sessions through the real
// dlopen path, and reading values out of a SampleBatch.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "collectors/nvml/nvml_sampler.h"

namespace kraken::nvml::testing {

inline constexpr double kMiB = 1024.0 * 1024.0;

inline std::string FixturePath(const std::string& name) {
  return kraken::testing::SourceDir() + "/tests/fixtures/nvml/" + name;
}

inline std::string WriteTempFile(const std::string& name, const std::string& content) {
  std::string path = kraken::testing::MakeTempDir("nvml_" + name) + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// The field `field_id` of a frame's GPU; nullptr when the frame has none.
inline const FieldAnswer* FindField(const DeviceFrame& f, uint32_t field_id) {
  for (const FieldAnswer& a : f.fields)
    if (a.field_id == field_id) return &a;
  return nullptr;
}

// Opens the collector on libkraken_nvml_replay.so (or the legacy build) replaying
// `capture_path`, through the same loader and dlopen path as the driver.
inline Result<NvmlSession> OpenReplay(const std::string& capture_path, bool legacy = false) {
  ::setenv("KRAKEN_NVML_REPLAY", capture_path.c_str(), 1);
  NvmlSamplerOptions options;
  options.proc_root = "";  // the captured pids are not this machine's processes
  options.slow_interval_us = 0;  // every pass reads everything (the cadence has its own tests)
  return OpenNvmlSession(legacy ? KRAKEN_NVML_REPLAY_LEGACY_LIBRARY : KRAKEN_NVML_REPLAY_LIBRARY, options);
}

struct Pick {
  int32_t gpu = 0;
  int32_t gpu_instance = -1;
  int64_t pid = -1;
};

// The values of `metric` for the entity `pick` names in one batch (0 or 1 of them).
inline std::vector<double> ValuesOf(const SampleBatch& batch, Metric metric, Pick pick = {}) {
  std::vector<double> values;
  for (const SampleBatch::Value& v : batch.values) {
    const SeriesEntity& e = batch.entities[static_cast<size_t>(v.entity)];
    if (v.metric == metric && e.gpu_index == pick.gpu && e.pid == pick.pid &&
        (pick.pid >= 0 || e.gpu_instance_id == pick.gpu_instance))
      values.push_back(v.value);
  }
  return values;
}

// `metric` over `passes` sampling passes; -1 where a pass had no value (all real values
// in these tests are >= 0).
inline std::vector<double> Series(NvmlSampler& sampler, Metric metric, int passes, Pick pick = {}) {
  std::vector<double> out;
  SampleBatch batch;
  for (int i = 0; i < passes; ++i) {
    sampler.Sample(batch);
    auto values = ValuesOf(batch, metric, pick);
    EXPECT_LE(values.size(), 1u);
    out.push_back(values.empty() ? -1 : values[0]);
  }
  return out;
}

// Opens a fresh replay of `fixture` (any earlier session must be closed: sessions on one
// library share its state) and returns `metric` over `passes` passes.
inline std::vector<double> ReplaySeries(const std::string& fixture, Metric metric, int passes, Pick pick = {}) {
  auto session = OpenReplay(FixturePath(fixture));
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  return Series(*session->sampler, metric, passes, pick);
}

inline size_t CountMetric(const SampleBatch& batch, Metric metric) {
  size_t n = 0;
  for (const SampleBatch::Value& v : batch.values) n += v.metric == metric ? 1 : 0;
  return n;
}

}  // namespace kraken::nvml::testing
