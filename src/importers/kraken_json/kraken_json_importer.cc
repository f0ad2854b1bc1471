// Reads back kraken's own export JSON (`kraken export ID --format json`, `kraken profile
// --out FILE`; keys in docs/store.md): metadata, devices, metric series and import
// counters. Event sections (kernels, memory ops, ...) are not read back yet: each
// non-empty one is counted in kraken_json_skipped_<section>, never silently dropped.
#include <simdjson.h>

#include <cstring>

#include "importers/builtin_importers.h"
#include "importers/importer.h"

namespace kraken {
namespace {

using simdjson::ondemand::object;
using simdjson::ondemand::value;

constexpr ImporterDescriptor kDescriptor{
    "kraken-json", "kraken's own profile export (kraken export --format json, kraken profile --out)",
    "one JSON object starting with \"kraken_profile_version\""};

// Fields of the wrong type keep their defaults; a missing field is not an error (older
// exports may lack a newer key).
template <typename T>
void Read(object& o, std::string_view key, T& out) {
  T v{};
  if (o.find_field_unordered(key).get(v) == simdjson::SUCCESS) out = v;
}
void ReadString(object& o, std::string_view key, std::string& out) {
  std::string_view v;
  if (o.find_field_unordered(key).get(v) == simdjson::SUCCESS) out = std::string(v);
}
void ReadInt32(object& o, std::string_view key, int32_t& out) {
  int64_t v = 0;
  if (o.find_field_unordered(key).get(v) == simdjson::SUCCESS && v >= INT32_MIN && v <= INT32_MAX)
    out = static_cast<int32_t>(v);
}
void ReadOptionalDouble(object& o, std::string_view key, std::optional<double>& out) {
  double v = 0;
  if (o.find_field_unordered(key).get(v) == simdjson::SUCCESS) out = v;
}

void ReadMetadata(object o, ProfileMetadata& md) {
  ReadString(o, "source", md.source);
  ReadString(o, "format", md.format);
  ReadString(o, "hostname", md.hostname);
  Read(o, "base_time_ns", md.base_time_ns);
  Read(o, "kernel_timestamps_valid", md.kernel_timestamps_valid);
  std::string_view vendor;
  if (o.find_field_unordered("accelerator_vendor").get(vendor) == simdjson::SUCCESS && vendor == "nvidia")
    md.accelerator_vendor = Vendor::kNvidia;
  object attributes;
  if (o.find_field_unordered("attributes").get(attributes) == simdjson::SUCCESS)
    for (auto field : attributes) {
      std::string_view key, text;
      if (field.unescaped_key().get(key) == simdjson::SUCCESS && field.value().get(text) == simdjson::SUCCESS)
        md.attributes[std::string(key)] = std::string(text);
    }
}

void ReadDevice(object o, DeviceInfo& d) {
  ReadInt32(o, "index", d.index);
  ReadString(o, "name", d.name);
  std::string_view vendor;
  if (o.find_field_unordered("vendor").get(vendor) == simdjson::SUCCESS && vendor == "nvidia")
    d.vendor = Vendor::kNvidia;
  ReadString(o, "uuid", d.uuid);
  ReadString(o, "pci_bus_id", d.pci_bus_id);
  ReadString(o, "architecture", d.architecture);
  ReadInt32(o, "sm_count", d.sm_count);
  ReadInt32(o, "compute_major", d.compute_major);
  ReadInt32(o, "compute_minor", d.compute_minor);
  Read(o, "memory_bytes", d.memory_bytes);
  ReadOptionalDouble(o, "max_sm_clock_mhz", d.max_sm_clock_mhz);
  ReadOptionalDouble(o, "max_mem_clock_mhz", d.max_mem_clock_mhz);
  ReadOptionalDouble(o, "power_limit_w", d.power_limit_w);
  ReadString(o, "driver_version", d.driver_version);
  ReadString(o, "cuda_version", d.cuda_version);
  Read(o, "mig_enabled", d.mig_enabled);
  ReadInt32(o, "minor_number", d.minor_number);
}

void ReadEntity(object o, SeriesEntity& e) {
  ReadInt32(o, "gpu_index", e.gpu_index);
  ReadString(o, "gpu_uuid", e.gpu_uuid);
  ReadString(o, "gpu_name", e.gpu_name);
  ReadString(o, "pci_bus_id", e.pci_bus_id);
  ReadInt32(o, "gpu_instance_id", e.gpu_instance_id);
  ReadString(o, "mig_profile", e.mig_profile);
  Read(o, "pid", e.pid);
  ReadString(o, "process_name", e.process_name);
  ReadString(o, "hostname", e.hostname);
  ReadString(o, "pod", e.pod);
  ReadString(o, "namespace", e.namespace_name);
  ReadString(o, "container", e.container);
}

// One series; false when its samples are not [[time_ns, value], ...].
bool ReadSeries(object o, Series& s, int64_t& bad_samples) {
  std::string_view metric;
  if (o.find_field_unordered("metric").get(metric) != simdjson::SUCCESS) return false;
  s.metric = MetricFromName(metric);
  ReadString(o, "source_name", s.source_name);
  object entity;
  if (o.find_field_unordered("entity").get(entity) == simdjson::SUCCESS) ReadEntity(entity, s.entity);
  simdjson::ondemand::array samples;
  if (o.find_field_unordered("samples").get(samples) != simdjson::SUCCESS) return false;
  for (auto pair_result : samples) {
    simdjson::ondemand::array pair;
    int64_t time_ns = 0;
    double v = 0;
    auto it_ok = std::move(pair_result).get(pair) == simdjson::SUCCESS;
    if (it_ok) {
      auto it = pair.begin();
      it_ok = it != pair.end() && (*it).get(time_ns) == simdjson::SUCCESS;
      if (it_ok) {
        ++it;
        it_ok = it != pair.end() && (*it).get(v) == simdjson::SUCCESS;
      }
    }
    if (it_ok) s.samples.push_back(Sample{time_ns, v});
    else ++bad_samples;
  }
  return true;
}

class KrakenJsonImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override { return kDescriptor; }

