// Helpers the agent tests share (one definition each, so the suite can be compiled as a
// unity build).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "base/testing/test_data.h"
#include "collectors/nvml/nvml_sampler.h"

namespace kraken::testing {

// The collector on libkraken_nvml_replay.so replaying tests/fixtures/nvml/FIXTURE, through
// the driver's dlopen path.
inline nvml::NvmlSession OpenReplay(const std::string& fixture) {
  ::setenv("KRAKEN_NVML_REPLAY", (SourceDir() + "/tests/fixtures/nvml/" + fixture).c_str(), 1);
  nvml::NvmlSamplerOptions options;
  options.proc_root = "";  // the captured pids are not this machine's processes
  auto session = nvml::OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, options);
  EXPECT_TRUE(session.ok()) << session.status().message();
  return session.ok() ? std::move(*session) : nvml::NvmlSession{};
}

}  // namespace kraken::testing
