#include "analysis/insights/stragglers.h"

#include <algorithm>
#include <cstdio>

namespace kraken {
namespace {

// A rank is the straggler when it arrives last at more than this share of collectives.
constexpr double kLastArrivalShare = 0.5;
// Without collectives: when its step time exceeds the others' median by this factor.
constexpr double kSlowStepFactor = 1.10;

RankFigures FiguresOf(const RankInput& input, size_t position) {
  RankFigures f;
  f.rank = input.profile->metadata.rank.value_or(static_cast<int64_t>(position));
  f.source = input.profile->metadata.source;
  TimeNs step = 0, compute = 0, comm = 0;
  for (const StepTimeline& s : input.timeline->steps) {
    if (s.launched_gpu_events == 0) continue;
    ++f.steps;
    step += s.breakdown.total_ns;
    compute += s.breakdown.compute_ns;
    comm += s.breakdown.comm_ns;
  }
  if (f.steps == 0) {
    f.step_ns = input.timeline->trace.total_ns;
    f.compute_ns = input.timeline->trace.compute_ns;
    f.comm_ns = input.timeline->trace.comm_ns;
    return f;
  }
  f.step_ns = step / f.steps;
  f.compute_ns = compute / f.steps;
  f.comm_ns = comm / f.steps;
  return f;
}

TimeNs Median(std::vector<TimeNs> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// The step whose CPU range holds `t`, -1 when none does.
int64_t StepAt(const Profile& profile, TimeNs t) {
  for (const StepAnnotation& s : profile.steps)
    if (t >= s.start_ns && t < s.end_ns()) return s.step_number;
  return -1;
}

// Per position: not matched (names differ), or matched with the rank index that arrived
// last (kTie when nobody waited).
constexpr size_t kUnmatched = SIZE_MAX;
constexpr size_t kTie = SIZE_MAX - 1;

// Matches collectives by position; fills waits and last arrivals. Returns, per position,
// the rank index that arrived last, kTie or kUnmatched.
std::vector<size_t> MatchCollectives(std::span<const RankInput> ranks, StragglerReport* report,
                                     std::vector<std::vector<CommKernel>>* comms) {
  size_t common = SIZE_MAX;
  for (const RankInput& r : ranks) {
    comms->push_back(r.communication != nullptr ? *r.communication : CommunicationKernelsByStart(*r.profile));
    common = std::min(common, comms->back().size());
  }
  std::vector<size_t> last_at(common, kUnmatched);
  for (size_t i = 0; i < common; ++i) {
    const std::string_view name0 = ranks[0].profile->Name((*comms)[0][i].name);
    bool same = true;
    for (size_t r = 1; r < ranks.size() && same; ++r) same = ranks[r].profile->Name((*comms)[r][i].name) == name0;
    if (!same) {
      ++report->collectives_unmatched;
      continue;
    }
    ++report->collectives_matched;
    last_at[i] = kTie;
    size_t last = 0;
    for (size_t r = 1; r < ranks.size(); ++r)
      if ((*comms)[r][i].duration_ns < (*comms)[last][i].duration_ns) last = r;
    TimeNs longest_wait = 0;
    for (size_t r = 0; r < ranks.size(); ++r) {
      const TimeNs wait = (*comms)[r][i].duration_ns - (*comms)[last][i].duration_ns;
      report->ranks[r].comm_wait_ns += wait;
      longest_wait = std::max(longest_wait, wait);
    }
    if (longest_wait == 0) continue;  // a tie: nobody waited, nobody arrived last
    ++report->ranks[last].last_arrivals;
    last_at[i] = last;
  }
  return last_at;
}

// Since when `rank` holds the others back: the earliest collective it arrived last at
// such that, from there on, it arrived last at more than half of the matched ones
// (a rank that was slow once early and fast since does not date its trouble from then).
int64_t SinceCollective(const std::vector<size_t>& last_at, size_t rank) {
  int64_t since = -1;
  int64_t mine = 0, matched = 0;
  for (size_t k = last_at.size(); k-- > 0;) {
    if (last_at[k] == kUnmatched) continue;
    ++matched;
    if (last_at[k] != rank) continue;
    ++mine;
    if (static_cast<double>(mine) > kLastArrivalShare * static_cast<double>(matched)) since = static_cast<int64_t>(k);
  }
  return since;
}

void Describe(StragglerReport* report) {
  const RankFigures& s = report->ranks[*report->straggler];
  char text[512];
  if (report->collectives_matched == 0) {
    std::snprintf(text, sizeof text,
                  "rank %lld's GPU step takes %.3f ms, the longest of the ranks (no collectives to match); its GPU "
                  "compute per step is %.1f %% of the other ranks' median",
                  static_cast<long long>(s.rank), static_cast<double>(s.step_ns) / 1e6, report->compute_vs_others_pct);
    report->evidence = text;
    return;
  }
  std::snprintf(text, sizeof text,
                "rank %lld arrived last at %lld of %lld collectives (first at collective %lld, step %lld); its GPU "
                "compute per step is %.1f %% of the other ranks' median, and the others waited %.3f ms on average "
                "in collectives against its %.3f ms",
                static_cast<long long>(s.rank), static_cast<long long>(s.last_arrivals),
                static_cast<long long>(report->collectives_matched), static_cast<long long>(report->since_collective),
                static_cast<long long>(report->since_step), report->compute_vs_others_pct,
                static_cast<double>(report->others_mean_wait_ns) / 1e6, static_cast<double>(s.comm_wait_ns) / 1e6);
  report->evidence = text;
}

}  // namespace

std::vector<CommKernel> CommunicationKernelsByStart(const Profile& profile) {
  return CommunicationKernelsByStart(profile, ClassifyCommunication(profile));
}

std::vector<CommKernel> CommunicationKernelsByStart(const Profile& profile, const CommunicationKernels& communication) {
  std::vector<CommKernel> out;
  for (size_t i = 0; i < profile.kernels.size() && i < communication.evidence.size(); ++i) {
    const Kernel& k = profile.kernels[i];
    if (communication.is_communication(i)) out.push_back({k.name, k.start_ns, k.duration_ns});
  }
  std::sort(out.begin(), out.end(), [](const CommKernel& a, const CommKernel& b) { return a.start_ns < b.start_ns; });
  return out;
}

StragglerReport FindStragglers(std::span<const RankInput> ranks) {
  StragglerReport report;
  if (ranks.size() < 2) return report;
  for (size_t i = 0; i < ranks.size(); ++i) report.ranks.push_back(FiguresOf(ranks[i], i));
  std::vector<std::vector<CommKernel>> comms;
  const std::vector<size_t> last_at = MatchCollectives(ranks, &report, &comms);

  size_t candidate = 0;
  for (size_t r = 1; r < report.ranks.size(); ++r)
    if (report.ranks[r].last_arrivals > report.ranks[candidate].last_arrivals) candidate = r;
  bool stands_out = report.collectives_matched > 0 &&
                    static_cast<double>(report.ranks[candidate].last_arrivals) >
                        kLastArrivalShare * static_cast<double>(report.collectives_matched);
  if (report.collectives_matched == 0) {  // no collectives: the slowest step, if clearly slower
    std::vector<TimeNs> steps;
    for (const RankFigures& f : report.ranks) steps.push_back(f.step_ns);
    candidate = static_cast<size_t>(std::max_element(steps.begin(), steps.end()) - steps.begin());
    stands_out = static_cast<double>(steps[candidate]) > kSlowStepFactor * static_cast<double>(Median(steps));
  }
  if (!stands_out) return report;
  report.straggler = candidate;
  std::vector<TimeNs> other_compute;
  TimeNs other_wait = 0;
  for (size_t r = 0; r < report.ranks.size(); ++r) {
    if (r == candidate) continue;
    other_compute.push_back(report.ranks[r].compute_ns);
    other_wait += report.ranks[r].comm_wait_ns;
  }
  report.others_mean_wait_ns = other_wait / static_cast<TimeNs>(other_compute.size());
  const TimeNs median_compute = Median(other_compute);
  report.compute_vs_others_pct =
      median_compute > 0 ? 100.0 * static_cast<double>(report.ranks[candidate].compute_ns) / median_compute : 0;
  if (const int64_t since = SinceCollective(last_at, candidate); since >= 0) {
    report.since_collective = since;
    report.since_step = StepAt(*ranks[candidate].profile, comms[candidate][static_cast<size_t>(since)].start_ns);
  }
  Describe(&report);
  return report;
}

}  // namespace kraken
