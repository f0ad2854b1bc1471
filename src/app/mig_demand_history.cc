#include "app/mig_demand_history.h"

#include <set>

#include "analysis/pooling/node_mig_instances.h"

namespace kraken {
namespace {

// The steps (indices of the query's plan) at which any series of the pod answered.
std::set<size_t> AnsweredSteps(const std::vector<int64_t>& answer_times_s, int64_t start_s, int64_t step_s,
                               int64_t points) {
  std::set<size_t> steps;
  for (int64_t t : answer_times_s) {
    if (t < start_s || (t - start_s) % step_s != 0 || (t - start_s) / step_s >= points) continue;
    steps.insert(static_cast<size_t>((t - start_s) / step_s));
  }
  return steps;
}

}  // namespace

void AddMigInstanceHistories(const ClusterPooling& pooling, NodeMigHistories* into) {
  const promql::QueryPlan& plan = pooling.query.plan;
  if (plan.windows.empty() || plan.step_s <= 0 || plan.total_points <= 0) return;
  const int64_t start_s = plan.windows.front().start_s;
  const size_t points = static_cast<size_t>(plan.total_points);
  std::vector<std::string> profiles = pooling::MigProfileOfEachUse(pooling.uses, pooling.report);
  for (size_t i = 0; i < pooling.uses.size(); ++i) {
    const pooling::PodGpuUse& use = pooling.uses[i];
    if (profiles[i].empty() || use.node.empty()) continue;
    auto pod = pooling.answer_times_s.find({use.namespace_name, use.pod});
    if (pod == pooling.answer_times_s.end()) continue;
    mig::InstanceHistory& history = (*into)[use.node];
    if (history.times_s.empty())
      for (size_t k = 0; k < points; ++k) history.times_s.push_back(start_s + static_cast<int64_t>(k) * plan.step_s);
    std::vector<double>& counts = history.counts[profiles[i]];
    counts.resize(points, 0.0);
    for (size_t k : AnsweredSteps(pod->second, start_s, plan.step_s, plan.total_points)) counts[k] += 1;
  }
}

}  // namespace kraken
