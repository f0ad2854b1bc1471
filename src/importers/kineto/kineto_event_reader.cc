// EventParser's reading step: counts the events it needs not parse, and reads the others'
// top-level members into a RawEvent (the "args" object: kineto_event_args.cc).
#include <algorithm>
#include <string>

#include "importers/kineto/kineto_event_parser_impl.h"
#include "importers/kineto/kineto_schema.h"

namespace kraken::kineto {
namespace {

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
    if (KeyEquals(key, "ph")) ph = value;
    if (KeyEquals(key, "cat")) cat = value;
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

void EventParser::Impl::Parse(std::string_view json) {
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

// "pid" or "tid": kept as written, and as a number when it is one (legacy traces name GPU
// threads "stream 7"; StreamOf reads those).
void EventParser::Impl::ReadId(od::value& value, std::string_view* text, int64_t* number, bool* is_number) {
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

bool EventParser::Impl::ReadEvent(std::string_view json) {
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
        if (KeyEquals(key, "ph")) {
          if (v.get_string().get(ev.ph)) return false;
        } else if (KeyEquals(key, "ts")) {
          ev.has_ts = MicrosTextToNs(ScalarToken(v), &ev.ts_ns);
        }
        break;
      case 3:
        if (KeyEquals(key, "cat")) {
          ev.cat = ValueToString(v, &json_error);
        } else if (KeyEquals(key, "pid")) {
          ReadId(v, &ev.pid_text, &ev.pid, &ev.pid_is_number);
        } else if (KeyEquals(key, "tid")) {
          ReadId(v, &ev.tid_text, &ev.tid, &ev.tid_is_number);
        } else if (KeyEquals(key, "dur")) {
          ev.has_dur = MicrosTextToNs(ScalarToken(v), &ev.dur_ns);
        }
        break;
      case 4:
        if (KeyEquals(key, "name")) {
          ev.name = ValueToString(v, &json_error);
        } else if (KeyEquals(key, "args")) {
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

}  // namespace kraken::kineto
