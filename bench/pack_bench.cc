// Speed of the packing simulation (`kraken pack`): seconds per experiment (one policy,
// one seed, tuned to 130% of GPU capacity) for each policy, best of REPEAT, on one core;
// then the whole sweep (every policy x seeds 42-51) on THREADS threads. One JSON line
// per measurement.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analysis/pack/sweep.h"
#include "importers/openb/openb_loader.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kraken;
  using namespace kraken::pack;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s NODES.csv PODS.csv [THREADS] [REPEAT]\n", argv[0]);
    return 2;
  }
  const int threads = argc > 3 ? std::max(1, std::atoi(argv[3])) : 2;
  const int repeat = argc > 4 ? std::max(1, std::atoi(argv[4])) : 3;
  auto nodes = LoadOpenbNodes(argv[1]);
  auto pods = LoadOpenbPods(argv[2]);
  if (!nodes.ok() || !pods.ok()) {
    std::fprintf(stderr, "%s\n", (nodes.ok() ? pods.status() : nodes.status()).message().c_str());
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  auto problem = PreparePackProblem(nodes->nodes, pods->pods);
  if (!problem.ok()) {
    std::fprintf(stderr, "%s\n", problem.status().message().c_str());
    return 2;
  }
  const FragmentMeter meter(problem->typical);
  std::printf("{\"prepare_s\": %.4f, \"nodes\": %zu, \"pods\": %zu}\n", Seconds(start), problem->nodes.size(),
              problem->pods.size());

  for (const std::string& name : PolicyNames()) {
    auto policy = MakePolicy(name, *problem);
    double best = 1e30;
    int64_t submitted = 0;
    for (int i = 0; i < repeat; ++i) {
      ExperimentOptions options;
      options.seed = 42;
      start = std::chrono::steady_clock::now();
      auto result = RunExperiment(*problem, meter, *policy, options);
      best = std::min(best, Seconds(start));
      if (!result.ok()) return 1;
      submitted = result->pods_submitted;
    }
    std::printf("{\"policy\": \"%s\", \"seconds_per_experiment\": %.4f, \"pods_submitted\": %lld}\n", name.c_str(),
                best, static_cast<long long>(submitted));
  }

  SweepOptions sweep;
  sweep.threads = threads;
  start = std::chrono::steady_clock::now();
  auto summaries = RunSweep(*problem, PolicyNames(), sweep);
  if (!summaries.ok()) return 1;
  std::printf("{\"sweep\": \"%zu policies x %zu seeds\", \"threads\": %d, \"seconds\": %.3f}\n", PolicyNames().size(),
              sweep.seeds.size(), threads, Seconds(start));
  return 0;
}
