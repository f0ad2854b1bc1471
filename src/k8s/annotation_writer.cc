#include "k8s/annotation_writer.h"

#include <simdjson.h>

#include <algorithm>

#include "base/text.h"
#include "k8s/demand_annotation.h"

namespace kraken::k8s {
namespace {

Status JsonError(std::string_view what, simdjson::error_code e) {
  return InvalidInput("Kubernetes object: " + std::string(what) + ": " + simdjson::error_message(e));
}

Status ReadOwner(simdjson::ondemand::object owner, const std::string& namespace_name, ObjectMeta* meta) {
  ObjectRef ref;
  ref.namespace_name = namespace_name;
  bool controller = false;
  for (auto field : owner) {
    std::string_view key, text;
    if (auto e = field.unescaped_key().get(key)) return JsonError("ownerReferences key", e);
    std::string k(key);
    if (k == "controller") {
      if (auto e = field.value().get_bool().get(controller)) return JsonError("controller", e);
      continue;
    }
    if (k != "apiVersion" && k != "kind" && k != "name") continue;
    if (auto e = field.value().get_string().get(text)) return JsonError(k, e);
    (k == "apiVersion" ? ref.api_version : k == "kind" ? ref.kind : ref.name) = std::string(text);
  }
  if (controller && !ref.kind.empty() && !ref.name.empty()) meta->controllers.push_back(std::move(ref));
  return Status::Ok();
}

Status ReadMetadata(simdjson::ondemand::object metadata, const std::string& namespace_name, ObjectMeta* meta) {
  for (auto field : metadata) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("metadata key", e);
    if (key == "annotations") {
      simdjson::ondemand::object annotations;
      if (auto e = field.value().get_object().get(annotations)) return JsonError("annotations", e);
      for (auto a : annotations) {
        std::string_view name, value;
        if (auto e = a.unescaped_key().get(name)) return JsonError("annotation", e);
        std::string name_copy(name);
        if (auto e = a.value().get_string().get(value)) return JsonError("annotation value", e);
        meta->annotations[name_copy] = std::string(value);
      }
    } else if (key == "ownerReferences") {
      simdjson::ondemand::array owners;
      if (auto e = field.value().get_array().get(owners)) return JsonError("ownerReferences", e);
      for (auto owner : owners) {
        simdjson::ondemand::object object;
        if (auto e = std::move(owner).get_object().get(object)) return JsonError("ownerReference", e);
        KRAKEN_RETURN_IF_ERROR(ReadOwner(object, namespace_name, meta));
      }
    }
  }
  return Status::Ok();
}

std::string Plural(std::string_view kind) { return ToLower(kind) + "s"; }

}  // namespace

std::string ObjectPath(const ObjectRef& ref) {
  bool core = ref.api_version == "v1";
  std::string path = core ? "/api/v1" : "/apis/" + ref.api_version;
  if (!ref.namespace_name.empty()) path += "/namespaces/" + ref.namespace_name;
  return path + "/" + Plural(ref.kind) + "/" + ref.name;
}

bool IsBuiltinKind(const ObjectRef& ref) {
  // Core and the k8s.io groups without a dot in the group name (apps/v1, batch/v1).
  size_t slash = ref.api_version.find('/');
  if (slash == std::string::npos) return true;
  std::string_view group = std::string_view(ref.api_version).substr(0, slash);
  return group.find('.') == std::string_view::npos || EndsWith(group, ".k8s.io");
}

