// Importer for PyTorch-profiler (Kineto) Chrome-trace JSON: current and legacy schema,
// CUDA, ROCm and MTIA traces, one file per rank. The file is streamed (see
// JsonStreamWalker) so a multi-GB trace needs memory for its model, not for its text.
#include <simdjson.h>

#include <cmath>

#include "base/text.h"
#include "importers/builtin_importers.h"
#include "importers/common/json_stream_walker.h"
#include "importers/kineto/kineto_event_parser.h"
#include "importers/kineto/kineto_schema.h"

namespace kraken {
namespace {

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
      if (key == kineto::kIncrementalEvents) walker.AcceptCutArray(Trim(value) == "true");
      return ReadMember(key, value, &profile);
    };
    KRAKEN_RETURN_IF_ERROR(walker.Walk(callbacks));
    if (!walker.found_array()) {
      sink.profiles().pop_back();
      return InvalidInput("JSON document has no \"traceEvents\" array: not a Chrome trace");
    }
    events.Finish();
    profile.import_counters["kineto_events"] = static_cast<int64_t>(walker.elements());
    if (walker.array_was_cut()) {
      // An incrementally written trace whose writer was killed: what it wrote is kept.
      profile.import_counters["kineto_trace_cut"] = 1;
      if (walker.cut_partial_bytes() > 0)
        profile.import_counters["kineto_cut_partial_event_bytes"] = static_cast<int64_t>(walker.cut_partial_bytes());
    }
    profile.metadata.accelerator_vendor = DetectVendor(profile);
    return Status::Ok();
  }

 private:
  // Top-level members are small: they are read with simdjson's DOM, which (unlike
  // On-Demand) may be queried in any order and stays valid after a missing field.
  static Status ReadMember(std::string_view key, std::string_view value, Profile* profile) {
    if (key == kineto::kDeviceProperties || key == kineto::kDistributedInfo) {
      simdjson::dom::parser parser;
      simdjson::dom::element element;
      if (parser.parse(value.data(), value.size(), true).get(element))
        return InvalidInput(std::string(key) + " is not valid JSON");
      if (key == kineto::kDeviceProperties) {
        ReadDeviceProperties(element, profile);
      } else {
        ReadDistributedInfo(element, profile);
      }
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

  // An integer field of a DOM object; `fallback` when absent or not a number.
  static int64_t IntField(simdjson::dom::object object, std::string_view name, int64_t fallback = -1) {
    simdjson::dom::element e;
    if (object.at_key(name).get(e)) return fallback;
    int64_t i = 0;
    if (!e.get_int64().get(i)) return i;
    double d = 0;
    if (!e.get_double().get(d) && std::isfinite(d) && std::fabs(d) < 9e18) return static_cast<int64_t>(d);
    return fallback;
  }

  static std::string StringField(simdjson::dom::object object, std::string_view name) {
    std::string_view s;
    if (object.at_key(name).get_string().get(s)) return "";
    return std::string(s);
  }

  static void ReadDeviceProperties(simdjson::dom::element element, Profile* profile) {
    simdjson::dom::array array;
    if (element.get_array().get(array)) return;
    for (simdjson::dom::element item : array) {
      simdjson::dom::object object;
      if (item.get_object().get(object)) continue;
      DeviceInfo device;
      device.index = static_cast<int32_t>(IntField(object, "id"));
      device.name = StringField(object, "name");
      device.memory_bytes = IntField(object, "totalGlobalMem");
      device.compute_major = static_cast<int32_t>(IntField(object, "computeMajor"));
      device.compute_minor = static_cast<int32_t>(IntField(object, "computeMinor"));
      device.max_threads_per_sm = static_cast<int32_t>(IntField(object, "maxThreadsPerMultiprocessor"));
      device.registers_per_sm = static_cast<int32_t>(IntField(object, "regsPerMultiprocessor"));
      device.warp_size = static_cast<int32_t>(IntField(object, "warpSize"));
      device.shared_memory_per_sm_bytes = IntField(object, "sharedMemPerMultiprocessor");
      device.sm_count = static_cast<int32_t>(IntField(object, "numSms"));
      simdjson::dom::object nested;
      if (device.sm_count < 0 && !object.at_key("computeProperties").get_object().get(nested)) {
        // 2021-era traces nest the counts in "computeProperties".
        device.sm_count = static_cast<int32_t>(IntField(nested, "multiProcessorCount"));
        device.compute_major = static_cast<int32_t>(IntField(nested, "major", device.compute_major));
        device.compute_minor = static_cast<int32_t>(IntField(nested, "minor", device.compute_minor));
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

  static void ReadDistributedInfo(simdjson::dom::element element, Profile* profile) {
    simdjson::dom::object object;
    if (element.get_object().get(object)) return;
    int64_t rank = IntField(object, "rank", INT64_MIN);
    if (rank != INT64_MIN) profile->metadata.rank = rank;
    int64_t world = IntField(object, "world_size", INT64_MIN);
    if (world != INT64_MIN) profile->metadata.world_size = world;
    profile->metadata.distributed_backend = StringField(object, "backend");
    int64_t pg_count = IntField(object, "pg_count", INT64_MIN);
    if (pg_count != INT64_MIN) profile->metadata.attributes["pg_count"] = std::to_string(pg_count);
    std::string nccl = StringField(object, "nccl_version");
    if (!nccl.empty()) profile->metadata.attributes["nccl_version"] = nccl;
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
