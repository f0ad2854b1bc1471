// Importer for PyTorch-profiler (Kineto) Chrome-trace JSON: current and legacy schema,
// CUDA, ROCm and MTIA traces, one file per rank. The file is streamed (see
// JsonStreamWalker) so a multi-GB trace needs memory for its model, not for its text.
#include <simdjson.h>

#include "base/text.h"
#include "importers/builtin_importers.h"
#include "importers/common/json_stream_walker.h"
#include "importers/kineto/kineto_event_parser.h"
#include "importers/kineto/kineto_schema.h"

namespace kraken {
namespace {

namespace od = simdjson::ondemand;

std::string_view SkipSpaces(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  return s.substr(i);
}

// Top-level scalar members are kept as attributes; long ones are cut to stay readable.
constexpr size_t kMaxAttributeLength = 256;

class KinetoImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override {
    static const ImporterDescriptor kDescriptor{
        "kineto", "PyTorch profiler / Kineto Chrome trace (CUDA, ROCm, MTIA; current and legacy schema)",
        "*.pt.trace.json[.gz], one file per rank; .tar[.gz] of several"};
    return kDescriptor;
  }

  SniffResult Sniff(std::string_view head) const override {
    std::string_view s = SkipSpaces(head);
    if (s.empty()) return SniffResult::kNo;
    if (s[0] == '{') {
      for (std::string_view key : {"\"traceEvents\"", "\"schemaVersion\"", "\"deviceProperties\"",
                                   "\"distributedInfo\""}) {
        if (head.find(key) != std::string_view::npos) return SniffResult::kYes;
      }
      // Some tools put a large metadata object before "traceEvents" (TraceLens runs do):
      // any other JSON object may still be a trace, unless a more specific format claims it.
      s = SkipSpaces(s.substr(1));
      return !s.empty() && s[0] == '"' ? SniffResult::kMaybe : SniffResult::kNo;
    }
    if (s[0] == '[') {
      s = SkipSpaces(s.substr(1));
      if (s.empty() || s[0] != '{') return SniffResult::kNo;
      return head.find("\"ph\"") != std::string_view::npos ? SniffResult::kYes : SniffResult::kMaybe;
    }
    return SniffResult::kNo;
  }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    Profile& profile = sink.NewProfile(input, descriptor().name);
    kineto::EventParser events(&profile);
    JsonStreamWalker walker(*input.stream, kineto::kTraceEvents, input.progress);
    JsonStreamWalker::Callbacks callbacks;
    callbacks.on_element = [&](std::string_view event, uint64_t) { events.Parse(event); };
    callbacks.on_member = [&](std::string_view key, std::string_view value) {
      return ReadMember(key, value, &profile);
    };
    KRAKEN_RETURN_IF_ERROR(walker.Walk(callbacks));
    if (!walker.found_array()) {
      sink.profiles().pop_back();
      return InvalidInput("JSON document has no \"traceEvents\" array: not a Chrome trace");
    }
    events.Finish();
    profile.import_counters["kineto_events"] = static_cast<int64_t>(walker.elements());
    profile.metadata.accelerator_vendor = DetectVendor(profile);
    return Status::Ok();
  }

 private:
  static Status ReadMember(std::string_view key, std::string_view value, Profile* profile) {
    od::parser parser;
    od::document doc;
    if (key == kineto::kDeviceProperties) {
      if (parser.iterate(value.data(), value.size(), value.size() + kJsonReadPadding).get(doc))
        return InvalidInput("deviceProperties is not valid JSON");
      ReadDeviceProperties(doc, profile);
      return Status::Ok();
    }
    if (key == kineto::kDistributedInfo) {
      if (parser.iterate(value.data(), value.size(), value.size() + kJsonReadPadding).get(doc))
        return InvalidInput("distributedInfo is not valid JSON");
      ReadDistributedInfo(doc, profile);
      return Status::Ok();
    }
    std::string_view v = Trim(value);
    if (key == kineto::kBaseTimeNanoseconds) {
      if (auto n = ParseInt64(v)) profile->metadata.base_time_ns = *n;
      return Status::Ok();
    }
    if (v.empty() || v[0] == '{' || v[0] == '[') return Status::Ok();  // nested: not kept
    if (v.size() >= 2 && v[0] == '"') v = v.substr(1, v.size() - 2);
    if (v.size() > kMaxAttributeLength) v = v.substr(0, kMaxAttributeLength);
    profile->metadata.attributes[std::string(key)] = std::string(v);
    if (key == "host_name" || key == "hostname") profile->metadata.hostname = std::string(v);
    return Status::Ok();
  }

