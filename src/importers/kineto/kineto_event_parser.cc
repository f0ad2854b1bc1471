#include "importers/kineto/kineto_event_parser.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/text.h"
#include "importers/kineto/kineto_range_counters.h"
#include "importers/kineto/kineto_schema.h"

namespace kraken::kineto {

namespace od = simdjson::ondemand;

bool MicrosTextToNs(std::string_view text, int64_t* ns) {
  // Tokens come right-trimmed from ScalarToken; tests pass padded text too.
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  if (text.empty()) return false;
  bool negative = text.front() == '-';
  size_t i = negative ? 1 : 0;
  int64_t whole = 0;
  size_t digits = 0;
  bool overflow = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    overflow = overflow || __builtin_mul_overflow(whole, 10, &whole) ||
               __builtin_add_overflow(whole, text[i] - '0', &whole);
  }
  int64_t fraction_ns = 0;
  bool round_up = false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int place = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++place) {
      if (place < 3) {
        fraction_ns = fraction_ns * 10 + (text[i] - '0');
      } else if (place == 3) {
        round_up = text[i] >= '5';
      }
      ++digits;
    }
    for (; place < 3; ++place) fraction_ns *= 10;
  }
  if (digits == 0) return false;
  if (i != text.size()) {
    // Exponent or other forms: accept through double (rare; loses sub-ns only).
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) return false;
    double scaled = value * 1000.0;
    if (std::fabs(scaled) > 9.2e18) return false;
    *ns = static_cast<int64_t>(std::llround(scaled));
    return true;
  }
  int64_t total = 0;
  if (overflow || __builtin_mul_overflow(whole, 1000, &total) ||
      __builtin_add_overflow(total, fraction_ns + (round_up ? 1 : 0), &total))
    return false;
  *ns = negative ? -total : total;
  return true;
}

namespace {

// The raw text of a scalar value: numbers as written, strings without their quotes
// (trace writers are not consistent: HIP runtime args hold "9216" as a string).
std::string_view ScalarToken(od::value& value) {
  std::string_view token = value.raw_json_token();
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                            token.back() == '\t'))
    token.remove_suffix(1);
  if (token.size() >= 2 && token.front() == '"' && token.back() == '"') token = token.substr(1, token.size() - 2);
  return token;
}

bool TokenToInt(std::string_view token, int64_t* out) {
  if (token.empty()) return false;
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), *out);
  if (ec == std::errc() && ptr == token.data() + token.size()) return true;
  double d = 0;
  auto [ptr2, ec2] = std::from_chars(token.data(), token.data() + token.size(), d);
  if (ec2 != std::errc() || ptr2 != token.data() + token.size() || !std::isfinite(d) || std::fabs(d) > 9.2e18)
    return false;
  *out = static_cast<int64_t>(d);
  return true;
}

bool TokenToDouble(std::string_view token, double* out) {
  if (token.empty()) return false;
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), *out);
  return ec == std::errc() && ptr == token.data() + token.size();
}

bool ValueToInt(od::value& value, int64_t* out) { return TokenToInt(ScalarToken(value), out); }
bool ValueToDouble(od::value& value, double* out) { return TokenToDouble(ScalarToken(value), out); }

// Every reader below sets *error on a simdjson error: after one, the document must not
// be touched again (simdjson On-Demand's rule), so the caller abandons the event.
std::string_view ValueToString(od::value& value, bool* error) {
  std::string_view s;
  od::json_type type;
  if (value.type().get(type)) {
    *error = true;
    return {};
  }
  if (type == od::json_type::string) {
    if (value.get_string().get(s)) {
      *error = true;
      return {};
    }
    return s;
  }
  if (type == od::json_type::number || type == od::json_type::boolean) return ScalarToken(value);
  return {};
}

