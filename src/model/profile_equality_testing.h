// Test helper: expects two profiles to be equal in every field of the model, doubles
// compared bit for bit (NaN equal to NaN), names by their text (each profile resolves its
// own string ids: an importer interns in its own order). Used by the store's round trip
// and by kraken's export read back. The static_asserts (x86-64 sizes) fail the build when
// a model struct grows: a new field must then be stored (a store schema migration),
// exported (src/report/profile_export.cc), read back (src/importers/kraken_json) and
// compared here.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string_view>
#include <tuple>
#include <utility>

#include "model/profile.h"

namespace kraken::testing {

#if defined(__x86_64__)
static_assert(sizeof(Kernel) == 128, "Kernel changed: see the top of this file");
static_assert(sizeof(MemoryOp) == 64, "MemoryOp changed: see the top of this file");
static_assert(sizeof(CpuOp) == 56, "CpuOp changed: see the top of this file");
static_assert(sizeof(RuntimeCall) == 64, "RuntimeCall changed: see the top of this file");
static_assert(sizeof(StepAnnotation) == 32, "StepAnnotation changed: see the top of this file");
static_assert(sizeof(SyncEvent) == 40, "SyncEvent changed: see the top of this file");
static_assert(sizeof(KernelCounters) == 288, "KernelCounters changed: see the top of this file");
static_assert(sizeof(CollectiveInfo) == 184, "CollectiveInfo changed: see the top of this file");
static_assert(sizeof(DeviceInfo) == 360, "DeviceInfo changed: see the top of this file");
static_assert(sizeof(MigInstance) == 56, "MigInstance changed: see the top of this file");
static_assert(sizeof(SeriesEntity) == 360, "SeriesEntity changed: see the top of this file");
static_assert(sizeof(Series) == 424, "Series changed: see the top of this file");
static_assert(sizeof(ProfileMetadata) == 224, "ProfileMetadata changed: see the top of this file");
static_assert(sizeof(ProfilerRange) == 80, "ProfilerRange changed: see the top of this file");
static_assert(sizeof(MetricDeclaration) == 136, "MetricDeclaration changed: see the top of this file");
static_assert(sizeof(Profile) == 720, "Profile changed: see the top of this file");
static_assert(sizeof(KernelLabel) == 96, "KernelLabel changed: see the top of this file");
#endif

inline bool Same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}
inline bool Same(const std::optional<double>& a, const std::optional<double>& b) {
  return a.has_value() == b.has_value() && (!a || Same(*a, *b));
}
// Names: interned text, compared as text.
struct Name {
  std::string_view text;
  bool operator==(const Name&) const = default;
};
template <typename T>
bool Same(const T& a, const T& b) {
  return a == b;
}
template <typename Tuple, size_t... I>
bool SameTuple(const Tuple& a, const Tuple& b, std::index_sequence<I...>) {
  return (Same(std::get<I>(a), std::get<I>(b)) && ...);
}
template <typename... T>
bool SameFields(const std::tuple<T...>& a, const std::tuple<T...>& b) {
  return SameTuple(a, b, std::index_sequence_for<T...>{});
}

// Each record's fields in one tuple; the profile resolves its names.
inline auto Fields(const Profile& p, const Kernel& k) {
  return std::tuple_cat(std::make_tuple(Name{p.Name(k.name)}),
                        std::tie(k.start_ns, k.duration_ns, k.device, k.stream, k.correlation_id, k.external_id, k.grid,
                                 k.block, k.registers_per_thread, k.shared_memory_bytes, k.blocks_per_sm,
                                 k.warps_per_sm, k.est_achieved_occupancy_pct, k.counters_index, k.collective_index));
}
inline auto Fields(const Profile& p, const MemoryOp& m) {
  return std::tuple_cat(std::make_tuple(Name{p.Name(m.name)}),
                        std::tie(m.start_ns, m.duration_ns, m.device, m.stream, m.correlation_id, m.bytes, m.kind,
                                 m.direction, m.pageable_host_memory));
}
inline auto Fields(const Profile& p, const CpuOp& c) {
  return std::tuple_cat(std::make_tuple(Name{p.Name(c.name)}),
                        std::tie(c.start_ns, c.duration_ns, c.pid, c.tid, c.external_id, c.category));
}
inline auto Fields(const Profile& p, const RuntimeCall& r) {
  return std::tuple_cat(std::make_tuple(Name{p.Name(r.name)}),
                        std::tie(r.start_ns, r.duration_ns, r.pid, r.tid, r.correlation_id, r.external_id,
                                 r.is_driver_api));
}
inline auto Fields(const Profile&, const StepAnnotation& s) {
  return std::tie(s.step_number, s.start_ns, s.duration_ns, s.tid);
}
inline auto Fields(const Profile& p, const SyncEvent& s) {
  return std::tuple_cat(std::make_tuple(Name{p.Name(s.name)}), std::tie(s.start_ns, s.duration_ns, s.device, s.stream));
}
inline auto Fields(const Profile&, const KernelCounters& c) {
  return std::tie(c.fp64_flops, c.fp32_flops, c.fp16_flops, c.tensor_flops, c.dram_bytes, c.l2_bytes, c.l1_bytes,
                  c.sm_throughput_pct, c.dram_throughput_pct, c.memory_throughput_pct, c.tensor_pipe_active_pct,
                  c.achieved_occupancy_pct, c.sm_clock_hz, c.dram_clock_hz, c.peak_fp32_flops_per_s,
                  c.peak_fp64_flops_per_s, c.peak_dram_bytes_per_s, c.peak_tensor_flops_per_s);
}
inline auto Fields(const Profile&, const CollectiveInfo& c) {
  return std::tie(c.collective_name, c.in_msg_nelems, c.out_msg_nelems, c.group_size, c.dtype, c.process_group_name,
                  c.process_group_description, c.process_group_ranks);
}
inline auto Fields(const Profile& p, const ProfilerRange& r) {
  return std::tuple_cat(std::make_tuple(Name{p.Name(r.name)}),
                        std::tie(r.start_ns, r.duration_ns, r.counters_index, r.raw_counters));
}
inline auto Fields(const Profile&, const MetricDeclaration& d) {
  return std::tie(d.source_name, d.type, d.help, d.metric, d.current_name);
}
inline auto Fields(const Profile&, const KernelLabel& l) { return std::tie(l.kernel, l.label, l.source); }
inline auto Fields(const Profile&, const MigInstance& m) {
  return std::tie(m.gpu_instance_id, m.compute_instance_id, m.profile, m.memory_bytes, m.sm_count);
}
inline auto Fields(const Profile&, const DeviceInfo& d) {
  return std::tie(d.index, d.name, d.vendor, d.uuid, d.pci_bus_id, d.architecture, d.sm_count, d.compute_major,
                  d.compute_minor, d.memory_bytes, d.warp_size, d.max_threads_per_sm, d.registers_per_sm,
                  d.shared_memory_per_sm_bytes, d.max_sm_clock_mhz, d.max_mem_clock_mhz, d.power_limit_w,
                  d.pcie_generation, d.pcie_link_width, d.driver_version, d.cuda_version, d.mig_enabled,
                  d.mig_enabled_pending, d.minor_number);
}
inline auto Fields(const SeriesEntity& e) {
  return std::tie(e.gpu_index, e.gpu_uuid, e.gpu_name, e.pci_bus_id, e.gpu_instance_id, e.mig_profile, e.pid,
                  e.process_name, e.hostname, e.pod, e.namespace_name, e.container, e.labels);
}
inline auto Fields(const ProfileMetadata& m) {
  return std::tie(m.source, m.format, m.rank, m.world_size, m.distributed_backend, m.hostname, m.base_time_ns,
                  m.accelerator_vendor, m.kernel_timestamps_valid, m.attributes);
}

