#include "analysis/pack/sweep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <thread>

#include "analysis/pack/fragment.h"

namespace kraken::pack {
namespace {

struct Job {
  size_t policy = 0;
  size_t seed = 0;
  Result<ExperimentResult> result = Status(StatusCode::kInternal, "not run");
  double seconds = 0;
};

std::vector<CurvePoint> MedianCurve(const std::vector<const ExperimentResult*>& runs) {
  std::map<int32_t, std::vector<const CurvePoint*>> by_x;
  for (const ExperimentResult* run : runs)
    for (const CurvePoint& p : run->curve) by_x[p.arrived_pct].push_back(&p);
  std::vector<CurvePoint> curve;
  for (const auto& [x, points] : by_x) {
    std::vector<double> unallocated, frag, ratio;
    for (const CurvePoint* p : points) {
      unallocated.push_back(p->unallocated_pct);
      frag.push_back(p->frag_pct);
      ratio.push_back(p->frag_ratio_pct);
    }
    curve.push_back({x, Median(unallocated), Median(frag), Median(ratio)});
  }
  return curve;
}

}  // namespace

double Median(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }), values.end());
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Result<std::vector<PolicySummary>> RunSweep(const PackProblem& problem, const std::vector<std::string>& policies,
                                            const SweepOptions& options) {
  std::vector<std::unique_ptr<PackingPolicy>> made;
  for (const std::string& name : policies) {
    made.push_back(MakePolicy(name, problem));
    if (!made.back()) return InvalidInput("unknown policy '" + name + "'");
  }
  if (options.seeds.empty()) return InvalidInput("no seeds");
  const FragmentMeter meter(problem.typical);

  std::vector<Job> jobs;
  for (size_t p = 0; p < policies.size(); ++p)
    for (size_t s = 0; s < options.seeds.size(); ++s) jobs.push_back(Job{p, s});
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t j = next++; j < jobs.size(); j = next++) {
      Job& job = jobs[j];
      ExperimentOptions experiment;
      experiment.seed = options.seeds[job.seed];
      experiment.tune_ratio = options.tune_ratio;
      auto start = std::chrono::steady_clock::now();
      // Policies are immutable after construction, so threads share them.
      job.result = RunExperiment(problem, meter, *made[job.policy], experiment);
      job.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
  };
  const int threads = std::max(1, std::min<int>(options.threads, static_cast<int>(jobs.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();

  std::vector<PolicySummary> summaries(policies.size());
  std::vector<std::vector<const ExperimentResult*>> runs(policies.size());
  for (const Job& job : jobs) {
    if (!job.result.ok()) return job.result.status();
    PolicySummary& s = summaries[job.policy];
    runs[job.policy].push_back(&job.result.value());
    s.seconds += job.seconds;
  }
  for (size_t p = 0; p < policies.size(); ++p) {
    PolicySummary& s = summaries[p];
    s.policy = std::string(made[p]->name());
    s.median_curve = MedianCurve(runs[p]);
    std::vector<double> failed;
    for (const ExperimentResult* run : runs[p]) {
      s.unallocated_at_100_by_seed.push_back(UnallocatedAt(run->curve, 100));
      failed.push_back(static_cast<double>(run->pods_failed));
    }
    s.median_unallocated_at_100 = Median(s.unallocated_at_100_by_seed);
    s.median_pods_failed = Median(failed);
  }
  return summaries;
}

}  // namespace kraken::pack
