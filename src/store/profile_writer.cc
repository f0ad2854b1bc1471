// Writes the tables of one profile except its series (series_tables.cc).
#include <chrono>

#include "store/profile_tables.h"

namespace kraken::store {

std::string Placeholders(int count) {
  std::string s;
  for (int i = 0; i < count; ++i) s += i == 0 ? "?" : ", ?";
  return s;
}

TimeNs NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void ProfileTotals::Extend(TimeNs begin, TimeNs end) {
  if (!start_ns || begin < *start_ns) start_ns = begin;
  if (!end_ns || end > *end_ns) end_ns = end;
}

ProfileTotals ComputeTotals(const Profile& profile) {
  ProfileTotals t;
  t.devices = static_cast<int64_t>(profile.devices.size());
  t.kernels = static_cast<int64_t>(profile.kernels.size());
  t.memory_ops = static_cast<int64_t>(profile.memory_ops.size());
  t.cpu_ops = static_cast<int64_t>(profile.cpu_ops.size());
  t.runtime_calls = static_cast<int64_t>(profile.runtime_calls.size());
  t.series = static_cast<int64_t>(profile.series.size());
  // Replayed kernels (ncu, Orion) have no real timestamps: they say nothing of the span.
  if (profile.metadata.kernel_timestamps_valid)
    for (const Kernel& k : profile.kernels) t.Extend(k.start_ns, k.end_ns());
  for (const MemoryOp& m : profile.memory_ops) t.Extend(m.start_ns, m.end_ns());
  for (const CpuOp& c : profile.cpu_ops) t.Extend(c.start_ns, c.end_ns());
  for (const RuntimeCall& r : profile.runtime_calls) t.Extend(r.start_ns, r.end_ns());
  for (const Series& s : profile.series) {
    t.samples += static_cast<int64_t>(s.samples.size());
    for (const Sample& sample : s.samples) t.Extend(sample.time_ns, sample.time_ns);
  }
  return t;
}

Result<int64_t> InsertProfileRow(Db& db, const ProfileMetadata& md, std::string_view kind,
                                 const std::optional<ProfileOwner>& owner, TimeNs created_ns) {
  KRAKEN_ASSIGN_OR_RETURN(
      Statement insert,
      db.Prepare("INSERT INTO profiles(created_ns, complete, kind, source, format, rank, world_size, "
                 "distributed_backend, hostname, base_time_ns, accelerator_vendor, kernel_timestamps_valid, "
                 "owner_host, owner_pid, owner_start) VALUES(?, 0, " + Placeholders(13) + ") RETURNING id"));
  insert.Int(created_ns).Text(kind).Text(md.source).Text(md.format).OptionalInt(md.rank).OptionalInt(md.world_size);
  insert.Text(md.distributed_backend).Text(md.hostname).Int(md.base_time_ns);
  insert.Int(static_cast<int64_t>(md.accelerator_vendor)).Int(md.kernel_timestamps_valid ? 1 : 0);
  if (owner) {
    insert.Text(owner->host).Int(owner->pid).Text(owner->start);
  } else {
    insert.Null().Null().Null();
  }
  // RETURNING: the new id from the insert itself, on SQLite (3.35+) and PostgreSQL alike.
  KRAKEN_ASSIGN_OR_RETURN(bool inserted, insert.Step());
  if (!inserted) return Status(StatusCode::kInternal, db.path() + ": the profile insert returned no id");
  int64_t id = insert.ColumnInt(0);
  insert.Reset();
  KRAKEN_ASSIGN_OR_RETURN(Statement attr, db.Prepare("INSERT INTO profile_attributes VALUES(?, ?, ?)"));
  for (const auto& [key, value] : md.attributes) KRAKEN_RETURN_IF_ERROR(attr.Int(id).Text(key).Text(value).Run());
  return id;
}

Status MarkComplete(Db& db, int64_t id, const ProfileTotals& t) {
  KRAKEN_ASSIGN_OR_RETURN(
      Statement update,
      db.Prepare("UPDATE profiles SET complete = 1, owner_host = NULL, owner_pid = NULL, owner_start = NULL, "
                 "device_count = ?, kernel_count = ?, memory_op_count = ?, cpu_op_count = ?, "
                 "runtime_call_count = ?, series_count = ?, sample_count = ?, start_ns = ?, end_ns = ? "
                 "WHERE id = ?"));
  update.Int(t.devices).Int(t.kernels).Int(t.memory_ops).Int(t.cpu_ops).Int(t.runtime_calls).Int(t.series);
  update.Int(t.samples).OptionalInt(t.start_ns).OptionalInt(t.end_ns).Int(id);
  return update.Run();
}

Status WriteDevices(Db& db, int64_t id, const std::vector<DeviceInfo>& devices) {
  KRAKEN_ASSIGN_OR_RETURN(Statement insert, db.Prepare("INSERT INTO devices VALUES(" + Placeholders(26) + ")"));
  KRAKEN_ASSIGN_OR_RETURN(Statement mig, db.Prepare("INSERT INTO mig_instances VALUES(" + Placeholders(8) + ")"));
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    insert.Int(id).Int(static_cast<int64_t>(i)).Int(d.index).Text(d.name).Int(static_cast<int64_t>(d.vendor));
    insert.Text(d.uuid).Text(d.pci_bus_id).Text(d.architecture).Int(d.sm_count).Int(d.compute_major);
    insert.Int(d.compute_minor).Int(d.memory_bytes).Int(d.warp_size).Int(d.max_threads_per_sm);
    insert.Int(d.registers_per_sm).Int(d.shared_memory_per_sm_bytes).OptionalDouble(d.max_sm_clock_mhz);
    insert.OptionalDouble(d.max_mem_clock_mhz).OptionalDouble(d.power_limit_w);
    insert.OptionalInt(d.pcie_generation ? std::optional<int64_t>(*d.pcie_generation) : std::nullopt);
    insert.OptionalInt(d.pcie_link_width ? std::optional<int64_t>(*d.pcie_link_width) : std::nullopt);
    insert.Text(d.driver_version).Text(d.cuda_version).Int(d.mig_enabled).Int(d.mig_enabled_pending);
    insert.Int(d.minor_number);
    KRAKEN_RETURN_IF_ERROR(insert.Run());
    for (size_t j = 0; j < d.mig_instances.size(); ++j) {
      const MigInstance& m = d.mig_instances[j];
      mig.Int(id).Int(static_cast<int64_t>(i)).Int(static_cast<int64_t>(j)).Int(m.gpu_instance_id);
      mig.Int(m.compute_instance_id).Text(m.profile).Int(m.memory_bytes).Int(m.sm_count);
      KRAKEN_RETURN_IF_ERROR(mig.Run());
    }
  }
  return Status::Ok();
}