Result<ObjectMeta> ParseObjectMeta(std::string_view json, const std::string& namespace_name) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  simdjson::ondemand::document doc;
  if (auto e = parser.iterate(padded).get(doc)) return JsonError("not JSON", e);
  simdjson::ondemand::object root;
  if (auto e = doc.get_object().get(root)) return JsonError("not an object", e);
  ObjectMeta meta;
  for (auto field : root) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("key", e);
    if (key == "metadata") {
      simdjson::ondemand::object metadata;
      if (auto e = field.value().get_object().get(metadata)) return JsonError("metadata", e);
      KRAKEN_RETURN_IF_ERROR(ReadMetadata(metadata, namespace_name, &meta));
    } else if (key == "spec") {
      simdjson::ondemand::object spec;
      if (auto e = field.value().get_object().get(spec)) return JsonError("spec", e);
      for (auto s : spec) {
        std::string_view spec_key, node;
        if (auto e = s.unescaped_key().get(spec_key)) return JsonError("spec key", e);
        if (spec_key != "nodeName") continue;
        if (auto e = s.value().get_string().get(node)) return JsonError("nodeName", e);
        meta.node_name = std::string(node);
      }
    }
  }
  return meta;
}

Result<bool> AnnotationWriter::Apply(const ObjectRef& ref, const std::map<std::string, std::string>& desired,
                                     ObjectMeta* meta_out) {
  const std::string path = ObjectPath(ref);
  KRAKEN_ASSIGN_OR_RETURN(std::string body, client_.Get(path));
  KRAKEN_ASSIGN_OR_RETURN(ObjectMeta meta, ParseObjectMeta(body, ref.namespace_name));
  std::map<std::string, std::string> changed = ChangedAnnotations(meta.annotations, desired);
  if (meta_out != nullptr) *meta_out = meta;
  if (changed.empty()) return false;
  KRAKEN_RETURN_IF_ERROR(
      client_.Patch(path, AnnotationPatchBody(changed), IsBuiltinKind(ref) ? kStrategicMergePatch : kJsonMergePatch));
  return true;
}

Status AnnotationWriter::AnnotatePods(const std::vector<PodResult>& pods, AnnotationStats* stats) {
  std::map<std::string, std::vector<WorkloadAnnotations>> by_node;
  std::map<std::string, std::vector<std::string>> residents;  // node -> kraken.io/resident-demand entries
  std::vector<std::pair<ObjectRef, std::vector<WorkloadAnnotations>>> by_owner;
  auto count = [&](bool patched) {
    ++stats->objects_read;
    ++(patched ? stats->objects_patched : stats->objects_unchanged);
  };
  for (const PodResult& pod : pods) {
    ObjectMeta meta;
    KRAKEN_ASSIGN_OR_RETURN(bool patched,
                            Apply({"v1", "Pod", pod.namespace_name, pod.pod}, ToAnnotations(pod.annotations), &meta));
    count(patched);
    if (!meta.node_name.empty()) by_node[meta.node_name].push_back(pod.annotations);
    if (!meta.node_name.empty() && pod.annotations.demand && !pod.annotations.demand->empty())
      residents[meta.node_name].push_back(ResidentEntry(pod.namespace_name + "/" + pod.pod,
                                                        pod.annotations.gpu_index.value_or(-1), *pod.annotations.demand));
    for (const ObjectRef& owner : meta.controllers) {
      auto it = std::find_if(by_owner.begin(), by_owner.end(), [&](const auto& entry) { return entry.first == owner; });
      if (it == by_owner.end()) it = by_owner.insert(by_owner.end(), {owner, {}});
      it->second.push_back(pod.annotations);
    }
  }
  for (const auto& [node, members] : by_node) {
    std::map<std::string, std::string> desired = ToAnnotations(AggregateJob(members));
    if (auto it = residents.find(node); it != residents.end()) desired[kResidentDemandKey] = FormatResidentDemand(it->second);
    KRAKEN_ASSIGN_OR_RETURN(bool patched, Apply({"v1", "Node", "", node}, desired));
    count(patched);
  }
  for (const auto& [owner, members] : by_owner) {
    if (members.size() < 2 || owner.kind == "ReplicaSet" || owner.kind == "DaemonSet") continue;
    KRAKEN_ASSIGN_OR_RETURN(bool patched, Apply(owner, ToAnnotations(AggregateJob(members))));
    count(patched);
  }
  return Status::Ok();
}

}  // namespace kraken::k8s
