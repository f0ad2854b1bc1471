#include "exporter/pod_share_exposition.h"

#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "importers/prometheus/pod_share_catalog.h"

namespace kraken::exporter {
namespace {

using ShareKey = std::tuple<std::string, int32_t, int32_t, std::string, std::string, std::string>;

ShareKey KeyOf(const SeriesEntity& e) {
  return {e.gpu_uuid, e.gpu_index, e.gpu_instance_id, e.namespace_name, e.pod, e.container};
}

// The share's device: the process's GPU fields and pod, without the process; the MIG
// profile from the instance's own entity (process entities carry only its id).
SeriesEntity DeviceOf(const SeriesEntity& process, const SampleBatch& batch) {
  SeriesEntity d;
  d.gpu_index = process.gpu_index;
  d.gpu_uuid = process.gpu_uuid;
  d.gpu_name = process.gpu_name;
  d.pci_bus_id = process.pci_bus_id;
  d.gpu_instance_id = process.gpu_instance_id;
  d.hostname = process.hostname;
  d.pod = process.pod;
  d.namespace_name = process.namespace_name;
  d.container = process.container;
  if (d.gpu_instance_id >= 0)
    for (const SeriesEntity& e : batch.entities)
      if (e.pid < 0 && e.gpu_instance_id == d.gpu_instance_id && e.gpu_uuid == d.gpu_uuid) d.mig_profile = e.mig_profile;
  return d;
}

void AddTo(std::optional<double>& sum, double value) { sum = sum.value_or(0) + value; }

void AppendNumber(double value, std::string& out) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

}  // namespace

std::vector<PodGpuShare> PodGpuShares(const SampleBatch& batch) {
  std::vector<PodGpuShare> shares;
  std::map<ShareKey, size_t> index;
  std::vector<int> share_of_entity(batch.entities.size(), -1);
  // Processes with a value in this pass (an opted-out pod's keep their entity, not their values).
  std::vector<uint8_t> measured(batch.entities.size(), 0);
  for (const SampleBatch::Value& v : batch.values)
    if (v.entity >= 0 && static_cast<size_t>(v.entity) < measured.size()) measured[static_cast<size_t>(v.entity)] = 1;
  for (size_t e = 0; e < batch.entities.size(); ++e) {
    const SeriesEntity& entity = batch.entities[e];
    if (entity.pid < 0 || entity.pod.empty() || !measured[e]) continue;
    auto [it, inserted] = index.emplace(KeyOf(entity), shares.size());
    if (inserted) shares.push_back({DeviceOf(entity, batch), {}, {}, {}, 0});
    share_of_entity[e] = static_cast<int>(it->second);
    ++shares[it->second].processes;
  }
  // GPUs whose process utilization NVML answered in this pass (some process has a sample).
  std::set<std::string> answered;
  for (const SampleBatch::Value& v : batch.values)
    if (v.metric == Metric::kProcessSmUtilPct && v.entity >= 0 && static_cast<size_t>(v.entity) < batch.entities.size())
      answered.insert(batch.entities[static_cast<size_t>(v.entity)].gpu_uuid);
  for (PodGpuShare& share : shares)
    if (answered.count(share.device.gpu_uuid) != 0) share.sm_util_pct = share.mem_util_pct = 0.0;
  for (const SampleBatch::Value& v : batch.values) {
    if (v.entity < 0 || static_cast<size_t>(v.entity) >= share_of_entity.size()) continue;
    int s = share_of_entity[static_cast<size_t>(v.entity)];
    if (s < 0 || !std::isfinite(v.value)) continue;
    PodGpuShare& share = shares[static_cast<size_t>(s)];
    if (v.metric == Metric::kProcessSmUtilPct) AddTo(share.sm_util_pct, v.value);
    if (v.metric == Metric::kProcessMemUtilPct) AddTo(share.mem_util_pct, v.value);
    if (v.metric == Metric::kProcessUsedMemoryBytes) AddTo(share.fb_used_bytes, v.value);
  }
  return shares;
}

void RenderPodGpuShares(const ExpositionInput& input, std::string& out) {
  if (input.batch == nullptr) return;
  std::vector<PodGpuShare> shares = PodGpuShares(*input.batch);
  if (shares.empty()) return;
  std::vector<std::string> labels;
  labels.reserve(shares.size());
  for (const PodGpuShare& share : shares) labels.push_back(EntityLabels(share.device, input));
  for (const prometheus::PodShareMetric& family : prometheus::PodShareMetrics()) {
    bool header = false;
    for (size_t i = 0; i < shares.size(); ++i) {
      const PodGpuShare& share = shares[i];
      std::optional<double> value;
      if (family.metric == Metric::kGpuUtilPct) value = share.sm_util_pct;
      if (family.metric == Metric::kMemCopyUtilPct) value = share.mem_util_pct;
      if (family.metric == Metric::kFbUsedBytes) value = share.fb_used_bytes;
      if (family.metric == Metric::kOther) value = share.processes;
      if (!value) continue;
      if (!header) {
        out.append("# HELP ").append(family.name).append(" ").append(family.help).append("\n");
        out.append("# TYPE ").append(family.name).append(" gauge\n");
        header = true;
      }
      out.append(family.name).append(labels[i]).append(" ");
      AppendNumber(*value / family.scale, out);
      out += '\n';
    }
  }
}

}  // namespace kraken::exporter