namespace {

// Prepares "INSERT INTO <table> VALUES(...)"; for each item binds (profile_id, seq) and
// then the item's own columns with `bind`.
template <typename T, typename BindFn>
Status InsertAll(Db& db, const char* table, int columns, int64_t id, const std::vector<T>& items,
                 BindFn bind) {
  if (items.empty()) return Status::Ok();
  KRAKEN_ASSIGN_OR_RETURN(Statement insert, db.Prepare(std::string("INSERT INTO ") + table + " VALUES(" +
                                                       Placeholders(columns) + ")"));
  for (size_t i = 0; i < items.size(); ++i) {
    insert.Int(id).Int(static_cast<int64_t>(i));
    bind(insert, items[i]);
    KRAKEN_RETURN_IF_ERROR(insert.Run());
  }
  return Status::Ok();
}

}  // namespace

Status WriteEvents(Db& db, int64_t id, const Profile& p) {
  std::vector<std::string_view> strings;
  for (size_t i = 0; i < p.strings.size(); ++i) strings.push_back(p.strings.Get(static_cast<StringId>(i)));
  KRAKEN_RETURN_IF_ERROR(InsertAll(db, "strings", 3, id, strings, [&](Statement& s, std::string_view text) {
    s.Text(text);
  }));
  KRAKEN_RETURN_IF_ERROR(InsertAll(db, "kernels", 22, id, p.kernels, [&](Statement& s, const Kernel& k) {
    s.Int(k.name).Int(k.start_ns).Int(k.duration_ns).Int(k.device).Int(k.stream).Int(k.correlation_id);
    s.Int(k.external_id).Int(k.grid[0]).Int(k.grid[1]).Int(k.grid[2]).Int(k.block[0]).Int(k.block[1]);
    s.Int(k.block[2]).Int(k.registers_per_thread).Int(k.shared_memory_bytes).Double(k.blocks_per_sm);
    s.Double(k.warps_per_sm).Double(k.est_achieved_occupancy_pct).Int(k.counters_index).Int(k.collective_index);
  }));
  KRAKEN_RETURN_IF_ERROR(InsertAll(db, "memory_ops", 12, id, p.memory_ops, [&](Statement& s, const MemoryOp& m) {
    s.Int(m.name).Int(m.start_ns).Int(m.duration_ns).Int(m.device).Int(m.stream).Int(m.correlation_id);
    s.Int(m.bytes).Int(static_cast<int64_t>(m.kind)).Int(static_cast<int64_t>(m.direction));
    s.Int(m.pageable_host_memory);
  }));
  KRAKEN_RETURN_IF_ERROR(InsertAll(db, "cpu_ops", 9, id, p.cpu_ops, [&](Statement& s, const CpuOp& c) {
    s.Int(c.name).Int(c.start_ns).Int(c.duration_ns).Int(c.pid).Int(c.tid).Int(c.external_id);
    s.Int(static_cast<int64_t>(c.category));
  }));
  KRAKEN_RETURN_IF_ERROR(InsertAll(
      db, "runtime_calls", 10, id, p.runtime_calls, [&](Statement& s, const RuntimeCall& r) {
    s.Int(r.name).Int(r.start_ns).Int(r.duration_ns).Int(r.pid).Int(r.tid).Int(r.correlation_id);
    s.Int(r.external_id).Int(r.is_driver_api);
  }));
  KRAKEN_RETURN_IF_ERROR(InsertAll(db, "steps", 6, id, p.steps, [&](Statement& s, const StepAnnotation& a) {
    s.Int(a.step_number).Int(a.start_ns).Int(a.duration_ns).Int(a.tid);
  }));
  KRAKEN_RETURN_IF_ERROR(InsertAll(db, "syncs", 7, id, p.syncs, [&](Statement& s, const SyncEvent& e) {
    s.Int(e.name).Int(e.start_ns).Int(e.duration_ns).Int(e.device).Int(e.stream);
  }));
  KRAKEN_RETURN_IF_ERROR(InsertAll(
      db, "kernel_counters", 20, id, p.kernel_counters, [&](Statement& s, const KernelCounters& c) {
    s.OptionalDouble(c.fp64_flops).OptionalDouble(c.fp32_flops).OptionalDouble(c.fp16_flops);
    s.OptionalDouble(c.tensor_flops).OptionalDouble(c.dram_bytes).OptionalDouble(c.l2_bytes);
    s.OptionalDouble(c.l1_bytes).OptionalDouble(c.sm_throughput_pct).OptionalDouble(c.dram_throughput_pct);
    s.OptionalDouble(c.memory_throughput_pct).OptionalDouble(c.tensor_pipe_active_pct);
    s.OptionalDouble(c.achieved_occupancy_pct).OptionalDouble(c.sm_clock_hz).OptionalDouble(c.dram_clock_hz);
    s.OptionalDouble(c.peak_fp32_flops_per_s).OptionalDouble(c.peak_fp64_flops_per_s);
    s.OptionalDouble(c.peak_dram_bytes_per_s).OptionalDouble(c.peak_tensor_flops_per_s);
  }));
  KRAKEN_RETURN_IF_ERROR(InsertAll(
      db, "collectives", 10, id, p.collectives, [&](Statement& s, const CollectiveInfo& c) {
    s.Text(c.collective_name).Int(c.in_msg_nelems).Int(c.out_msg_nelems).Int(c.group_size).Text(c.dtype);
    s.Text(c.process_group_name).Text(c.process_group_description).Text(c.process_group_ranks);
  }));
  KRAKEN_RETURN_IF_ERROR(InsertAll(
      db, "profiler_ranges", 6, id, p.profiler_ranges, [&](Statement& s, const ProfilerRange& r) {
    s.Int(r.name).Int(r.start_ns).Int(r.duration_ns).Int(r.counters_index);
  }));
  KRAKEN_ASSIGN_OR_RETURN(Statement raw, db.Prepare("INSERT INTO profiler_range_counters VALUES(?, ?, ?, ?)"));
  for (size_t i = 0; i < p.profiler_ranges.size(); ++i)
    for (const auto& [name, value] : p.profiler_ranges[i].raw_counters)
      KRAKEN_RETURN_IF_ERROR(raw.Int(id).Int(static_cast<int64_t>(i)).Text(name).Double(value).Run());
  KRAKEN_RETURN_IF_ERROR(InsertAll(
      db, "metric_declarations", 7, id, p.metric_declarations, [&](Statement& s, const MetricDeclaration& d) {
    s.Text(d.source_name).Text(d.type).Text(d.help).Text(GetMetricInfo(d.metric).name).Text(d.current_name);
  }));
  KRAKEN_RETURN_IF_ERROR(InsertAll(
      db, "kernel_labels", 5, id, p.kernel_labels, [&](Statement& s, const KernelLabel& l) {
    s.Text(l.kernel).Text(l.label).Text(l.source);
  }));
  KRAKEN_ASSIGN_OR_RETURN(Statement counter, db.Prepare("INSERT INTO import_counters VALUES(?, ?, ?)"));
  for (const auto& [name, value] : p.import_counters)
    KRAKEN_RETURN_IF_ERROR(counter.Int(id).Text(name).Int(value).Run());
  return Status::Ok();
}

