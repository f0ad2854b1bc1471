// The race that the SQLite and PostgreSQL upload tests share: fifty `kraken upload`
// clients started at once, each with its own spool (fifty machines), sending ten real files
// so that every body is sent five times. Header-only: it needs the test's KRAKEN_BINARY_PATH.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"

namespace kraken::testing {

inline const std::vector<std::string>& TenRealUploadFiles() {
  static const std::vector<std::string> files = {
      "nvidia-smi/capture__linux-x86_64__nvidia-l40s__595.80.txt",
      "nvidia-smi/capture__linux-x86_64__nvidia-h200-mig__590.48.01.txt",
      "nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt",
      "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt",
      "kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz",
      "kineto/hta/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
      "kineto/hta/trace_compare/test/test.json.gz",
      "kineto/hta/trace_compare/base/base.json.gz",
      "kineto/hta/trace_filter/sampled_rank-0.json.gz",
      "kineto/hta/trace_filter/sampled_rank-1.json.gz",
  };
  return files;
}

struct UploadRaceOutcome {
  int sent = 0;     // clients whose body was stored
  int already = 0;  // clients told the body was there
  double seconds = 0;
};

// Client i sends to api_urls[i % n] the file (i / n) % 10, so that with two replicas both
// get every body. Each client must end with exit code 0 within 180 s.
inline UploadRaceOutcome RunFiftyUploadClients(const std::vector<std::string>& api_urls, const std::string& dir) {
  const std::vector<std::string>& files = TenRealUploadFiles();
  auto started = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<ChildProcess>> clients;
  for (size_t i = 0; i < 50; ++i) {
    std::string spool = dir + "/spool" + std::to_string(i);
    clients.push_back(std::make_unique<ChildProcess>(
        std::vector<std::string>{KRAKEN_BINARY_PATH, "upload", "--upload-to", api_urls[i % api_urls.size()],
                                 "--token-file", dir + "/token", "--upload-spool", spool, "--upload-retry-for", "120s",
                                 DataPath(files[(i / api_urls.size()) % files.size()])},
        dir + "/client" + std::to_string(i) + ".log"));
  }
  UploadRaceOutcome outcome;
  for (auto& client : clients) {
    EXPECT_EQ(client->Stop(0, std::chrono::seconds(180)), 0) << client->Log();
    std::string log = client->Log();
    outcome.sent += log.find("1 sent, 0 already there, 0 waiting") != std::string::npos;
    outcome.already += log.find("0 sent, 1 already there, 0 waiting") != std::string::npos;
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return outcome;
}

}  // namespace kraken::testing