// A flat array of scalars as text ("[0, 1]"), e.g. "Process Group Ranks"; `storage`
// keeps the text alive until the event is committed.
std::string_view ArrayToText(od::value& value, std::string* storage, bool* error) {
  od::array array;
  if (value.get_array().get(array)) {
    *error = true;
    return {};
  }
  storage->assign("[");
  bool first = true;
  for (auto element : array) {
    od::value v;
    od::json_type type;
    if (element.get(v) || v.type().get(type)) {
      *error = true;
      return {};
    }
    if (!first) storage->append(", ");
    first = false;
    if (type == od::json_type::string) {
      std::string_view s;
      if (v.get_string().get(s)) {
        *error = true;
        return {};
      }
      storage->append(s);
    } else if (type == od::json_type::number || type == od::json_type::boolean) {
      storage->append(ScalarToken(v));
    } else {
      return {};
    }
  }
  storage->append("]");
  return *storage;
}

void ValueToDim3(od::value& value, Dim3* dim, bool* error) {
  od::json_type type;
  if (value.type().get(type)) {
    *error = true;
    return;
  }
  // Triton launcher ops write "grid": "grid(100,)": not a launch shape, not an error.
  if (type != od::json_type::array) return;
  od::array array;
  if (value.get_array().get(array)) {
    *error = true;
    return;
  }
  size_t i = 0;
  for (auto element : array) {
    od::value v;
    if (element.get(v)) {
      *error = true;
      return;
    }
    int64_t n = 0;
    if (i < 3 && ValueToInt(v, &n)) (*dim)[i] = static_cast<int32_t>(n);
    ++i;
  }
}

// `key == "literal"` that compiles to a length check and one or two integer compares
// (string_view::compare is not inlined on this hot path).
template <size_t N>
inline bool Is(std::string_view key, const char (&literal)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), literal, N - 1) == 0;
}

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
      if (Is(k, "grid")) return ArgKey::kGrid;
      if (Is(k, "size")) return ArgKey::kSize;
      if (Is(k, "name")) return ArgKey::kName;
      if (Is(k, "kind")) return ArgKey::kKind;
      break;
    case 5:
      if (Is(k, "block")) return ArgKey::kBlock;
      if (Is(k, "bytes")) return ArgKey::kBytes;
      if (Is(k, "dtype")) return ArgKey::kDtype;
      break;
    case 6:
      if (Is(k, "device")) return ArgKey::kDevice;
      if (Is(k, "stream")) return ArgKey::kStream;
      break;
    case 9:
      if (Is(k, "Device Id")) return ArgKey::kDeviceId;
      if (Is(k, "direction")) return ArgKey::kDirection;
      break;
    case 10:
      if (Is(k, "Group size")) return ArgKey::kGroupSize;
      break;
    case 11:
      if (Is(k, "correlation")) return ArgKey::kCorrelation;
      if (Is(k, "External id") || Is(k, "external id")) return ArgKey::kExternalId;
      break;
    case 12:
      if (Is(k, "warps per SM")) return ArgKey::kWarpsPerSm;
      break;
    case 13:
      if (Is(k, "shared memory")) return ArgKey::kSharedMemory;
      if (Is(k, "blocks per SM")) return ArgKey::kBlocksPerSm;
      if (Is(k, "In msg nelems")) return ArgKey::kInNelems;
      break;
    case 14:
      if (Is(k, "Out msg nelems")) return ArgKey::kOutNelems;
      if (Is(k, "Total Reserved")) return ArgKey::kTotalReserved;
      break;
    case 15:
      if (Is(k, "Collective name")) return ArgKey::kCollectiveName;
      if (Is(k, "Total Allocated")) return ArgKey::kTotalAllocated;
      break;
    case 18:
      if (Is(k, "Process Group Name")) return ArgKey::kPgName;
      break;
    case 19:
      if (Is(k, "Process Group Ranks")) return ArgKey::kPgRanks;
      break;
    case 20:
      if (Is(k, "registers per thread")) return ArgKey::kRegisters;
      break;
    case 25:
      if (Is(k, "est. achieved occupancy %")) return ArgKey::kOccupancy;
      if (Is(k, "Process Group Description")) return ArgKey::kPgDesc;
      break;
    default:
      break;
  }
  return ArgKey::kUnknown;
}

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

