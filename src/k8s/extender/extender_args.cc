// ParseExtenderArgs: the parts of ExtenderArgs the extender reads. Pod: metadata (name,
// namespace, kraken.io/* annotations) and the nvidia.com/gpu its containers ask for. Node:
// metadata (name, annotations, the GPU labels) and status.allocatable/capacity GPUs.
#include <algorithm>
#include <cmath>
#include <limits>

#include "base/number_input.h"
#include "base/text.h"
#include "k8s/client/annotations.h"
#include "k8s/client/demand_annotation.h"
#include "k8s/client/object_json_read.h"
#include "k8s/client/topology_annotation.h"
#include "k8s/extender/scheduler_extender.h"

namespace kraken::k8s {
namespace {

constexpr char kGpuResource[] = "nvidia.com/gpu";
// More GPUs than any pod or node has; the summed requests saturate well below int64.
constexpr int64_t kMaxGpuQuantity = 1'000'000;

constexpr std::string_view kContext = "ExtenderArgs";

Status JsonError(std::string_view what, simdjson::error_code e) { return ObjectJsonError(kContext, what, e); }

bool IsReadLabel(std::string_view key) {
  return key == "kraken.io/gpu-class" || key == "nvidia.com/gpu.product" || key == "nvidia.com/gpu.count" ||
         key == "nvidia.com/gpu.replicas" || key == "nvidia.com/gpu.sharing-strategy";
}

// Fields of one object the extender keeps; null pointers for what the caller ignores.
struct ObjectSink {
  std::string* name = nullptr;
  std::string* namespace_name = nullptr;
  GpuProfileHint* hint = nullptr;
  std::map<std::string, std::string>* labels = nullptr;
  int64_t* pod_gpus = nullptr;          // spec.containers[].resources
  int64_t* allocatable_gpus = nullptr;  // status.allocatable
  int64_t* capacity_gpus = nullptr;     // status.capacity
  std::vector<ObjectRef>* controllers = nullptr;  // ownerReferences with controller: true
};

void ReadAnnotation(std::string_view key, std::string_view v, GpuProfileHint* hint) {
  if (key == kGpuUtilP95Key) {
    std::optional<double> p95 = ParseDouble(v);
    if (p95 && std::isfinite(*p95)) hint->gpu_util_p95 = std::clamp(*p95, 0.0, 1.0);
  } else if (key == kBoundKey) {
    hint->bound = std::string(v);
  } else if (key == kColocationClassKey) {
    hint->colocation_class = std::string(v);
  } else if (key == kDemandKey) {
    hint->demand = std::string(v);
  } else if (key == kResidentDemandKey) {
    hint->resident_demand = std::string(v);
  } else if (key == kGpuTopologyKey) {
    hint->gpu_topology = std::string(v);
  } else if (key == kTopologyRequirementKey) {
    hint->topology_requirement = std::string(Trim(v));
  }
}

bool IsReadAnnotation(std::string_view key) {
  return key == kGpuUtilP95Key || key == kBoundKey || key == kColocationClassKey || key == kDemandKey ||
         key == kResidentDemandKey || key == kGpuTopologyKey || key == kTopologyRequirementKey;
}

Status ReadMetadata(simdjson::ondemand::object object, const ObjectSink& sink) {
  ObjectMetadata metadata;
  MetadataKeep keep;
  keep.annotation = IsReadAnnotation;
  keep.label = IsReadLabel;
  keep.labels = sink.labels != nullptr;
  keep.owners = sink.controllers != nullptr;
  KRAKEN_RETURN_IF_ERROR(ReadObjectMetadata(object, kContext, keep, &metadata));
  if (sink.name != nullptr) *sink.name = std::move(metadata.name);
  if (sink.namespace_name != nullptr) *sink.namespace_name = std::move(metadata.namespace_name);
  for (const auto& [key, value] : metadata.annotations) ReadAnnotation(key, value, sink.hint);
  if (sink.labels != nullptr) *sink.labels = std::move(metadata.labels);
  if (sink.controllers != nullptr) *sink.controllers = std::move(metadata.controllers);
  return Status::Ok();
}

// The nvidia.com/gpu entry of a resource map ("8" as Kubernetes writes quantities, or a
// bare number); -1 when absent; InvalidInput when it is not a whole count in range.
Result<int64_t> GpuQuantity(simdjson::ondemand::value value, std::string_view what) {
  simdjson::ondemand::object map;
  if (auto e = value.get_object().get(map)) return JsonError(what, e);
  int64_t out = -1;
  for (auto f : map) {
    std::string_view k;
    if (auto e = f.unescaped_key().get(k)) return JsonError(what, e);
    if (k != kGpuResource) continue;
    simdjson::ondemand::value v;
    if (auto e = f.value().get(v)) return JsonError(what, e);
    // Written as a quantity string ("8") or a bare number; either way through the one
    // bounded parser: "inf", "-1", "1e999" or 2^63 are refused, not wrapped or ignored.
    std::string_view text;
    double number = 0;
    std::optional<double> count;
    if (!v.get_string().get(text)) count = ParseBoundedNumber(Trim(text), 0, kMaxGpuQuantity);
    else if (!v.get_double().get(number)) count = BoundedNumber(number, 0, kMaxGpuQuantity);
    if (!count || *count != std::floor(*count))
      return InvalidInput("ExtenderArgs: " + std::string(what) + ": " + std::string(kGpuResource) + " must be a whole count in [0, " +
                          std::to_string(kMaxGpuQuantity) + "]");
    out = static_cast<int64_t>(*count);
  }
  return out;
}

// Sum over spec.containers of the GPUs each asks for (limits, which the device plugin
// requires, else requests).
Status ReadPodSpec(simdjson::ondemand::object spec, int64_t* gpus) {
  for (auto field : spec) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("spec key", e);
    if (key != "containers") continue;
    simdjson::ondemand::array containers;
    if (auto e = field.value().get_array().get(containers)) return JsonError("containers", e);
    for (auto c : containers) {
      simdjson::ondemand::object container;
      if (auto e = std::move(c).get_object().get(container)) return JsonError("container", e);
      int64_t limit = -1, request = -1;
      for (auto cf : container) {
        std::string_view ck;
        if (auto e = cf.unescaped_key().get(ck)) return JsonError("container key", e);
        if (ck != "resources") continue;
        simdjson::ondemand::object resources;
        if (auto e = cf.value().get_object().get(resources)) return JsonError("resources", e);
        for (auto r : resources) {
          std::string_view rk;
          if (auto e = r.unescaped_key().get(rk)) return JsonError("resources key", e);
          bool is_limit = rk == "limits";
          if (!is_limit && rk != "requests") continue;
          bool limits = is_limit;  // rk's buffer is reused by the value
          simdjson::ondemand::value value;
          if (auto e = r.value().get(value)) return JsonError("resources", e);
          KRAKEN_ASSIGN_OR_RETURN(int64_t n, GpuQuantity(value, limits ? "limits" : "requests"));
          (limits ? limit : request) = n;
        }
      }
      // Saturates: a wrapped sum once turned two huge asks into "1 GPU" and admitted the pod.
      int64_t asked = std::max<int64_t>(0, limit >= 0 ? limit : request);
      *gpus = asked > std::numeric_limits<int64_t>::max() - *gpus ? std::numeric_limits<int64_t>::max() : *gpus + asked;
    }
  }
  return Status::Ok();
}

Status ReadNodeStatus(simdjson::ondemand::object status, const ObjectSink& sink) {
  for (auto field : status) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("status key", e);
    if (key != "allocatable" && key != "capacity") continue;
    int64_t* target = key == "allocatable" ? sink.allocatable_gpus : sink.capacity_gpus;
    simdjson::ondemand::value value;
    if (auto e = field.value().get(value)) return JsonError("status", e);
    KRAKEN_ASSIGN_OR_RETURN(int64_t n, GpuQuantity(value, target == sink.allocatable_gpus ? "allocatable" : "capacity"));
    if (target != nullptr) *target = n;
  }
  return Status::Ok();
}

