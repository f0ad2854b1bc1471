// What the end-to-end tests of `kraken trial` share: the replay environment, the workload
// script (it records the CUDA_VISIBLE_DEVICES it got and the pids of its tree: itself, a
// child, and a worker that escapes into its own session; prints "throughput: 999.0
// samples/s" at once, inside the warmup, and after 0.5 s a steady throughput that depends on
// its device), and the check that no process of it survived.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"

namespace kraken::trial_testing {

inline constexpr char kRegex[] = "'throughput: ([0-9.]+) samples/s'";

// "GPU-00000000-0000-0000-0000-00000000000N" (h100x8.nvml), "MIG-0000000N-...-00000000000N"
// (the MIG fixtures).
inline std::string Uuid(int n, const char* kind = "GPU") {
  char buffer[64];
  int first = std::string(kind) == "MIG" ? n : 0;
  std::snprintf(buffer, sizeof(buffer), "%s-0000000%d-0000-0000-0000-00000000000%d", kind, first, n);
  return buffer;
}

inline std::string Replay(const std::string& capture, const std::string& pid_map) {
  return std::string("KRAKEN_NVML_LIBRARY=") + KRAKEN_NVML_REPLAY_LIBRARY + " KRAKEN_NVML_REPLAY=" +
         testing::SourceDir() + "/tests/fixtures/nvml/" + capture + " KRAKEN_NVML_REPLAY_PID_MAP=" + pid_map + " ";
}

// The workload script in `dir`; `values`: "UUID) VALUE ;;" case arms.
inline std::string WriteWorkload(const std::string& dir, const std::string& values, const std::string& extra = "") {
  std::string path = dir + "/workload.sh";
  std::ofstream out(path);
  // The warmup figure first: it must land inside the warmup even on a loaded machine.
  out << "#!/bin/sh\n"
      << "echo 'throughput: 999.0 samples/s'\n"
      << extra << "\n"
      << "echo \"$CUDA_VISIBLE_DEVICES\" >> " << dir << "/visible\n"
      << "echo $$ >> " << dir << "/pids\n"
      << "sleep 30 &\n"
      << "echo $! >> " << dir << "/pids\n"
      << "setsid sh -c 'echo $$ >> " << dir << "/pids; exec sleep 30' &\n"
      << "echo \"visible: $CUDA_VISIBLE_DEVICES\"\n"
      << "case \"$CUDA_VISIBLE_DEVICES\" in\n" << values << "\n  *) t=1 ;;\nesac\n"
      << "sleep 0.5\n"
      << "while :; do echo \"throughput: $t samples/s\"; sleep 0.02; done\n";
  out.close();
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

inline std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every pid the workloads recorded has ended (kraken reaped or killed it). The workload
// records its pids first thing; tests give it a warmup of 200 ms or more so that all of them
// are written before kraken stops it, and the count is exact.
inline void ExpectNoSurvivor(const std::string& dir, size_t expected_pids) {
  std::vector<std::string> pids = Lines(dir + "/pids");
  EXPECT_EQ(pids.size(), expected_pids);
  for (const std::string& pid : pids) EXPECT_NE(kill(std::stoi(pid), 0), 0) << "pid " << pid << " survived";
}

inline double Number(simdjson::dom::element e) {
  double v = -1;
  EXPECT_EQ(e.get_double().get(v), simdjson::SUCCESS);
  return v;
}

inline std::string Str(simdjson::dom::element e) {
  std::string_view v;
  EXPECT_EQ(e.get_string().get(v), simdjson::SUCCESS);
  return std::string(v);
}

}  // namespace kraken::trial_testing
