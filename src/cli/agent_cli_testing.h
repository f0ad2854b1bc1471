// What the `kraken agent` tests share (agent_cli_test.cc, agent_prometheus_cli_test.cc):
// the real binary started on a replayed NVML capture (tests/fixtures/nvml) and scraped
// over loopback, what the capture's frames say, and the families of its /metrics text.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"

namespace kraken::agent_cli_testing {

using namespace std::chrono_literals;

inline std::string AgentNvmlFixture(const std::string& name) {
  return testing::SourceDir() + "/tests/fixtures/nvml/" + name;
}

// What one frame of the capture says about gpu0 (all 8 GPUs are copies of it).
struct FrameValues {
  double util_pct = -1;
  double power_w = -1;
  double sm_clock_mhz = -1;
  double gpu_temp_c = -1;
  double fb_used_bytes = -1;
  double pcie_tx_kbps = -1;
};

inline std::vector<FrameValues> ReadCaptureFrames(const std::string& path) {
  std::vector<FrameValues> frames;
  std::istringstream in(testing::ReadFileOrDie(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("[frame ", 0) == 0) {
      frames.emplace_back();
      continue;
    }
    if (frames.empty() || line.rfind("gpu0.", 0) != 0) continue;
    size_t eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    std::string key = line.substr(5, eq - 5);
    std::istringstream value(line.substr(eq + 3));
    FrameValues& f = frames.back();
    if (key == "utilization") value >> f.util_pct;
    if (key == "power_mw") {
      value >> f.power_w;
      f.power_w /= 1000;
    }
    if (key == "sm_clock_mhz") value >> f.sm_clock_mhz;
    if (key == "gpu_temp_c") value >> f.gpu_temp_c;
    if (key == "pcie_tx_kbps") value >> f.pcie_tx_kbps;
    if (key == "memory") {
      double total = 0, reserved = 0, free = 0;
      value >> total >> reserved >> free >> f.fb_used_bytes;
    }
  }
  return frames;
}

// "name{labels} value" lines of one family: labels text -> value.
inline std::map<std::string, double> Family(const std::string& text, const std::string& name) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + "{", 0) != 0) continue;
    size_t close = line.rfind("} ");
    if (close == std::string::npos) continue;
    out[line.substr(name.size(), close + 1 - name.size())] = std::strtod(line.c_str() + close + 2, nullptr);
  }
  return out;
}

struct RunningAgent {
  std::unique_ptr<testing::ChildProcess> process;
  int port = 0;
  std::string db;
};

inline RunningAgent StartReplayedAgent(const std::string& capture, std::vector<std::string> extra = {}) {
  ::setenv("KRAKEN_NVML_REPLAY", AgentNvmlFixture(capture).c_str(), 1);
  std::string dir = testing::MakeTempDir("agent_cli");
  RunningAgent agent;
  agent.db = dir + "/kraken.db";
  std::vector<std::string> argv = {KRAKEN_BINARY_PATH, "agent", "--listen", "127.0.0.1:0", "--nvml-library",
                                   KRAKEN_NVML_REPLAY_LIBRARY};
  if (std::find(extra.begin(), extra.end(), "--interval") == extra.end()) {
    argv.push_back("--interval");
    argv.push_back("100ms");
  }
  if (std::find(extra.begin(), extra.end(), "--no-store") == extra.end()) {
    argv.push_back("--db");
    argv.push_back(agent.db);
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  agent.process = std::make_unique<testing::ChildProcess>(argv, dir + "/agent.log");
  std::string log = agent.process->WaitForLog("/metrics: ", 30s);
  size_t at = log.find("serving http://127.0.0.1:");
  if (at != std::string::npos) agent.port = std::atoi(log.c_str() + at + std::strlen("serving http://127.0.0.1:"));
  return agent;
}

inline std::string WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

}  // namespace kraken::agent_cli_testing