  static int64_t IntField(od::object& object, std::string_view name, int64_t fallback = -1) {
    int64_t value = fallback;
    od::value v;
    if (object.find_field_unordered(name).get(v)) return fallback;
    if (v.get_int64().get(value)) {
      double d = 0;
      if (!v.get_double().get(d)) return static_cast<int64_t>(d);
      return fallback;
    }
    return value;
  }

  static void ReadDeviceProperties(od::document& doc, Profile* profile) {
    od::array array;
    if (doc.get_array().get(array)) return;
    for (auto element : array) {
      od::object object;
      if (element.get_object().get(object)) continue;
      DeviceInfo device;
      device.index = static_cast<int32_t>(IntField(object, "id"));
      std::string_view name;
      od::value v;
      if (!object.find_field_unordered("name").get(v) && !v.get_string().get(name)) device.name = std::string(name);
      device.memory_bytes = IntField(object, "totalGlobalMem");
      device.compute_major = static_cast<int32_t>(IntField(object, "computeMajor"));
      device.compute_minor = static_cast<int32_t>(IntField(object, "computeMinor"));
      device.max_threads_per_sm = static_cast<int32_t>(IntField(object, "maxThreadsPerMultiprocessor"));
      device.registers_per_sm = static_cast<int32_t>(IntField(object, "regsPerMultiprocessor"));
      device.warp_size = static_cast<int32_t>(IntField(object, "warpSize"));
      device.shared_memory_per_sm_bytes = IntField(object, "sharedMemPerMultiprocessor");
      device.sm_count = static_cast<int32_t>(IntField(object, "numSms"));
      if (device.sm_count < 0) {
        // 2021-era traces nest the counts in "computeProperties".
        od::object nested;
        if (!object.find_field_unordered("computeProperties").get_object().get(nested)) {
          device.sm_count = static_cast<int32_t>(IntField(nested, "multiProcessorCount"));
          device.compute_major = static_cast<int32_t>(IntField(nested, "major", device.compute_major));
          device.compute_minor = static_cast<int32_t>(IntField(nested, "minor", device.compute_minor));
        }
      }
      if (device.warp_size == 64 || ContainsIgnoreCase(device.name, "AMD") ||
          ContainsIgnoreCase(device.name, "Instinct")) {
        device.vendor = Vendor::kAmd;
      } else if (!device.name.empty()) {
        device.vendor = Vendor::kNvidia;
      }
      profile->devices.push_back(std::move(device));
    }
  }

  static void ReadDistributedInfo(od::document& doc, Profile* profile) {
    od::object object;
    if (doc.get_object().get(object)) return;
    for (auto field_result : object) {
      od::field field;
      if (std::move(field_result).get(field)) return;
      std::string_view key;
      if (field.unescaped_key().get(key)) return;
      od::value v = field.value();
      int64_t n = 0;
      std::string_view s;
      if (key == "rank") {
        if (!v.get_int64().get(n)) profile->metadata.rank = n;
      } else if (key == "world_size") {
        if (!v.get_int64().get(n)) profile->metadata.world_size = n;
      } else if (key == "backend") {
        if (!v.get_string().get(s)) profile->metadata.distributed_backend = std::string(s);
      } else if (key == "pg_count") {
        if (!v.get_int64().get(n)) profile->metadata.attributes["pg_count"] = std::to_string(n);
      } else if (key == "nccl_version") {
        if (!v.get_string().get(s)) profile->metadata.attributes["nccl_version"] = std::string(s);
      }
    }
  }

  static Vendor DetectVendor(const Profile& profile) {
    const auto& attrs = profile.metadata.attributes;
    if (attrs.count("roctracer_version") || attrs.count("hip_runtime_version")) return Vendor::kAmd;
    for (const auto& device : profile.devices)
      if (device.vendor != Vendor::kUnknown) return device.vendor;
    for (const auto& call : profile.runtime_calls) {
      std::string_view name = profile.Name(call.name);
      if (StartsWith(name, "hip")) return Vendor::kAmd;
      if (StartsWith(name, "cuda") || StartsWith(name, "cu")) return Vendor::kNvidia;
      if (StartsWith(name, "runFunction")) return Vendor::kMeta;
    }
    if (StartsWith(profile.metadata.distributed_backend, "mtia")) return Vendor::kMeta;
    return Vendor::kUnknown;
  }
};

}  // namespace

std::unique_ptr<Importer> CreateKinetoImporter() { return std::make_unique<KinetoImporter>(); }

}  // namespace kraken