CopyDirection DirectionFromText(std::string_view text) {
  if (text.find("HtoD") != std::string_view::npos || text.find("HOST_TO_DEVICE") != std::string_view::npos)
    return CopyDirection::kHostToDevice;
  if (text.find("DtoH") != std::string_view::npos || text.find("DEVICE_TO_HOST") != std::string_view::npos)
    return CopyDirection::kDeviceToHost;
  if (text.find("DtoD") != std::string_view::npos || text.find("DEVICE_TO_DEVICE") != std::string_view::npos)
    return CopyDirection::kDeviceToDevice;
  if (text.find("HtoH") != std::string_view::npos) return CopyDirection::kHostToHost;
  if (text.find("PtoP") != std::string_view::npos || text.find("Peer") != std::string_view::npos)
    return CopyDirection::kPeerToPeer;
  return CopyDirection::kUnknown;
}

// Replaces bytes simdjson refuses (invalid UTF-8, raw control characters) so that an
// event written by an old or buggy tracer can still be read. Returns false when the
// text needed no change, i.e. the event is malformed for another reason.
bool SanitizeEvent(std::string_view in, std::string* out) {
  out->assign(in);
  bool changed = false;
  auto* s = reinterpret_cast<unsigned char*>(out->data());
  size_t n = out->size();
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
      s[i++] = ' ';
      changed = true;
      continue;
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (s[i + k] & 0xC0) == 0x80;
    if (!ok) {
      s[i++] = '?';
      changed = true;
      continue;
    }
    i += len;
  }
  return changed;
}

// Many events are only counted: metadata (310k of 456k events in the MTIA trace),
// flows, and Python frames (56 % of a with_stack trace). Their kind is read from the
// first bytes, without parsing, when a top-level "ph"/"cat" member comes early; any
// doubt (a bracket or escape before it) falls back to the full parse.
enum class QuickKind { kParse, kFlow, kMetadata, kPythonFunction };

