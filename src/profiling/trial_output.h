// The report of `kraken trial`: one row per candidate and the ranking, as text and JSON.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "profiling/trial_result.h"

namespace kraken::profiling {

struct TrialReport {
  std::string trial_id;  // tags the stored profiles (metadata attribute trial.id)
  std::vector<std::string> command;
  std::string candidates_spec;  // "auto" or the list given
  double warmup_s = 0;
  double duration_s = 0;
  double interval_s = 0;
  std::string throughput_regex;  // one of these two, or neither
  std::string throughput_file;
  std::vector<TrialResult> results;
  TrialRanking ranking;
  int stop_signal = 0;                  // the SIGINT/SIGTERM that ended the trial early, or 0
  size_t candidates_not_run = 0;        // skipped after a stop signal
  std::vector<std::string> left_out;    // auto: devices without a UUID, and why
  std::string stored_db;                // where the profiles went, "" = not stored
};

std::string RenderTrialText(const TrialReport& report);

// The annotations `--annotate-job` writes onto the trial's Job (docs/trial.md):
// kraken.io/trial-id, and kraken.io/trial-throughput = a compact JSON array with one object
// per candidate: candidate, device, mig_profile, gpu_fraction, throughput_median (null when
// not measured), readings, per_gpu_fraction and rank (null when unranked).
std::map<std::string, std::string> TrialAnnotations(const TrialReport& report);
std::string RenderTrialJson(const TrialReport& report);

// "first capture group of 'RE' in the workload's output", "the number in FILE", or the
// "not measured" sentence.
std::string ThroughputSourceText(const TrialReport& report);

}  // namespace kraken::profiling
