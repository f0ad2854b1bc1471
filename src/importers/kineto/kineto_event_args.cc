// EventParser's reader of an event's "args" object: the launch, copy, collective and
// allocator details kraken keeps, and the numeric args of profiler ranges (counters).
#include <string>

#include "importers/kineto/kineto_event_parser_impl.h"
#include "importers/kineto/kineto_schema.h"

namespace kraken::kineto {
namespace {

enum class ArgKey {
  kUnknown,
  kDevice,
  kStream,
  kCorrelation,
  kExternalId,
  kRegisters,
  kSharedMemory,
  kBlocksPerSm,
  kWarpsPerSm,
  kGrid,
  kBlock,
  kOccupancy,
  kBytes,
  kCollectiveName,
  kInNelems,
  kOutNelems,
  kGroupSize,
  kDtype,
  kPgName,
  kPgDesc,
  kPgRanks,
  kDirection,
  kSize,
  kTotalAllocated,
  kTotalReserved,
  kDeviceId,
  kName,
  kKind,
};

// Switch on length first: this runs for every args key of every event.
ArgKey ClassifyArgKey(std::string_view k) {
  switch (k.size()) {
    case 4:
      if (KeyEquals(k, "grid")) return ArgKey::kGrid;
      if (KeyEquals(k, "size")) return ArgKey::kSize;
      if (KeyEquals(k, "name")) return ArgKey::kName;
      if (KeyEquals(k, "kind")) return ArgKey::kKind;
      break;
    case 5:
      if (KeyEquals(k, "block")) return ArgKey::kBlock;
      if (KeyEquals(k, "bytes")) return ArgKey::kBytes;
      if (KeyEquals(k, "dtype")) return ArgKey::kDtype;
      break;
    case 6:
      if (KeyEquals(k, "device")) return ArgKey::kDevice;
      if (KeyEquals(k, "stream")) return ArgKey::kStream;
      break;
    case 9:
      if (KeyEquals(k, "Device Id")) return ArgKey::kDeviceId;
      if (KeyEquals(k, "direction")) return ArgKey::kDirection;
      break;
    case 10:
      if (KeyEquals(k, "Group size")) return ArgKey::kGroupSize;
      break;
    case 11:
      if (KeyEquals(k, "correlation")) return ArgKey::kCorrelation;
      if (KeyEquals(k, "External id") || KeyEquals(k, "external id")) return ArgKey::kExternalId;
      break;
    case 12:
      if (KeyEquals(k, "warps per SM")) return ArgKey::kWarpsPerSm;
      break;
    case 13:
      if (KeyEquals(k, "shared memory")) return ArgKey::kSharedMemory;
      if (KeyEquals(k, "blocks per SM")) return ArgKey::kBlocksPerSm;
      if (KeyEquals(k, "In msg nelems")) return ArgKey::kInNelems;
      break;
    case 14:
      if (KeyEquals(k, "Out msg nelems")) return ArgKey::kOutNelems;
      if (KeyEquals(k, "Total Reserved")) return ArgKey::kTotalReserved;
      break;
    case 15:
      if (KeyEquals(k, "Collective name")) return ArgKey::kCollectiveName;
      if (KeyEquals(k, "Total Allocated")) return ArgKey::kTotalAllocated;
      break;
    case 18:
      if (KeyEquals(k, "Process Group Name")) return ArgKey::kPgName;
      break;
    case 19:
      if (KeyEquals(k, "Process Group Ranks")) return ArgKey::kPgRanks;
      break;
    case 20:
      if (KeyEquals(k, "registers per thread")) return ArgKey::kRegisters;
      break;
    case 25:
      if (KeyEquals(k, "est. achieved occupancy %")) return ArgKey::kOccupancy;
      if (KeyEquals(k, "Process Group Description")) return ArgKey::kPgDesc;
      break;
    default:
      break;
  }
  return ArgKey::kUnknown;
}

}  // namespace

bool EventParser::Impl::ReadArgs(od::value& value) {
  od::object args;
  if (value.get_object().get(args)) return false;
  for (auto field_result : args) {
    od::field field;
    if (std::move(field_result).get(field)) return false;
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    od::value v = field.value();
    switch (ClassifyArgKey(key)) {
      case ArgKey::kDevice: ValueToInt(v, &ev.device); break;
      case ArgKey::kStream: ValueToInt(v, &ev.stream); break;
      case ArgKey::kCorrelation: ValueToInt(v, &ev.correlation); break;
      case ArgKey::kExternalId: ValueToInt(v, &ev.external_id); break;
      case ArgKey::kRegisters: ValueToInt(v, &ev.registers); break;
      case ArgKey::kSharedMemory: ValueToInt(v, &ev.shared_memory); break;
      case ArgKey::kBlocksPerSm: ValueToDouble(v, &ev.blocks_per_sm); break;
      case ArgKey::kWarpsPerSm: ValueToDouble(v, &ev.warps_per_sm); break;
      case ArgKey::kGrid: ValueToDim3(v, &ev.grid, &json_error); break;
      case ArgKey::kBlock: ValueToDim3(v, &ev.block, &json_error); break;
      case ArgKey::kOccupancy: ValueToDouble(v, &ev.occupancy); break;
      case ArgKey::kBytes: ValueToInt(v, &ev.bytes); break;
      case ArgKey::kSize: ValueToInt(v, &ev.size); break;
      case ArgKey::kInNelems: ValueToInt(v, &ev.in_nelems); break;
      case ArgKey::kOutNelems: ValueToInt(v, &ev.out_nelems); break;
      case ArgKey::kGroupSize: ValueToInt(v, &ev.group_size); break;
      case ArgKey::kTotalAllocated: ValueToInt(v, &ev.total_allocated); break;
      case ArgKey::kTotalReserved: ValueToInt(v, &ev.total_reserved); break;
      case ArgKey::kDeviceId: ValueToInt(v, &ev.device_id); break;
      case ArgKey::kCollectiveName: ev.collective_name = ValueToString(v, &json_error); break;
      case ArgKey::kDtype: ev.dtype = ValueToString(v, &json_error); break;
      case ArgKey::kPgName: ev.pg_name = ValueToString(v, &json_error); break;
      case ArgKey::kPgDesc: ev.pg_desc = ValueToString(v, &json_error); break;
      case ArgKey::kPgRanks: ReadProcessGroupRanks(v); break;
      case ArgKey::kDirection: ev.direction = ValueToString(v, &json_error); break;
      case ArgKey::kKind: ev.kind = ValueToString(v, &json_error); break;
      case ArgKey::kName: ev.meta_name = ValueToString(v, &json_error); break;
      case ArgKey::kUnknown:
        // Only profiler ranges keep unknown numeric args (their counters); "cat"
        // comes before "args" in Kineto's output, so other events skip them.
        if (ev.cat.empty() || ev.cat == kCatProfilerRange) ReadProfilerRangeArg(key, v);
        break;
    }
    if (json_error) return false;
  }
  return true;
}

// "Process Group Ranks": an array (kept as its text, "[0, 1]") or a scalar as written.
void EventParser::Impl::ReadProcessGroupRanks(od::value& value) {
  od::json_type type;
  if (value.type().get(type)) {
    json_error = true;
  } else if (type == od::json_type::array) {
    ev.pg_ranks = ArrayToText(value, &pg_ranks_storage, &json_error);
  } else {
    ev.pg_ranks = ValueToString(value, &json_error);
  }
}

// A counter of a profiler range, by its metric name; other types are not counters.
void EventParser::Impl::ReadProfilerRangeArg(std::string_view key, od::value& value) {
  od::json_type type;
  if (value.type().get(type)) {
    json_error = true;
  } else if (type == od::json_type::number) {
    double d = 0;
    if (ValueToDouble(value, &d)) ev.numeric_args.emplace_back(key, d);
  }
}

}  // namespace kraken::kineto