Status ReadObject(simdjson::ondemand::object object, const ObjectSink& sink) {
  for (auto field : object) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("key", e);
    simdjson::ondemand::object part;
    if (key == "metadata") {
      if (auto e = field.value().get_object().get(part)) return JsonError("metadata", e);
      KRAKEN_RETURN_IF_ERROR(ReadMetadata(part, sink));
    } else if (key == "spec" && sink.pod_gpus != nullptr) {
      if (auto e = field.value().get_object().get(part)) return JsonError("spec", e);
      KRAKEN_RETURN_IF_ERROR(ReadPodSpec(part, sink.pod_gpus));
    } else if (key == "status" && sink.allocatable_gpus != nullptr) {
      if (auto e = field.value().get_object().get(part)) return JsonError("status", e);
      KRAKEN_RETURN_IF_ERROR(ReadNodeStatus(part, sink));
    }
  }
  return Status::Ok();
}

// Checked as nodes arrive, so an oversized request stops before it is all parsed.
Status CheckNodeCount(const ExtenderRequest& request) {
  if (request.nodes.size() <= kMaxExtenderNodes) return Status::Ok();
  return InvalidInput("ExtenderArgs: more than " + std::to_string(kMaxExtenderNodes) + " nodes");
}

Status ReadNodeList(simdjson::ondemand::value nodes_value, ExtenderRequest* request) {
  simdjson::ondemand::object list;
  if (auto e = nodes_value.get_object().get(list)) return JsonError("nodes", e);
  for (auto list_field : list) {
    std::string_view list_key;
    if (auto e = list_field.unescaped_key().get(list_key)) return JsonError("nodes key", e);
    if (list_key != "items") continue;
    simdjson::ondemand::array items;
    if (auto e = list_field.value().get_array().get(items)) return JsonError("nodes.items", e);
    for (auto item : items) {
      simdjson::ondemand::object node_object;
      if (auto e = std::move(item).get_object().get(node_object)) return JsonError("node", e);
      std::string_view raw;
      if (auto e = node_object.raw_json().get(raw)) return JsonError("node", e);
      ExtenderNode node;
      node.raw_json = std::string(raw);
      bool was_empty = false;  // rewind to read the fields after taking the raw text
      if (auto e = node_object.reset().get(was_empty)) return JsonError("node", e);
      ObjectSink sink;
      sink.name = &node.name;
      sink.hint = &node.hint;
      sink.labels = &node.labels;
      sink.allocatable_gpus = &node.allocatable_gpus;
      sink.capacity_gpus = &node.capacity_gpus;
      KRAKEN_RETURN_IF_ERROR(ReadObject(node_object, sink));
      if (node.name.empty()) return InvalidInput("ExtenderArgs: a node has no metadata.name");
      request->nodes.push_back(std::move(node));
      KRAKEN_RETURN_IF_ERROR(CheckNodeCount(*request));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<ExtenderRequest> ParseExtenderArgs(std::string_view json) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  simdjson::ondemand::document doc;
  if (auto e = parser.iterate(padded).get(doc)) return JsonError("not JSON", e);
  simdjson::ondemand::object root;
  if (auto e = doc.get_object().get(root)) return JsonError("not an object", e);
  ExtenderRequest request;
  bool have_pod = false;
  std::vector<ObjectRef> pod_controllers;
  for (auto field : root) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("key", e);
    if (key == "pod") {
      simdjson::ondemand::object pod;
      if (auto e = field.value().get_object().get(pod)) return JsonError("pod", e);
      ObjectSink sink;
      sink.name = &request.pod_name;
      sink.namespace_name = &request.pod_namespace;
      sink.hint = &request.pod;
      sink.controllers = &pod_controllers;
      sink.pod_gpus = &request.pod_gpu_request;
      KRAKEN_RETURN_IF_ERROR(ReadObject(pod, sink));
      have_pod = true;
    } else if (key == "nodenames") {
      simdjson::ondemand::array names;
      if (auto e = field.value().get_array().get(names)) return JsonError("nodenames", e);
      request.by_name = true;
      for (auto n : names) {
        std::string_view name;
        if (auto e = n.get_string().get(name)) return JsonError("nodenames", e);
        ExtenderNode node;
        node.name = std::string(name);
        request.nodes.push_back(std::move(node));
        KRAKEN_RETURN_IF_ERROR(CheckNodeCount(request));
      }
    } else if (key == "nodes") {
      simdjson::ondemand::value nodes_value;
      if (auto e = field.value().get(nodes_value)) return JsonError("nodes", e);
      bool is_null = false;
      if (auto e = nodes_value.is_null().get(is_null)) return JsonError("nodes", e);
      if (!is_null) KRAKEN_RETURN_IF_ERROR(ReadNodeList(nodes_value, &request));
    }
  }
  if (!have_pod) return InvalidInput("ExtenderArgs: no pod");
  // The pod's workload, as the controller keys its GpuWorkloadProfile: the controller
  // owner, else the pod itself.
  request.pod_workload = {"v1", "Pod", request.pod_namespace, request.pod_name};
  if (!pod_controllers.empty()) {
    request.pod_workload = pod_controllers.front();
    request.pod_workload.namespace_name = request.pod_namespace;
  }
  return request;
}

}  // namespace kraken::k8s
