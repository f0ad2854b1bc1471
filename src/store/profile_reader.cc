// Reads a stored profile back into the model, table by table, in the order it was written.
#include "store/profile_tables.h"
#include "store/row_loop.h"

namespace kraken::store {
namespace {

Status ReadMetadata(Db& db, int64_t id, ProfileMetadata* md) {
  KRAKEN_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT source, format, rank, world_size, distributed_backend, hostname, base_time_ns, "
                 "accelerator_vendor, kernel_timestamps_valid FROM profiles WHERE id = ?"));
  KRAKEN_ASSIGN_OR_RETURN(bool found, select.Int(id).Step());
  if (!found) return NotFound("no profile " + std::to_string(id));
  RowReader r(select);
  md->source = r.Text();
  md->format = r.Text();
  md->rank = r.OptionalInt();
  md->world_size = r.OptionalInt();
  md->distributed_backend = r.Text();
  md->hostname = r.Text();
  md->base_time_ns = r.Int();
  md->accelerator_vendor = static_cast<Vendor>(r.Int());
  md->kernel_timestamps_valid = r.Bool();
  return ForEachRow(
      db, "key, value", "profile_attributes", id,
      [&](RowReader& r) {
        std::string key = r.Text();
        md->attributes[key] = r.Text();
        return Status::Ok();
      },
      "key");
}

Status ReadStrings(Db& db, int64_t id, StringTable* strings) {
  return ForEachRow(
      db, "id, text", "strings", id,
      [&](RowReader& r) {
        int64_t string_id = r.Int();
        std::string text = r.Text();
        // The table was written from a StringTable: ids 0..n-1, each text once, id 0 = "".
        if (strings->Intern(text) != string_id)
          return InvalidInput("profile " + std::to_string(id) + ": string table is damaged at id " +
                              std::to_string(string_id));
        return Status::Ok();
      },
      "id");
}

Status ReadDevices(Db& db, int64_t id, std::vector<DeviceInfo>* devices) {
  KRAKEN_RETURN_IF_ERROR(ForEachRow(
      db, "device_index, name, vendor, uuid, pci_bus_id, architecture, sm_count, compute_major, compute_minor, "
          "memory_bytes, warp_size, max_threads_per_sm, registers_per_sm, shared_memory_per_sm_bytes, "
          "max_sm_clock_mhz, max_mem_clock_mhz, power_limit_w, pcie_generation, pcie_link_width, driver_version, "
          "cuda_version, mig_enabled, mig_enabled_pending, minor_number",
      "devices", id, [&](RowReader& r) {
        DeviceInfo& d = devices->emplace_back();
        d.index = r.Int32();
        d.name = r.Text();
        d.vendor = static_cast<Vendor>(r.Int());
        d.uuid = r.Text();
        d.pci_bus_id = r.Text();
        d.architecture = r.Text();
        d.sm_count = r.Int32();
        d.compute_major = r.Int32();
        d.compute_minor = r.Int32();
        d.memory_bytes = r.Int();
        d.warp_size = r.Int32();
        d.max_threads_per_sm = r.Int32();
        d.registers_per_sm = r.Int32();
        d.shared_memory_per_sm_bytes = r.Int();
        d.max_sm_clock_mhz = r.OptionalDouble();
        d.max_mem_clock_mhz = r.OptionalDouble();
        d.power_limit_w = r.OptionalDouble();
        if (auto v = r.OptionalInt()) d.pcie_generation = static_cast<int>(*v);
        if (auto v = r.OptionalInt()) d.pcie_link_width = static_cast<int>(*v);
        d.driver_version = r.Text();
        d.cuda_version = r.Text();
        d.mig_enabled = r.Bool();
        d.mig_enabled_pending = r.Bool();
        d.minor_number = r.Int32();
        return Status::Ok();
      }));
  return ForEachRow(
      db, "device_seq, gpu_instance_id, compute_instance_id, profile, memory_bytes, sm_count", "mig_instances", id,
      [&](RowReader& r) {
        int64_t device = r.Int();
        if (device < 0 || device >= static_cast<int64_t>(devices->size()))
          return InvalidInput("profile " + std::to_string(id) + ": MIG instance of a missing device");
        MigInstance& m = (*devices)[static_cast<size_t>(device)].mig_instances.emplace_back();
        m.gpu_instance_id = r.Int32();
        m.compute_instance_id = r.Int32();
        m.profile = r.Text();
        m.memory_bytes = r.Int();
        m.sm_count = r.Int32();
        return Status::Ok();
      },
      "device_seq, seq");
}

// Names are StringIds into the profile's table: one outside it means a damaged database.
Status CheckName(int64_t id, const Profile& p, int64_t name, StringId* out) {
  if (name < 0 || name >= static_cast<int64_t>(p.strings.size()))
    return InvalidInput("profile " + std::to_string(id) + ": event names string " + std::to_string(name) +
                        " that is not stored");
  *out = static_cast<StringId>(name);
  return Status::Ok();
}