// Reads the leading top-level members of `event` until "ph" (and "cat" for complete
// events) are known. Only plain members qualify: a nested value or an escape before
// them ends the quick path, and the event is parsed in full.
QuickKind QuickClassify(std::string_view event) {
  const char* p = event.data();
  const char* end = p + std::min<size_t>(event.size(), 160);
  auto skip_ws = [&] {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
  };
  // A string without escapes; false on anything else.
  auto read_string = [&](std::string_view* out) {
    if (p >= end || *p != '"') return false;
    const char* start = ++p;
    while (p < end && *p != '"' && *p != '\\') ++p;
    if (p >= end || *p != '"') return false;
    *out = std::string_view(start, static_cast<size_t>(p - start));
    ++p;
    return true;
  };
  if (p >= end || *p != '{') return QuickKind::kParse;
  ++p;
  std::string_view ph, cat;
  for (int member = 0; member < 6; ++member) {
    skip_ws();
    std::string_view key, value;
    if (!read_string(&key)) return QuickKind::kParse;
    skip_ws();
    if (p >= end || *p != ':') return QuickKind::kParse;
    ++p;
    skip_ws();
    if (p >= end) return QuickKind::kParse;
    if (*p == '"') {
      if (!read_string(&value)) return QuickKind::kParse;
    } else if ((*p >= '0' && *p <= '9') || *p == '-') {
      while (p < end && *p != ',' && *p != '}' && *p != ' ' && *p != '\n') ++p;
    } else {
      return QuickKind::kParse;  // nested value, literal or damage: parse in full
    }
    if (Is(key, "ph")) ph = value;
    if (Is(key, "cat")) cat = value;
    if (!ph.empty()) {
      if (ph.size() != 1) return QuickKind::kParse;
      switch (ph[0]) {
        case 'M': return QuickKind::kMetadata;
        case 's':
        case 'f':
        case 't': return QuickKind::kFlow;
        case 'X':
          if (!cat.empty()) return cat == kCatPythonFunction ? QuickKind::kPythonFunction : QuickKind::kParse;
          break;
        default: return QuickKind::kParse;
      }
    }
    skip_ws();
    if (p >= end || *p != ',') return QuickKind::kParse;
    ++p;
  }
  return QuickKind::kParse;
}

}  // namespace

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

  void Count(const std::string& name) { ++counters[name]; }

  bool ReadArgs(od::value& value) {
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
        case ArgKey::kPgRanks: {
          od::json_type type;
          if (v.type().get(type)) {
            json_error = true;
          } else if (type == od::json_type::array) {
            ev.pg_ranks = ArrayToText(v, &pg_ranks_storage, &json_error);
          } else {
            ev.pg_ranks = ValueToString(v, &json_error);
          }
          break;
        }
        case ArgKey::kDirection: ev.direction = ValueToString(v, &json_error); break;
        case ArgKey::kKind: ev.kind = ValueToString(v, &json_error); break;
        case ArgKey::kName: ev.meta_name = ValueToString(v, &json_error); break;
        case ArgKey::kUnknown: {
          // Only profiler ranges keep unknown numeric args (their counters); "cat"
          // comes before "args" in Kineto's output, so other events skip them.
          if (!ev.cat.empty() && ev.cat != kCatProfilerRange) break;
          od::json_type type;
          if (v.type().get(type)) {
            json_error = true;
          } else if (type == od::json_type::number) {
            double d = 0;
            if (ValueToDouble(v, &d)) ev.numeric_args.emplace_back(key, d);
          }
          break;
        }
      }
      if (json_error) return false;
    }
    return true;
  }

  void ReadId(od::value& value, std::string_view* text, int64_t* number, bool* is_number) {
    od::json_type type;
    if (value.type().get(type)) {
      json_error = true;
      return;
    }
    if (type == od::json_type::number) {
      *is_number = ValueToInt(value, number);
      *text = ScalarToken(value);
    } else if (type == od::json_type::string) {
      *text = ValueToString(value, &json_error);
      int64_t n = 0;
      if (TokenToInt(*text, &n)) {
        *number = n;
        *is_number = true;
      }
    }
  }

  // Reads the event's fields into `ev`. False when the JSON is malformed.
  bool ReadEvent(std::string_view json) {
    // Reset every field but keep the vector's capacity.
    auto numeric_args = std::move(ev.numeric_args);
    numeric_args.clear();
    ev = RawEvent{};
    ev.numeric_args = std::move(numeric_args);
    json_error = false;
    od::document doc;
    if (parser.iterate(json.data(), json.size(), json.size() + 64).get(doc)) return false;
    od::object object;
    if (doc.get_object().get(object)) return false;
    for (auto field_result : object) {
      od::field field;
      if (std::move(field_result).get(field)) return false;
      std::string_view key;
      if (field.unescaped_key().get(key)) return false;
      od::value v = field.value();
      switch (key.size()) {
        case 2:
          if (Is(key, "ph")) {
            if (v.get_string().get(ev.ph)) return false;
          } else if (Is(key, "ts")) {
            ev.has_ts = MicrosTextToNs(ScalarToken(v), &ev.ts_ns);
          }
          break;
        case 3:
          if (Is(key, "cat")) {
            ev.cat = ValueToString(v, &json_error);
          } else if (Is(key, "pid")) {
            ReadId(v, &ev.pid_text, &ev.pid, &ev.pid_is_number);
          } else if (Is(key, "tid")) {
            ReadId(v, &ev.tid_text, &ev.tid, &ev.tid_is_number);
          } else if (Is(key, "dur")) {
            ev.has_dur = MicrosTextToNs(ScalarToken(v), &ev.dur_ns);
          }
          break;
        case 4:
          if (Is(key, "name")) {
            ev.name = ValueToString(v, &json_error);
          } else if (Is(key, "args")) {
            if (!ReadArgs(v)) return false;
          }
          break;
        default:
          break;
      }
      if (json_error) return false;
    }
    return true;
  }

  void Parse(std::string_view json) {
    switch (QuickClassify(json)) {
      case QuickKind::kMetadata: ++metadata_events; return;
      case QuickKind::kFlow: ++flows; return;
      case QuickKind::kPythonFunction: ++python_functions; return;
      case QuickKind::kParse: break;
    }
    if (!ReadEvent(json)) {
      // Retry once with bytes simdjson refuses replaced; else the event is malformed.
      if (!SanitizeEvent(json, &scratch)) {
        ++malformed;
        return;
      }
      scratch.append(64, '\0');
      if (!ReadEvent(std::string_view(scratch.data(), scratch.size() - 64))) {
        ++malformed;
        return;
      }
      Count("kineto_events_sanitized");
    }
    Commit();
  }

  void Commit() {
    if (ev.ph.size() != 1) {
      ++malformed;
      return;
    }
    switch (ev.ph[0]) {
      case 'X':
        CommitComplete();
        return;
      case 'i':
      case 'I':
        CommitInstant();
        return;
      case 's':
      case 't':
      case 'f':
        ++flows;
        return;
      case 'M':
        ++metadata_events;
        return;
      case 'C':
        Count("kineto_counter_events_ignored");
        return;
      default:
        Count("kineto_unsupported_phase_events");
        return;
    }
  }

  bool CheckTimes() {
    if (!ev.has_ts) {
      ++missing_timestamp;
      return false;
    }
    if (!ev.has_dur) ev.dur_ns = 0;
    if (ev.dur_ns < 0) {
      ++negative_duration;
      ev.dur_ns = 0;
    }
    return true;
  }

  int32_t DeviceOf() const {
    if (ev.device >= 0) return static_cast<int32_t>(ev.device);
    if (ev.pid_is_number && ev.pid >= 0 && ev.pid < 1024) return static_cast<int32_t>(ev.pid);
    return -1;
  }

  int64_t StreamOf() const {
    if (ev.stream >= 0) return ev.stream;
    if (ev.tid_is_number) return ev.tid;
    // Legacy traces name GPU threads "stream 7".
    if (StartsWith(ev.tid_text, "stream ")) {
      if (auto n = ParseInt64(ev.tid_text.substr(7))) return *n;
    }
    return -1;
  }

  void CommitKernel() {
    Kernel k;
    k.name = profile->strings.Intern(ev.name);
    k.start_ns = ev.ts_ns;
    k.duration_ns = ev.dur_ns;
    k.device = DeviceOf();
    k.stream = StreamOf();
    k.correlation_id = ev.correlation;
    k.external_id = ev.external_id;
    k.grid = ev.grid;
    k.block = ev.block;
    k.registers_per_thread = static_cast<int32_t>(ev.registers);
    k.shared_memory_bytes = ev.shared_memory;
    k.blocks_per_sm = ev.blocks_per_sm;
    k.warps_per_sm = ev.warps_per_sm;
    k.est_achieved_occupancy_pct = ev.occupancy;
    if (!ev.collective_name.empty() || ev.in_nelems >= 0) {
      CollectiveInfo c;
      c.collective_name = std::string(ev.collective_name);
      c.in_msg_nelems = ev.in_nelems;
      c.out_msg_nelems = ev.out_nelems;
      c.group_size = ev.group_size;
      c.dtype = std::string(ev.dtype);
      c.process_group_name = std::string(ev.pg_name);
      c.process_group_description = std::string(ev.pg_desc);
      c.process_group_ranks = std::string(ev.pg_ranks);
      k.collective_index = static_cast<int32_t>(profile->collectives.size());
      profile->collectives.push_back(std::move(c));
    }
    profile->kernels.push_back(k);
  }

  void CommitMemoryOp(MemoryOpKind kind) {
    MemoryOp m;
    m.name = profile->strings.Intern(ev.name);
    m.start_ns = ev.ts_ns;
    m.duration_ns = ev.dur_ns;
    m.device = DeviceOf();
    m.stream = StreamOf();
    m.correlation_id = ev.correlation;
    m.bytes = ev.bytes >= 0 ? ev.bytes : ev.size;
    m.kind = kind;
    if (kind == MemoryOpKind::kMemcpy) {
      m.direction = DirectionFromText(ev.name);
      if (m.direction == CopyDirection::kUnknown) m.direction = DirectionFromText(ev.kind);
      if (m.direction == CopyDirection::kUnknown) m.direction = DirectionFromText(ev.direction);
      m.pageable_host_memory = ev.name.find("Pageable") != std::string_view::npos;
    }
    profile->memory_ops.push_back(m);
  }

  void CommitCpuOp(CpuOpCategory category) {
    CpuOp op;
    op.name = profile->strings.Intern(ev.name);
    op.start_ns = ev.ts_ns;
    op.duration_ns = ev.dur_ns;
    op.pid = ev.pid;
    op.tid = category == CpuOpCategory::kGpuUserAnnotation ? StreamOf() : ev.tid;
    op.external_id = ev.external_id;
    op.category = category;
    profile->cpu_ops.push_back(op);
    if (category != CpuOpCategory::kGpuUserAnnotation && StartsWith(ev.name, kProfilerStepPrefix)) {
      StepAnnotation step;
      if (auto n = ParseInt64(ev.name.substr(kProfilerStepPrefix.size()))) step.step_number = *n;
      step.start_ns = ev.ts_ns;
      step.duration_ns = ev.dur_ns;
      step.tid = ev.tid;
      profile->steps.push_back(step);
    }
  }

  void CommitRuntime(bool driver) {
    RuntimeCall call;
    call.name = profile->strings.Intern(ev.name);
    call.start_ns = ev.ts_ns;
    call.duration_ns = ev.dur_ns;
    call.pid = ev.pid;
    call.tid = ev.tid;
    call.correlation_id = ev.correlation;
    call.external_id = ev.external_id;
    call.is_driver_api = driver;
    profile->runtime_calls.push_back(call);
  }

  void CommitProfilerRange() {
    ProfilerRange range;
    range.name = profile->strings.Intern(ev.name);
    range.start_ns = ev.ts_ns;
    range.duration_ns = ev.dur_ns;
    for (const auto& [key, value] : ev.numeric_args) range.raw_counters[std::string(key)] = value;
    range.counters_index = static_cast<int32_t>(profile->kernel_counters.size());
    profile->kernel_counters.push_back(RangeCountersFromArgs(ev.numeric_args));
    // kraken's tracer names the launch (CUPTI correlation id): its kernel gets the counters.
    if (ev.correlation >= 0) range_counters_by_correlation[ev.correlation] = range.counters_index;
    profile->profiler_ranges.push_back(std::move(range));
  }

  // Kernels whose launch has a profiler range (same correlation id) point at its counters.
  void LinkKernelsToRanges() {
    if (range_counters_by_correlation.empty()) return;
    for (Kernel& k : profile->kernels) {
      auto it = range_counters_by_correlation.find(k.correlation_id);
      if (k.counters_index < 0 && it != range_counters_by_correlation.end()) k.counters_index = it->second;
    }
  }

  void CommitComplete() {
    std::string_view cat = ev.cat;
    bool is_kernel = cat == kCatKernel || cat == kCatKernelLegacy;
    bool is_memcpy = cat == kCatMemcpy || cat == kCatMemcpyLegacy;
    bool is_memset = cat == kCatMemset || cat == kCatMemsetLegacy;
    if (cat == kCatPythonFunction) {
      ++python_functions;
      return;
    }
    if (!CheckTimes()) return;
    if (cat == kCatMtiaDeviceOp) {
      // MTIA device ops: DMA transfers are the accelerator's memcpy, the rest kernels.
      // Their tid is a hardware queue, not a stream: without args.stream the stream is
      // unknown (HTA leaves such ops out; kraken keeps them, on stream -1).
      if (ev.stream < 0) ev.tid_is_number = false;
      if (StartsWith(ev.name, "dma")) {
        is_memcpy = true;
      } else {
        is_kernel = true;
      }
    }
    if (is_kernel) return CommitKernel();
    if (is_memcpy) return CommitMemoryOp(MemoryOpKind::kMemcpy);
    if (is_memset) return CommitMemoryOp(MemoryOpKind::kMemset);
    if (cat == kCatCpuOp || cat == kCatCpuOpLegacy) return CommitCpuOp(CpuOpCategory::kOperator);
    if (cat == kCatUserAnnotation) return CommitCpuOp(CpuOpCategory::kUserAnnotation);
    if (cat == kCatGpuUserAnnotation) return CommitCpuOp(CpuOpCategory::kGpuUserAnnotation);
    if (cat == kCatCudaRuntime || cat == kCatRuntimeLegacy || cat == kCatMtiaRuntime || cat == kCatXpuRuntime)
      return CommitRuntime(false);
    if (cat == kCatCudaDriver || cat == kCatXpuDriver) return CommitRuntime(true);
    if (cat == kCatCudaSync) {
      SyncEvent sync;
      sync.name = profile->strings.Intern(ev.name);
      sync.start_ns = ev.ts_ns;
      sync.duration_ns = ev.dur_ns;
      sync.device = DeviceOf();
      sync.stream = ev.stream;
      profile->syncs.push_back(sync);
      return;
    }
    if (cat == kCatProfilerRange) return CommitProfilerRange();
    if (cat == kCatTrace) {
      profile->metadata.attributes["profiler_span_ns"] = std::to_string(ev.dur_ns);
      return;
    }
    Count("kineto_ignored_category:" + std::string(cat.empty() ? "<none>" : cat));
  }

  void CommitInstant() {
    if (ev.name != kMemoryEventName) {
      Count("kineto_instant_events_ignored");
      return;
    }
    if (!ev.has_ts) {
      ++missing_timestamp;
      return;
    }
    // Device memory samples of the framework allocator; "Device Id" -1 is host memory.
    if (ev.device_id < 0 || ev.device_id == INT64_MIN) return;
    if (ev.total_allocated < 0) {
      Count("kineto_memory_events_without_totals");
      return;
    }
    auto add = [&](Metric metric, int64_t value) {
      if (value < 0) return;
      Series* series = nullptr;
      for (auto& s : profile->series) {
        if (s.metric == metric && s.entity.gpu_index == ev.device_id) series = &s;
      }
      if (series == nullptr) {
        series = &profile->series.emplace_back();
        series->metric = metric;
        series->source_name = metric == Metric::kAllocatorAllocatedBytes ? "Total Allocated" : "Total Reserved";
        series->entity.gpu_index = static_cast<int32_t>(ev.device_id);
      }
      series->samples.push_back({ev.ts_ns, static_cast<double>(value)});
    };
    add(Metric::kAllocatorAllocatedBytes, ev.total_allocated);
    add(Metric::kAllocatorReservedBytes, ev.total_reserved);
  }

  void Finish() {
    LinkKernelsToRanges();
    auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
    std::stable_sort(profile->kernels.begin(), profile->kernels.end(), by_start);
    std::stable_sort(profile->memory_ops.begin(), profile->memory_ops.end(), by_start);
    std::stable_sort(profile->cpu_ops.begin(), profile->cpu_ops.end(), by_start);
    std::stable_sort(profile->runtime_calls.begin(), profile->runtime_calls.end(), by_start);
    std::stable_sort(profile->steps.begin(), profile->steps.end(), by_start);
    std::stable_sort(profile->syncs.begin(), profile->syncs.end(), by_start);
    for (auto& series : profile->series)
      std::stable_sort(series.samples.begin(), series.samples.end(),
                       [](const Sample& a, const Sample& b) { return a.time_ns < b.time_ns; });
    auto& out = profile->import_counters;
    for (const auto& [name, value] : counters) out[name] += value;
    auto put = [&](const char* name, int64_t value) {
      if (value > 0) out[name] += value;
    };
    put("kineto_malformed_events", malformed);
    put("kineto_python_functions_skipped", python_functions);
    put("kineto_flow_events", flows);
    put("kineto_metadata_events", metadata_events);
    put("kineto_events_missing_timestamp", missing_timestamp);
    put("kineto_negative_durations_clamped", negative_duration);
  }
};

EventParser::EventParser(Profile* profile) : impl_(std::make_unique<Impl>(profile)) {}
EventParser::~EventParser() = default;
void EventParser::Parse(std::string_view event) { impl_->Parse(event); }
void EventParser::Finish() { impl_->Finish(); }

}  // namespace kraken::kineto
