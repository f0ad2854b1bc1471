// Output of `kraken pack`: the median curves of a sweep (table or JSON) and the
// explanation of single placements.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/pack/sweep.h"

namespace kraken {

struct PackReport {
  std::string nodes_file;
  std::string pods_file;
  const pack::PackProblem* problem = nullptr;
  double empty_cluster_frag_pct = 0;  // FGD fragmentation of the empty cluster / capacity
  std::vector<uint64_t> seeds;
  double tune_ratio = 0;
  int threads = 1;
  double wall_seconds = 0;
  std::vector<pack::PolicySummary> summaries;
};

// Rows: arrived 75..130 % in steps of 5; one column per policy (median unallocated GPU %
// over seeds), then the value at 100 % with its spread and the failed pods.
std::string RenderPackText(const PackReport& report);
// Keys: docs/packing.md ("JSON output").
std::string RenderPackJson(const PackReport& report);

struct PackExplainRun {
  const pack::PackingPolicy* policy = nullptr;
  pack::ExperimentResult result;  // with explanations
};

struct PackExplainReport {
  const pack::PackProblem* problem = nullptr;
  uint64_t seed = 0;
  double tune_ratio = 0;
  std::vector<PackExplainRun> runs;
};

std::string RenderPackExplainText(const PackExplainReport& report);
std::string RenderPackExplainJson(const PackExplainReport& report);

// The assumptions every experiment shares (the protocol), one sentence each.
const std::vector<std::string>& PackProtocolAssumptions();

}  // namespace kraken
