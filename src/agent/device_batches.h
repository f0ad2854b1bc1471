// The batch surgery of the agent's pod policies (docs/pod-attribution.md "Pod annotations in
// the agent"): which entities of a pass belong to opted-out pods, what of them the
// exposition keeps, the pass without them for the ring and the store, and the newest pass
// of each GPU for /metrics when GPUs are sampled at different intervals. Buffers are
// reused: entries cut from a shorter pass wait in a spare with their strings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/pod_policy.h"
#include "model/sample_batch.h"

namespace kraken::agent {

struct BatchSpare {
  std::vector<SeriesEntity> entities;
  std::vector<SampleBatch::Value> values;
};

// Sets v.size() to n: cut entries go to `spare`, added ones come from it.
template <typename T>
void ResizeKeeping(std::vector<T>& v, size_t n, std::vector<T>& spare) {
  while (v.size() > n) {
    spare.push_back(std::move(v.back()));
    v.pop_back();
  }
  while (v.size() < n) {
    if (spare.empty()) {
      v.emplace_back();
    } else {
      v.push_back(std::move(spare.back()));
      spare.pop_back();
    }
  }
}

// Per entity of `batch`: 1 when it belongs to an opted-out pod: its GPU is held by one, or
// its MIG instance is, or it is a process without a MIG instance on a GPU where an
// instance is (NVML's per-process utilization names no instance). Returns whether any is.
// With `policies`, a process named to a pod that opted out (a pod sharing a GPU, whose
// device has no single owner to plan by) is marked too.
bool MarkOptedOut(const std::vector<DevicePlan>& plans, const SampleBatch& batch, std::vector<uint8_t>& opted_out,
                  const PodPolicies* policies = nullptr);

// The device-level series of an opted-out entity stay (DCGM_FI_DEV_*: utilization, memory,
// power, clocks, temperature, PCIe, NVLink, ECC, XID), without pod labels; its GPM
// activity (DCGM_FI_PROF_*) and per-process values are dropped.
void StripOptedOut(const std::vector<uint8_t>& opted_out, SampleBatch& batch, BatchSpare& spare);

// `out` = `in` without the opted-out entities and their values (for the ring, hence the
// kraken_* analysis, and the store).
void CopyWithoutOptedOut(const std::vector<uint8_t>& opted_out, const SampleBatch& in, SampleBatch& out,
                         std::vector<int32_t>& remap, BatchSpare& spare);

// For each device d with sampled[d] != 0: per_device[d] = its entities and values of `in`
// (entities with gpu_index d). Devices not sampled keep their previous copy.
void KeepNewestPerDevice(const SampleBatch& in, const std::vector<uint8_t>& sampled,
                         std::vector<SampleBatch>& per_device, std::vector<int32_t>& remap);

// `out` = the per-device copies one after the other (device order, as one pass has them).
void ConcatDevices(const std::vector<SampleBatch>& per_device, SampleBatch& out);

// The GPU-level values the sampler reads only every slow interval (energy, PCIe
// throughput, the health counters: remapped rows, retired pages, NVLink errors;
// nvml::NvmlSamplerOptions::slow_interval_us), last seen per GPU, so that
// /metrics keeps showing them on the passes in between (a scrape must not lose a series).
struct HeldSlowValue {
  Metric metric = Metric::kOther;
  double value = 0;
  std::string source_name;
  bool seen = false;
};
using HeldSlowValues = std::vector<std::vector<HeldSlowValue>>;  // [gpu][slot]

// Takes the slow values `batch` has into `held` (sized here to `gpus` GPUs).
void HoldSlowValues(const SampleBatch& batch, size_t gpus, HeldSlowValues& held);
// Whether `batch` lacks a held value for one of its GPU-level entities.
bool MissesHeldValues(const SampleBatch& batch, const HeldSlowValues& held);
// Appends the held values `batch` lacks to its GPU-level entities.
void AddHeldValues(const HeldSlowValues& held, SampleBatch& batch);

// The per-process utilization (process_sm/mem_util_pct), which the sampler also reads only
// every slow interval, from the last pass that read it on each GPU: /metrics and the pod
// shares show it until the next read while the process still runs (has its entity).
struct HeldProcessValue {
  int64_t pid = -1;
  Metric metric = Metric::kOther;
  double value = 0;
  std::string source_name;
};
using HeldProcessValues = std::vector<std::vector<HeldProcessValue>>;  // [gpu]

// For each GPU d with read[d] != 0 (its process utilization was read in this pass):
// held[d] = the process utilization values `batch` has on it; none when no process was
// active. The other GPUs keep theirs.
void HoldProcessValues(const SampleBatch& batch, const std::vector<uint8_t>& read, HeldProcessValues& held);
// Whether one of `batch`'s processes lacks a value held for it.
bool MissesHeldProcessValues(const SampleBatch& batch, const HeldProcessValues& held);
// Appends the held values `batch`'s processes lack.
void AddHeldProcessValues(const HeldProcessValues& held, SampleBatch& batch);

}  // namespace kraken::agent
