#include "analysis/disagg/fleet_reference.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analysis/distribution.h"
#include "base/csv_reader.h"
#include "base/text.h"

namespace kraken::disagg {
namespace {

RatioStats StatsOf(std::vector<double> values) {
  RatioStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = static_cast<int64_t>(values.size());
  s.mean = Summarize(values).mean;
  s.p10 = QuantileSorted(values, 0.10);
  s.p50 = QuantileSorted(values, 0.50);
  s.p90 = QuantileSorted(values, 0.90);
  return s;
}

}  // namespace

Result<FleetReference> SummarizeDisaggregatedFleet(std::string_view csv_text) {
  CsvReader reader(csv_text);
  std::vector<std::string> fields;
  if (!reader.Next(&fields)) return InvalidInput("line 1: empty file");
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < fields.size(); ++i) column[std::string(Trim(fields[i]))] = i;
  for (const char* name : {"role", "app_name", "cpu_request", "gpu_request", "memory_request", "rdma_request"})
    if (!column.count(name))
      return InvalidInput(std::string("line 1: not the disaggregated DLRM trace (no '") + name + "' column)");
  FleetReference ref;
  std::vector<double> vcpu, memory, rdma, cn_vcpu;
  std::map<std::string, std::pair<int64_t, int64_t>> per_app;  // app -> (CN, HN)
  while (reader.Next(&fields)) {
    if (fields.size() == 1 && Trim(fields[0]).empty()) continue;
    auto get = [&](const char* name) -> std::string_view {
      size_t i = column[name];
      return i < fields.size() ? Trim(fields[i]) : std::string_view();
    };
    ++ref.instances;
    std::string role(get("role"));
    std::string app(get("app_name"));
    auto cpu = ParseDouble(get("cpu_request"));
    if (role == "CN") {
      ++ref.cpu_node_instances;
      ++per_app[app].first;
      if (cpu) cn_vcpu.push_back(*cpu);
      continue;
    }
    if (role != "HN") {
      ++ref.skipped_rows;
      continue;
    }
    ++ref.gpu_node_instances;
    ++per_app[app].second;
    auto gpu = ParseDouble(get("gpu_request"));
    auto mem = ParseDouble(get("memory_request"));
    auto net = ParseDouble(get("rdma_request"));
    if (!gpu || *gpu <= 0 || !cpu || !mem || !net) {
      ++ref.skipped_rows;
      continue;
    }
    vcpu.push_back(*cpu / *gpu);
    memory.push_back(*mem / *gpu);
    rdma.push_back(*net / *gpu);
  }
  std::vector<double> ratio;
  for (const auto& [app, counts] : per_app)
    if (counts.first > 0 && counts.second > 0)
      ratio.push_back(static_cast<double>(counts.first) / static_cast<double>(counts.second));
  ref.apps = static_cast<int64_t>(per_app.size());
  ref.vcpu_per_gpu = StatsOf(std::move(vcpu));
  ref.host_memory_gib_per_gpu = StatsOf(std::move(memory));
  ref.rdma_pct_per_gpu = StatsOf(std::move(rdma));
  ref.cpu_instances_per_gpu_instance = StatsOf(std::move(ratio));
  ref.cpu_node_vcpu = StatsOf(std::move(cn_vcpu));
  return ref;
}

}  // namespace kraken::disagg