  SniffResult Sniff(std::string_view head) const override {
    size_t start = head.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos || head[start] != '{') return SniffResult::kNo;
    size_t key = head.find("\"kraken_profile_version\"");
    // The writer puts it first: the only key before it is nothing but whitespace.
    return key != std::string_view::npos && head.find_first_not_of(" \t\r\n", start + 1) == key ? SniffResult::kYes
                                                                                                 : SniffResult::kNo;
  }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadAll(*input.stream));
    simdjson::padded_string padded(text);
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    object root;
    if (parser.iterate(padded).get(doc) != simdjson::SUCCESS || doc.get_object().get(root) != simdjson::SUCCESS)
      return InvalidInput("byte 0: not a JSON object");
    Profile& profile = sink.NewProfile(input, kDescriptor.name);
    std::string source = profile.metadata.source;
    int64_t bad_series = 0, bad_samples = 0;
    for (auto field : root) {
      std::string_view key;
      value v;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS || field.value().get(v) != simdjson::SUCCESS)
        return InvalidInput("malformed JSON in the top-level object");
      object o;
      simdjson::ondemand::array a;
      if (key == "kraken_profile_version") {
        int64_t version = 0;
        if (v.get(version) != simdjson::SUCCESS || version != 1)
          return InvalidInput("kraken_profile_version: only version 1 is known");
      } else if (key == "metadata" && v.get(o) == simdjson::SUCCESS) {
        ReadMetadata(o, profile.metadata);
      } else if (key == "devices" && v.get(a) == simdjson::SUCCESS) {
        for (auto d : a)
          if (d.get(o) == simdjson::SUCCESS) ReadDevice(o, profile.devices.emplace_back());
      } else if (key == "series" && v.get(a) == simdjson::SUCCESS) {
        for (auto s : a) {
          Series series;
          if (s.get(o) == simdjson::SUCCESS && ReadSeries(o, series, bad_samples)) {
            profile.series.push_back(std::move(series));
          } else {
            ++bad_series;
          }
        }
      } else if (key == "import_counters" && v.get(o) == simdjson::SUCCESS) {
        for (auto c : o) {
          std::string_view name;
          int64_t count = 0;
          if (c.unescaped_key().get(name) == simdjson::SUCCESS && c.value().get(count) == simdjson::SUCCESS)
            profile.import_counters[std::string(name)] = count;
        }
      } else if (v.get(a) == simdjson::SUCCESS) {
        size_t count = 0;
        if (a.count_elements().get(count) == simdjson::SUCCESS && count > 0)
          profile.import_counters["kraken_json_skipped_" + std::string(key)] += static_cast<int64_t>(count);
      }
    }
    if (bad_series > 0) profile.import_counters["kraken_json_unreadable_series"] += bad_series;
    if (bad_samples > 0) profile.import_counters["kraken_json_unreadable_samples"] += bad_samples;
    // The exported metadata names what was profiled; keep where this copy was read from too.
    profile.metadata.attributes["read_from"] = source;
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Importer> CreateKrakenJsonImporter() { return std::make_unique<KrakenJsonImporter>(); }

}  // namespace kraken
