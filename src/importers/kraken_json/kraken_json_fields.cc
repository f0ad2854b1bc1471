#include "importers/kraken_json/kraken_json_fields.h"

#include <limits>

#include "model/enum_names.h"

namespace kraken::kraken_json {
namespace {

constexpr auto kOk = simdjson::SUCCESS;

// An enum spelled as in model/enum_names.h; an unknown name makes the record unreadable.
template <typename E>
bool ReadEnum(od::value& v, std::optional<E> (*from_name)(std::string_view), E& out) {
  std::string_view name;
  if (v.get_string().get(name) != kOk) return false;
  std::optional<E> value = from_name(name);
  if (!value) return false;
  out = *value;
  return true;
}

// One [time_ns, value] pair.
bool ReadSample(od::value& v, Sample& sample) {
  od::array pair;
  if (v.get_array().get(pair) != kOk) return false;
  size_t index = 0;
  for (auto element : pair) {
    od::value item;
    if (std::move(element).get(item) != kOk) return false;
    bool ok = index == 0 ? Read(item, sample.time_ns) : index == 1 && Read(item, sample.value);
    if (!ok) return false;
    ++index;
  }
  return index == 2;
}

}  // namespace

bool Read(od::value& v, int64_t& out) { return v.get_int64().get(out) == kOk; }

bool Read(od::value& v, int32_t& out) {
  int64_t wide = 0;
  if (v.get_int64().get(wide) != kOk || wide < std::numeric_limits<int32_t>::min() ||
      wide > std::numeric_limits<int32_t>::max())
    return false;
  out = static_cast<int32_t>(wide);
  return true;
}

bool Read(od::value& v, double& out) {
  od::json_type type;
  if (v.type().get(type) != kOk) return false;
  if (type == od::json_type::null) {
    // The exporter's spelling of NaN and infinities (JSON has neither).
    bool is_null = false;
    out = std::numeric_limits<double>::quiet_NaN();
    return v.is_null().get(is_null) == kOk && is_null;
  }
  return v.get_double().get(out) == kOk;
}

bool Read(od::value& v, bool& out) { return v.get_bool().get(out) == kOk; }

bool Read(od::value& v, std::string& out) {
  std::string_view text;
  if (v.get_string().get(text) != kOk) return false;
  out.assign(text);
  return true;
}

bool Read(od::value& v, Dim3& out) {
  od::array array;
  if (v.get_array().get(array) != kOk) return false;
  size_t index = 0;
  for (auto element : array) {
    od::value item;
    if (index >= out.size() || std::move(element).get(item) != kOk || !Read(item, out[index])) return false;
    ++index;
  }
  return index == out.size();
}

bool Read(od::value& v, std::map<std::string, std::string>& out) {
  od::object o;
  if (v.get_object().get(o) != kOk) return false;
  for (auto member : o) {
    od::field field;
    std::string_view key, text;
    if (std::move(member).get(field) != kOk || field.unescaped_key().get(key) != kOk ||
        field.value().get_string().get(text) != kOk)
      return false;
    out[std::string(key)] = std::string(text);
  }
  return true;
}

bool Read(od::value& v, std::map<std::string, double>& out) {
  od::object o;
  if (v.get_object().get(o) != kOk) return false;
  for (auto member : o) {
    od::field field;
    std::string_view key;
    if (std::move(member).get(field) != kOk || field.unescaped_key().get(key) != kOk) return false;
    std::string name(key);  // the key's text does not outlive reading the value
    od::value value = field.value();
    if (!Read(value, out[name])) return false;
  }
  return true;
}

bool Read(od::value& v, MemoryOpKind& out) { return ReadEnum(v, &MemoryOpKindFromName, out); }
bool Read(od::value& v, CopyDirection& out) { return ReadEnum(v, &CopyDirectionFromName, out); }
bool Read(od::value& v, CpuOpCategory& out) { return ReadEnum(v, &CpuOpCategoryFromName, out); }
bool Read(od::value& v, Vendor& out) { return ReadEnum(v, &VendorFromName, out); }
bool Read(od::value& v, SampleAxis& out) { return ReadEnum(v, &SampleAxisFromName, out); }

bool Read(od::value& v, Metric& out) {
  std::string_view name;
  if (v.get_string().get(name) != kOk) return false;
  out = MetricFromName(name);
  return true;
}

bool Read(od::value& v, std::vector<Sample>& out, ReadContext& context) {
  od::array array;
  if (v.get_array().get(array) != kOk) return false;
  for (auto element : array) {
    od::value item;
    Sample sample;
    if (std::move(element).get(item) != kOk) return false;  // damaged JSON: the series goes
    if (ReadSample(item, sample)) {
      out.push_back(sample);
    } else {
      ++context.bad_samples;
    }
  }
  return true;
}

}  // namespace kraken::kraken_json
