// The state of EventParser shared by its source files. An event is first read whole into
// a RawEvent, then committed to the profile as records of its kind:
//   kineto_event_reader.cc  Parse: the quick classification and the top-level members
//   kineto_event_args.cc    the "args" object
//   kineto_event_commit.cc  RawEvent -> model records, per phase and category
//   kineto_event_parser.cc  Finish (sorting, links, counters) and the public class
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "importers/kineto/kineto_event_parser.h"
#include "importers/kineto/kineto_json_values.h"
#include "model/profile.h"

namespace kraken::kineto {

// Everything kraken may need from one event, collected in one pass over its fields
// (members can come in any order, so nothing is committed before the event is read).
struct RawEvent {
  std::string_view ph, cat, name;
  std::string_view pid_text, tid_text;  // as written (string or number)
  int64_t pid = -1, tid = -1;
  bool pid_is_number = false, tid_is_number = false;
  bool has_ts = false, has_dur = false;
  int64_t ts_ns = 0, dur_ns = 0;

  int64_t device = -1, stream = -1, correlation = -1, external_id = -1;
  int64_t registers = -1, shared_memory = -1, bytes = -1, size = -1;
  int64_t in_nelems = -1, out_nelems = -1, group_size = -1;
  int64_t total_allocated = -1, total_reserved = -1, device_id = INT64_MIN;
  double blocks_per_sm = -1, warps_per_sm = -1, occupancy = -1;
  Dim3 grid{0, 0, 0}, block{0, 0, 0};
  std::string_view collective_name, dtype, pg_name, pg_desc, pg_ranks, direction, kind, meta_name;
  std::vector<std::pair<std::string_view, double>> numeric_args;  // for profiler ranges
};

struct EventParser::Impl {
  explicit Impl(Profile* p) : profile(p) {}

  Profile* profile;
  od::parser parser;
  std::string scratch;
  std::string pg_ranks_storage;
  bool json_error = false;  // a simdjson call failed: the event is abandoned
  RawEvent ev;
  // Counters kept as plain integers on the hot path, written to the profile at Finish().
  std::map<std::string, int64_t> counters;
  int64_t malformed = 0;
  int64_t python_functions = 0;
  int64_t flows = 0;
  int64_t metadata_events = 0;
  int64_t missing_timestamp = 0;
  int64_t negative_duration = 0;
  std::unordered_map<int64_t, int32_t> range_counters_by_correlation;  // into kernel_counters
  // kraken's tracer's counter ranges tied to a launch, for AddKernelsOfUntimedRanges.
  struct LaunchRange {
    int64_t correlation = -1;
    size_t range = 0;  // into profile->profiler_ranges
    int32_t device = -1;
  };
  std::vector<LaunchRange> launch_ranges;

  void Count(const std::string& name) { ++counters[name]; }

  // Reading (kineto_event_reader.cc, kineto_event_args.cc).
  void Parse(std::string_view json);
  // Reads the event's fields into `ev`. False when the JSON is malformed.
  bool ReadEvent(std::string_view json);
  void ReadId(od::value& value, std::string_view* text, int64_t* number, bool* is_number);
  bool ReadArgs(od::value& value);
  void ReadProcessGroupRanks(od::value& value);
  void ReadProfilerRangeArg(std::string_view key, od::value& value);

  // Committing `ev` (kineto_event_commit.cc).
  void Commit();
  void CommitComplete();
  void CommitInstant();
  void CommitCounter();
  void AddSample(Metric metric, int32_t device, std::string_view source_name, double value);
  bool CheckTimes();
  int32_t DeviceOf() const;
  int64_t StreamOf() const;
  void CommitKernel();
  void CommitMemoryOp(MemoryOpKind kind);
  void CommitCpuOp(CpuOpCategory category);
  void CommitRuntime(bool driver);
  void CommitSync();
  void CommitProfilerRange();

  // After the last event (kineto_event_parser.cc).
  void LinkKernelsToRanges();
  void AddKernelsOfUntimedRanges();
  void Finish();
};

}  // namespace kraken::kineto
