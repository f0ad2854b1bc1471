#include "profiling/tree_attribution.h"

#include <algorithm>

namespace kraken::profiling {
namespace {

bool IsProcess(const SeriesEntity& entity) { return entity.pid >= 0; }
bool IsWholeGpu(const SeriesEntity& entity) { return entity.pid < 0 && entity.gpu_instance_id < 0; }

}  // namespace

PassRecord AttributePass(const SampleBatch& batch, const std::set<int64_t>& tree, size_t gpu_count,
                         const std::vector<bool>& process_util_answered, SampleBatch* kept) {
  PassRecord pass;
  pass.time_ns = batch.time_ns;
  pass.gpus.resize(gpu_count);
  std::vector<double> tree_sm(gpu_count, 0);
  auto gpu_of = [&](const SeriesEntity& e) -> GpuPass* {
    if (e.gpu_index < 0 || static_cast<size_t>(e.gpu_index) >= gpu_count) return nullptr;
    return &pass.gpus[static_cast<size_t>(e.gpu_index)];
  };

  std::vector<int32_t> kept_index(batch.entities.size(), -1);
  if (kept != nullptr) {
    kept->time_ns = batch.time_ns;
    kept->entities.clear();
    kept->values.clear();
  }
  for (size_t i = 0; i < batch.entities.size(); ++i) {
    const SeriesEntity& e = batch.entities[i];
    bool in_tree = IsProcess(e) && tree.count(e.pid) > 0;
    GpuPass* gpu = gpu_of(e);
    if (gpu != nullptr && IsProcess(e)) {
      (in_tree ? gpu->tree_present : gpu->shared) = true;
      if (in_tree && e.gpu_instance_id >= 0) gpu->tree_gpu_instances.insert(e.gpu_instance_id);
    }
    if (kept != nullptr && (!IsProcess(e) || in_tree)) {
      kept_index[i] = static_cast<int32_t>(kept->entities.size());
      kept->entities.push_back(e);
    }
  }

  for (const SampleBatch::Value& v : batch.values) {
    if (v.entity < 0 || static_cast<size_t>(v.entity) >= batch.entities.size()) continue;
    const SeriesEntity& e = batch.entities[static_cast<size_t>(v.entity)];
    if (kept != nullptr && kept_index[static_cast<size_t>(v.entity)] >= 0) {
      kept->values.push_back(v);
      kept->values.back().entity = kept_index[static_cast<size_t>(v.entity)];
    }
    GpuPass* gpu = gpu_of(e);
    if (gpu == nullptr) continue;
    bool in_tree = IsProcess(e) && tree.count(e.pid) > 0;
    if (IsWholeGpu(e)) {
      if (v.metric == Metric::kGpuUtilPct) gpu->device_util_pct = v.value;
      if (v.metric == Metric::kSmActiveRatio) gpu->sm_active = v.value;
      if (v.metric == Metric::kDramActiveRatio) gpu->dram_active = v.value;
      if (v.metric == Metric::kTensorActiveRatio) gpu->tensor_active = v.value;
    } else if (in_tree) {
      size_t g = static_cast<size_t>(e.gpu_index);
      if (v.metric == Metric::kProcessSmUtilPct) tree_sm[g] += v.value;
      if (v.metric == Metric::kProcessUsedMemoryBytes) gpu->tree_memory_bytes += v.value;
    }
  }
  for (size_t g = 0; g < gpu_count; ++g)
    if (g < process_util_answered.size() && process_util_answered[g])
      pass.gpus[g].tree_sm_util_pct = std::min(100.0, tree_sm[g]);
  return pass;
}

const std::vector<PassRecord>& FillSkippedProcessReads(const std::vector<PassRecord>& passes,
                                                       std::vector<PassRecord>& filled) {
  bool any = false;
  for (const PassRecord& pass : passes)
    for (const GpuPass& p : pass.gpus) any = any || p.process_util_skipped;
  if (!any) return passes;
  filled = passes;
  size_t gpu_count = 0;
  for (const PassRecord& pass : filled) gpu_count = std::max(gpu_count, pass.gpus.size());
  for (size_t g = 0; g < gpu_count; ++g) {
    double last_read = -1;  // the GPU's last read: for the passes after it
    for (const PassRecord& pass : filled)
      if (g < pass.gpus.size() && !pass.gpus[g].process_util_skipped) last_read = pass.gpus[g].tree_sm_util_pct;
    double covering = last_read;  // walking back from the end: the value of the next read
    for (size_t i = filled.size(); i-- > 0;) {
      if (g >= filled[i].gpus.size()) continue;
      GpuPass& p = filled[i].gpus[g];
      if (p.process_util_skipped) {
        p.tree_sm_util_pct = covering;
      } else {
        covering = p.tree_sm_util_pct;
      }
    }
  }
  return filled;
}

}  // namespace kraken::profiling
