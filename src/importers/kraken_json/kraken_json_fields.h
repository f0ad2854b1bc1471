// How the kraken-json importer reads one exported record: each record type is a table of
// its keys and the model fields they fill (kraken_json_sections.cc), and one loop reads a
// JSON object through such a table with simdjson On-Demand. A value of the wrong type, a
// damaged object or a missing required key makes the whole record unreadable (counted by
// the caller); keys the table does not name are skipped, so a later writer may add some.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/profile.h"

namespace kraken::kraken_json {

namespace od = simdjson::ondemand;

// What reading a record may need beyond the record itself.
struct ReadContext {
  StringTable* strings = nullptr;  // names are interned here
  int64_t bad_samples = 0;         // series samples skipped (not [time_ns, number|null])
};

// A field holding an interned name: written as its text.
template <typename R>
struct NameField {
  StringId R::*id;
};
// A counter that is absent when not measured; null is a measured NaN (the exporter writes
// NaN and infinities as null). Other optional fields read null as "absent".
template <typename R>
struct MeasuredField {
  std::optional<double> R::*value;
};

template <typename R>
using Member = std::variant<int64_t R::*, int32_t R::*, double R::*, bool R::*, std::string R::*, Dim3 R::*,
                            std::optional<double> R::*, std::optional<int64_t> R::*, std::optional<int32_t> R::*,
                            std::map<std::string, std::string> R::*, std::map<std::string, double> R::*,
                            MemoryOpKind R::*, CopyDirection R::*, CpuOpCategory R::*, Vendor R::*, Metric R::*,
                            SampleAxis R::*, SeriesEntity R::*, std::vector<MigInstance> R::*,
                            std::vector<Sample> R::*, NameField<R>, MeasuredField<R>>;

template <typename R>
struct FieldSpec {
  std::string_view key;
  Member<R> member;
  bool required = false;
};

// One value into one model field; false when it has another type or the JSON is damaged.
bool Read(od::value& v, int64_t& out);
bool Read(od::value& v, int32_t& out);
bool Read(od::value& v, double& out);  // null: NaN
bool Read(od::value& v, bool& out);
bool Read(od::value& v, std::string& out);
bool Read(od::value& v, Dim3& out);
bool Read(od::value& v, std::map<std::string, std::string>& out);
bool Read(od::value& v, std::map<std::string, double>& out);
bool Read(od::value& v, MemoryOpKind& out);
bool Read(od::value& v, CopyDirection& out);
bool Read(od::value& v, CpuOpCategory& out);
bool Read(od::value& v, Vendor& out);
bool Read(od::value& v, Metric& out);  // a name this kraken does not know is kOther, as in other importers
bool Read(od::value& v, SampleAxis& out);
bool Read(od::value& v, SeriesEntity& out);               // kraken_json_sections.cc
bool Read(od::value& v, std::vector<MigInstance>& out);   // kraken_json_sections.cc
// [[time_ns, value], ...]: a damaged pair is skipped and counted, the others kept.
bool Read(od::value& v, std::vector<Sample>& out, ReadContext& context);

template <typename T>
bool Read(od::value& v, std::optional<T>& out) {
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return false;
  if (type == od::json_type::null) {
    out.reset();
    return true;
  }
  T value{};
  if (!Read(v, value)) return false;
  out = value;
  return true;
}

template <typename R>
bool ReadMember(od::value& v, R& record, ReadContext& context, const Member<R>& member) {
  return std::visit(
      [&](const auto& m) {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, NameField<R>>) {
          std::string_view text;
          if (v.get_string().get(text) != simdjson::SUCCESS) return false;
          record.*(m.id) = context.strings->Intern(text);
          return true;
        } else if constexpr (std::is_same_v<M, MeasuredField<R>>) {
          double value = 0;
          if (!Read(v, value)) return false;
          record.*(m.value) = value;
          return true;
        } else if constexpr (std::is_same_v<M, std::vector<Sample> R::*>) {
          return Read(v, record.*m, context);
        } else {
          return Read(v, record.*m);
        }
      },
      member);
}

// Reads the object `o` into `record` through `specs` (at most 64 keys).
template <typename R>
bool ReadRecord(od::object o, std::span<const FieldSpec<R>> specs, R& record, ReadContext& context) {
  uint64_t seen = 0;
  size_t next = 0;  // the exporter writes keys in table order: try the next one first
  for (auto member : o) {
    od::field field;
    std::string_view key;
    if (std::move(member).get(field) != simdjson::SUCCESS || field.unescaped_key().get(key) != simdjson::SUCCESS)
      return false;
    size_t i = next < specs.size() && specs[next].key == key ? next : 0;
    while (i < specs.size() && specs[i].key != key) ++i;
    if (i == specs.size()) continue;  // not a key this version reads
    od::value value = field.value();
    if (!ReadMember(value, record, context, specs[i].member)) return false;
    seen |= uint64_t{1} << i;
    next = i + 1;
  }
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].required && (seen & (uint64_t{1} << i)) == 0) return false;
  return true;
}

template <typename R>
bool ReadRecord(od::value& v, std::span<const FieldSpec<R>> specs, R& record, ReadContext& context) {
  od::object o;
  return v.get_object().get(o) == simdjson::SUCCESS && ReadRecord(o, specs, record, context);
}

}  // namespace kraken::kraken_json
