// Stragglers in a multi-rank job: which rank holds the others back, since when, and the
// evidence. In a collective every rank waits for the last one to arrive, so the ranks
// that arrive early show long communication kernels and the straggler a short one. Kernel
// durations need no common clock, so this works on ranks recorded on different hosts:
//   wait of a rank in a collective = its kernel's duration - the shortest duration of
//                                    that collective over the ranks
//   last arrival                   = the rank with the shortest duration
// Collectives are matched across ranks by their order on each rank (the n-th
// communication kernel of every rank is one collective; NCCL requires that order).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/communication.h"
#include "analysis/timeline.h"
#include "model/profile.h"

namespace kraken {

struct RankFigures {
  int64_t rank = -1;       // from the trace, else the input position
  std::string source;      // file the rank came from
  int64_t steps = 0;       // steps with GPU work
  TimeNs step_ns = 0;      // mean GPU step time (whole trace when there are no steps)
  TimeNs compute_ns = 0;   // GPU compute busy time per step (same basis as step_ns)
  TimeNs comm_ns = 0;      // GPU communication busy time per step
  TimeNs comm_wait_ns = 0;  // summed over the matched collectives (see above)
  int64_t last_arrivals = 0;  // matched collectives at which this rank arrived last
};

struct StragglerReport {
  std::vector<RankFigures> ranks;  // input order
  int64_t collectives_matched = 0;
  int64_t collectives_unmatched = 0;  // positions whose kernel names differ between ranks
  // Index into `ranks` of the straggler; absent when no rank stands out.
  std::optional<size_t> straggler;
  int64_t since_step = -1;         // step of the first collective it arrived last at
  int64_t since_collective = -1;   // that collective's position (0-based)
  TimeNs others_mean_wait_ns = 0;  // mean comm wait of the other ranks
  double compute_vs_others_pct = 0;  // its compute time relative to the others' median, in %
  std::string evidence;             // one sentence with the figures
};

// A communication kernel of a rank, in start order (what collectives are matched on).
struct CommKernel {
  StringId name = StringTable::kEmpty;
  TimeNs start_ns = 0;
  TimeNs duration_ns = 0;
};

// The rank's communication kernels (by any evidence: `communication` is
// ClassifyCommunication of the same profile) by start. Per rank, so callers analysing
// ranks in parallel compute it there and hand it in (RankInput::communication): the
// matching across ranks that must wait for all of them is then cheap. The overload
// without `communication` classifies the profile itself.
std::vector<CommKernel> CommunicationKernelsByStart(const Profile& profile, const CommunicationKernels& communication);
std::vector<CommKernel> CommunicationKernelsByStart(const Profile& profile);

struct RankInput {
  const Profile* profile = nullptr;
  const RankTimeline* timeline = nullptr;
  // CommunicationKernelsByStart(*profile) when already computed; null: computed here.
  const std::vector<CommKernel>* communication = nullptr;
};

StragglerReport FindStragglers(std::span<const RankInput> ranks);

}  // namespace kraken
