// Critical path on real Kineto traces from shared/data/kineto.
#include "analysis/insights/critical_path.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "analysis/insights/insights_testing.h"
#include "analysis/insights/kernel_sequences.h"
#include "analysis/insights/stragglers.h"

namespace kraken {
namespace {

void PrintPath(const char* file, const CriticalPathReport& r) {
  std::printf("%s windows=%zu total=%lld truncated=%d\n", file, r.windows.size(),
              static_cast<long long>(r.total_ns()), r.truncated);
  for (size_t k = 0; k < kCriticalPathKinds; ++k)
    std::printf("  %-18s %12lld %6.2f%%\n", std::string(CriticalPathKindName(static_cast<CriticalPathKind>(k))).c_str(),
                static_cast<long long>(r.by_kind[k]), r.pct(static_cast<CriticalPathKind>(k)));
  for (const auto& w : r.windows)
    std::printf("  step %lld window %lld path %lld events %lld\n", static_cast<long long>(w.step_number),
                static_cast<long long>(w.window.length()), static_cast<long long>(w.total_ns()),
                static_cast<long long>(w.events_on_path));
  for (const auto& i : r.top)
    std::printf("  top %s %s %lld x%lld\n", std::string(CriticalPathKindName(i.kind)).c_str(), i.name.substr(0, 60).c_str(),
                static_cast<long long>(i.time_ns), static_cast<long long>(i.count));
}

TEST(CriticalPathExplore, Print) {
  for (const char* f : {"kineto/hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
                        "kineto/hta/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
                        "kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz",
                        "kineto/param/resnet_kineto.json.gz",
                        "kineto/hta/trace_diff/control/control.json.gz",
                        "kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"}) {
    Profile p = testing::ImportFirstProfile(f);
    PrintPath(f, AnalyzeCriticalPath(p));
    for (const auto& s : FindFrequentKernelSequences(p)) {
      std::printf("  seq x%lld k=%lld gap=%lld op=%s:", static_cast<long long>(s.count),
                  static_cast<long long>(s.kernel_time_ns), static_cast<long long>(s.gap_time_ns),
                  s.launching_operator.c_str());
      for (const auto& k : s.kernels) std::printf(" | %s", k.substr(0, 30).c_str());
      std::printf("\n");
    }
  }
}

TEST(StragglerExplore, Print) {
  std::vector<Profile> ranks = testing::ImportAllProfiles("kineto/param/dlrm_kineto.tar.gz");
  std::vector<RankTimeline> timelines;
  for (const Profile& p : ranks) timelines.push_back(AnalyzeTimeline(p));
  std::vector<RankInput> inputs;
  for (size_t i = 0; i < ranks.size(); ++i) inputs.push_back({&ranks[i], &timelines[i]});
  StragglerReport r = FindStragglers(inputs);
  for (const auto& f : r.ranks)
    std::printf("rank %lld step %lld compute %lld comm %lld wait %lld last %lld\n", static_cast<long long>(f.rank),
                static_cast<long long>(f.step_ns), static_cast<long long>(f.compute_ns), static_cast<long long>(f.comm_ns),
                static_cast<long long>(f.comm_wait_ns), static_cast<long long>(f.last_arrivals));
  std::printf("matched %lld unmatched %lld: %s\n", static_cast<long long>(r.collectives_matched),
              static_cast<long long>(r.collectives_unmatched), r.evidence.c_str());
  for (const Profile& p : ranks) PrintPath(p.metadata.source.c_str(), AnalyzeCriticalPath(p));
}

}  // namespace
}  // namespace kraken