template <typename T>
void ExpectSameRecords(const char* what, const Profile& pa, const std::vector<T>& a, const Profile& pb,
                       const std::vector<T>& b) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    if (!SameFields(Fields(pa, a[i]), Fields(pb, b[i]))) {
      ADD_FAILURE() << what << " " << i << " differs after the round trip";
      return;  // one message per table is enough
    }
}

inline void ExpectSameSeries(const std::vector<Series>& a, const std::vector<Series>& b) {
  ASSERT_EQ(a.size(), b.size()) << "series";
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].metric, b[i].metric) << "series " << i;
    EXPECT_EQ(a[i].axis, b[i].axis) << "series " << i;
    EXPECT_EQ(a[i].source_name, b[i].source_name) << "series " << i;
    EXPECT_TRUE(SameFields(Fields(a[i].entity), Fields(b[i].entity))) << "series " << i << " entity";
    ASSERT_EQ(a[i].samples.size(), b[i].samples.size()) << "series " << i;
    for (size_t j = 0; j < a[i].samples.size(); ++j)
      if (a[i].samples[j].time_ns != b[i].samples[j].time_ns || !Same(a[i].samples[j].value, b[i].samples[j].value)) {
        ADD_FAILURE() << "series " << i << " sample " << j << " differs";
        break;
      }
  }
}

inline void ExpectProfilesEqual(const Profile& a, const Profile& b) {
  EXPECT_TRUE(SameFields(Fields(a.metadata), Fields(b.metadata))) << "metadata";
  ExpectSameRecords("device", a, a.devices, b, b.devices);
  for (size_t i = 0; i < std::min(a.devices.size(), b.devices.size()); ++i)
    ExpectSameRecords("MIG instance", a, a.devices[i].mig_instances, b, b.devices[i].mig_instances);
  ExpectSameRecords("kernel", a, a.kernels, b, b.kernels);
  ExpectSameRecords("memory op", a, a.memory_ops, b, b.memory_ops);
  ExpectSameRecords("CPU op", a, a.cpu_ops, b, b.cpu_ops);
  ExpectSameRecords("runtime call", a, a.runtime_calls, b, b.runtime_calls);
  ExpectSameRecords("step", a, a.steps, b, b.steps);
  ExpectSameRecords("sync", a, a.syncs, b, b.syncs);
  ExpectSameRecords("kernel counters", a, a.kernel_counters, b, b.kernel_counters);
  ExpectSameRecords("collective", a, a.collectives, b, b.collectives);
  ExpectSameRecords("profiler range", a, a.profiler_ranges, b, b.profiler_ranges);
  ExpectSameSeries(a.series, b.series);
  ExpectSameRecords("metric declaration", a, a.metric_declarations, b, b.metric_declarations);
  ExpectSameRecords("kernel label", a, a.kernel_labels, b, b.kernel_labels);
  EXPECT_EQ(a.import_counters, b.import_counters);
}

// The string tables entry for entry: the store keeps a profile's ids, not only its names.
inline void ExpectSameStringTable(const Profile& a, const Profile& b) {
  ASSERT_EQ(a.strings.size(), b.strings.size()) << "strings";
  for (size_t i = 0; i < a.strings.size(); ++i)
    ASSERT_EQ(a.strings.Get(static_cast<StringId>(i)), b.strings.Get(static_cast<StringId>(i))) << "string " << i;
}

}  // namespace kraken::testing
