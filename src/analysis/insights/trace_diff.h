// The difference between two traces (A = before/control, B = after/test): step time,
// GPU timeline categories, kernel and CPU operator time by name, kernel time by class,
// kernels that appear on one side only, and every change ranked by its impact (the
// absolute change of time per rank). Each side may hold several ranks; its figures are
// per-rank means so that an 8-rank run compares with a 1-rank run.
// HTA's TraceDiff compares operator and kernel counts and durations by name; kraken adds
// the step time, the timeline categories and the classes, and ranks the changes.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "analysis/characterize.h"
#include "analysis/communication.h"
#include "model/profile.h"

namespace kraken {

struct NameTime {
  double time_ns = 0;  // per rank
  double count = 0;    // per rank
};

// One side of a diff, averaged over its ranks.
struct TraceSideSummary {
  int64_t ranks = 0;
  double step_ns = 0;  // mean ProfilerStep duration; the GPU span when there are no steps
  bool has_steps = false;
  // Timeline categories over each rank's main window (the steps, else the trace).
  std::map<std::string, double> timeline_ns;  // total, busy, idle, compute, communication, ...
  std::map<std::string, NameTime> kernels;
  std::map<std::string, NameTime> operators;  // CPU operators, inclusive time
  // A kernel name's class: "communication" when the communication classifier
  // (analysis/communication.h) marks kernels holding at least half of that name's time
  // on the rank as communication, else the bound class of its kernel group.
  std::map<std::string, NameTime> kernel_classes;  // communication, compute, memory, latency, ...
};

enum class DiffScope : uint8_t { kStep, kTimeline, kKernel, kOperator, kKernelClass };
enum class DiffStatus : uint8_t { kChanged, kAdded, kRemoved };

std::string_view DiffScopeName(DiffScope scope);    // step, timeline, kernel, operator, kernel_class
std::string_view DiffStatusName(DiffStatus status);  // changed, added, removed

struct DiffEntry {
  DiffScope scope = DiffScope::kKernel;
  std::string name;
  double a_ns = 0;
  double b_ns = 0;
  double a_count = 0;
  double b_count = 0;
  DiffStatus status = DiffStatus::kChanged;

  double delta_ns() const { return b_ns - a_ns; }
  double delta_pct() const;  // of a; 0 when a is 0
};

struct TraceDiff {
  TraceSideSummary a;
  TraceSideSummary b;
  DiffEntry step;                        // scope kStep
  std::vector<DiffEntry> timeline;       // fixed order of categories
  std::vector<DiffEntry> kernel_classes;  // by |delta|
  std::vector<DiffEntry> kernels;        // by |delta|, top_n
  std::vector<DiffEntry> operators;      // by |delta|, top_n
  std::vector<DiffEntry> added_kernels;    // only in B, by time
  std::vector<DiffEntry> removed_kernels;  // only in A, by time
  std::vector<DiffEntry> ranked;  // kernels, operators and classes together, by |delta|, top_n
};

struct TraceDiffOptions {
  size_t top_n = 15;
};

struct DiffRank {
  const Profile* profile = nullptr;
  const WorkloadReport* report = nullptr;  // with every kernel group (top_n large)
  // ClassifyCommunication(*profile) when the caller has it (the diff request classifies
  // each rank once, next to its characterization); null: classified here.
  const CommunicationKernels* communication = nullptr;
};

TraceSideSummary SummarizeTraceSide(std::span<const DiffRank> ranks);
TraceDiff DiffTraces(const TraceSideSummary& a, const TraceSideSummary& b, const TraceDiffOptions& options = {});

}  // namespace kraken