Status ReadTimelines(Db& db, int64_t id, Profile* p) {
  KRAKEN_RETURN_IF_ERROR(ForEachRow(db, "*", "kernels", id, [&](RowReader& r) {
    r.Int(), r.Int();  // profile_id, seq
    Kernel& k = p->kernels.emplace_back();
    KRAKEN_RETURN_IF_ERROR(CheckName(id, *p, r.Int(), &k.name));
    k.start_ns = r.Int();
    k.duration_ns = r.Int();
    k.device = r.Int32();
    k.stream = r.Int();
    k.correlation_id = r.Int();
    k.external_id = r.Int();
    for (int32_t& v : k.grid) v = r.Int32();
    for (int32_t& v : k.block) v = r.Int32();
    k.registers_per_thread = r.Int32();
    k.shared_memory_bytes = r.Int();
    k.blocks_per_sm = r.Double();
    k.warps_per_sm = r.Double();
    k.est_achieved_occupancy_pct = r.Double();
    k.counters_index = r.Int32();
    k.collective_index = r.Int32();
    return Status::Ok();
  }));
  KRAKEN_RETURN_IF_ERROR(ForEachRow(db, "*", "memory_ops", id, [&](RowReader& r) {
    r.Int(), r.Int();
    MemoryOp& m = p->memory_ops.emplace_back();
    KRAKEN_RETURN_IF_ERROR(CheckName(id, *p, r.Int(), &m.name));
    m.start_ns = r.Int();
    m.duration_ns = r.Int();
    m.device = r.Int32();
    m.stream = r.Int();
    m.correlation_id = r.Int();
    m.bytes = r.Int();
    m.kind = static_cast<MemoryOpKind>(r.Int());
    m.direction = static_cast<CopyDirection>(r.Int());
    m.pageable_host_memory = r.Bool();
    return Status::Ok();
  }));
  KRAKEN_RETURN_IF_ERROR(ForEachRow(db, "*", "cpu_ops", id, [&](RowReader& r) {
    r.Int(), r.Int();
    CpuOp& c = p->cpu_ops.emplace_back();
    KRAKEN_RETURN_IF_ERROR(CheckName(id, *p, r.Int(), &c.name));
    c.start_ns = r.Int();
    c.duration_ns = r.Int();
    c.pid = r.Int();
    c.tid = r.Int();
    c.external_id = r.Int();
    c.category = static_cast<CpuOpCategory>(r.Int());
    return Status::Ok();
  }));
  KRAKEN_RETURN_IF_ERROR(ForEachRow(db, "*", "runtime_calls", id, [&](RowReader& r) {
    r.Int(), r.Int();
    RuntimeCall& c = p->runtime_calls.emplace_back();
    KRAKEN_RETURN_IF_ERROR(CheckName(id, *p, r.Int(), &c.name));
    c.start_ns = r.Int();
    c.duration_ns = r.Int();
    c.pid = r.Int();
    c.tid = r.Int();
    c.correlation_id = r.Int();
    c.external_id = r.Int();
    c.is_driver_api = r.Bool();
    return Status::Ok();
  }));
  KRAKEN_RETURN_IF_ERROR(ForEachRow(db, "step_number, start_ns, duration_ns, tid", "steps", id, [&](RowReader& r) {
    StepAnnotation& s = p->steps.emplace_back();
    s.step_number = r.Int();
    s.start_ns = r.Int();
    s.duration_ns = r.Int();
    s.tid = r.Int();
    return Status::Ok();
  }));
  return ForEachRow(db, "name_id, start_ns, duration_ns, device, stream", "syncs", id, [&](RowReader& r) {
    SyncEvent& s = p->syncs.emplace_back();
    KRAKEN_RETURN_IF_ERROR(CheckName(id, *p, r.Int(), &s.name));
    s.start_ns = r.Int();
    s.duration_ns = r.Int();
    s.device = r.Int32();
    s.stream = r.Int();
    return Status::Ok();
  });
}

}  // namespace

Status ReadProfileTables(Db& db, int64_t id, bool samples, Profile* p) {
  KRAKEN_RETURN_IF_ERROR(ReadMetadata(db, id, &p->metadata));
  KRAKEN_RETURN_IF_ERROR(ReadStrings(db, id, &p->strings));
  KRAKEN_RETURN_IF_ERROR(ReadDevices(db, id, &p->devices));
  KRAKEN_RETURN_IF_ERROR(ReadTimelines(db, id, p));
  KRAKEN_RETURN_IF_ERROR(ReadRecordTables(db, id, p));
  KRAKEN_RETURN_IF_ERROR(ReadSeriesTables(db, id, samples, p));
  return Status::Ok();
}

}  // namespace kraken::store