Status DeleteProfileRows(Db& db, int64_t id) {
  static constexpr const char* kTables[] = {
      "profile_attributes", "import_counters", "strings", "devices", "mig_instances", "kernels",
      "memory_ops", "cpu_ops", "runtime_calls", "steps", "syncs", "kernel_counters", "collectives",
      "profiler_ranges", "profiler_range_counters", "metric_declarations", "kernel_labels"};
  KRAKEN_ASSIGN_OR_RETURN(Statement blocks, db.Prepare("DELETE FROM sample_blocks WHERE series_id IN "
                                                       "(SELECT id FROM series WHERE profile_id = ?)"));
  KRAKEN_RETURN_IF_ERROR(blocks.Int(id).Run());
  KRAKEN_ASSIGN_OR_RETURN(Statement labels, db.Prepare("DELETE FROM series_labels WHERE series_id IN "
                                                       "(SELECT id FROM series WHERE profile_id = ?)"));
  KRAKEN_RETURN_IF_ERROR(labels.Int(id).Run());
  KRAKEN_ASSIGN_OR_RETURN(Statement series, db.Prepare("DELETE FROM series WHERE profile_id = ?"));
  KRAKEN_RETURN_IF_ERROR(series.Int(id).Run());
  for (const char* table : kTables) {
    KRAKEN_ASSIGN_OR_RETURN(Statement rows, db.Prepare(std::string("DELETE FROM ") + table + " WHERE profile_id = ?"));
    KRAKEN_RETURN_IF_ERROR(rows.Int(id).Run());
  }
  KRAKEN_ASSIGN_OR_RETURN(Statement profile, db.Prepare("DELETE FROM profiles WHERE id = ?"));
  return profile.Int(id).Run();
}

}  // namespace kraken::store
