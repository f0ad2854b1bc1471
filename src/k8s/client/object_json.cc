#include "k8s/client/object_json.h"

#include "k8s/client/object_json_read.h"

namespace kraken::k8s {
namespace {

constexpr std::string_view kObjectContext = "Kubernetes object";

Status ReadOwner(simdjson::ondemand::object owner, std::string_view context, ObjectMetadata* out) {
  ObjectRef ref;
  bool controller = false;
  for (auto field : owner) {
    std::string_view key, text;
    if (auto e = field.unescaped_key().get(key)) return ObjectJsonError(context, "ownerReferences key", e);
    std::string k(key);  // the key's buffer is reused by the value
    if (k == "controller") {
      if (auto e = field.value().get_bool().get(controller)) return ObjectJsonError(context, "controller", e);
      continue;
    }
    if (k != "apiVersion" && k != "kind" && k != "name") continue;
    if (auto e = field.value().get_string().get(text)) return ObjectJsonError(context, k, e);
    (k == "apiVersion" ? ref.api_version : k == "kind" ? ref.kind : ref.name) = std::string(text);
  }
  if (controller && !ref.kind.empty() && !ref.name.empty()) out->controllers.push_back(std::move(ref));
  return Status::Ok();
}

Status ReadOwners(simdjson::ondemand::value value, std::string_view context, ObjectMetadata* out) {
  simdjson::ondemand::array owners;
  if (auto e = value.get_array().get(owners)) return ObjectJsonError(context, "ownerReferences", e);
  for (auto owner : owners) {
    simdjson::ondemand::object object;
    if (auto e = std::move(owner).get_object().get(object)) return ObjectJsonError(context, "ownerReference", e);
    KRAKEN_RETURN_IF_ERROR(ReadOwner(object, context, out));
  }
  return Status::Ok();
}

// metadata.annotations or metadata.labels: a map of strings.
Status ReadStringMap(simdjson::ondemand::value value, std::string_view context, std::string_view what,
                     bool (*keep)(std::string_view), std::map<std::string, std::string>* out) {
  simdjson::ondemand::object object;
  if (auto e = value.get_object().get(object)) return ObjectJsonError(context, what, e);
  for (auto entry : object) {
    std::string_view name, text;
    if (auto e = entry.unescaped_key().get(name)) return ObjectJsonError(context, what, e);
    if (keep != nullptr && !keep(name)) continue;
    std::string name_copy(name);  // the key's buffer is reused by the value
    if (auto e = entry.value().get_string().get(text))
      return ObjectJsonError(context, std::string(what) + " value " + name_copy, e);
    (*out)[name_copy] = std::string(text);
  }
  return Status::Ok();
}

}  // namespace

Status ObjectJsonError(std::string_view context, std::string_view what, simdjson::error_code e) {
  return InvalidInput(std::string(context) + ": " + std::string(what) + ": " + simdjson::error_message(e));
}

Status ReadObjectMetadata(simdjson::ondemand::object metadata, std::string_view context, const MetadataKeep& keep,
                          ObjectMetadata* out) {
  for (auto field : metadata) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return ObjectJsonError(context, "metadata key", e);
    bool is_annotations = key == "annotations", is_labels = key == "labels";
    if (key == "name" || key == "namespace" || key == "uid") {
      std::string* target = key == "name" ? &out->name : key == "uid" ? &out->uid : &out->namespace_name;
      std::string_view text;
      if (auto e = field.value().get_string().get(text)) return ObjectJsonError(context, "metadata name", e);
      *target = std::string(text);
    } else if (is_annotations || (is_labels && keep.labels)) {
      simdjson::ondemand::value value;
      if (auto e = field.value().get(value)) return ObjectJsonError(context, "metadata", e);
      KRAKEN_RETURN_IF_ERROR(ReadStringMap(value, context, is_annotations ? "annotations" : "labels",
                                           is_annotations ? keep.annotation : keep.label,
                                           is_annotations ? &out->annotations : &out->labels));
    } else if (key == "ownerReferences" && keep.owners) {
      simdjson::ondemand::value value;
      if (auto e = field.value().get(value)) return ObjectJsonError(context, "ownerReferences", e);
      KRAKEN_RETURN_IF_ERROR(ReadOwners(value, context, out));
    }
  }
  return Status::Ok();
}

Result<ObjectMeta> ParseObjectMeta(std::string_view json, const std::string& namespace_name) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  simdjson::ondemand::document doc;
  if (auto e = parser.iterate(padded).get(doc)) return ObjectJsonError(kObjectContext, "not JSON", e);
  simdjson::ondemand::object root;
  if (auto e = doc.get_object().get(root)) return ObjectJsonError(kObjectContext, "not an object", e);
  ObjectMetadata metadata;
  ObjectMeta meta;
  for (auto field : root) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return ObjectJsonError(kObjectContext, "key", e);
    if (key == "metadata") {
      simdjson::ondemand::object object;
      if (auto e = field.value().get_object().get(object)) return ObjectJsonError(kObjectContext, "metadata", e);
      KRAKEN_RETURN_IF_ERROR(ReadObjectMetadata(object, kObjectContext, MetadataKeep{}, &metadata));
    } else if (key == "spec") {
      simdjson::ondemand::object spec;
      if (auto e = field.value().get_object().get(spec)) return ObjectJsonError(kObjectContext, "spec", e);
      for (auto s : spec) {
        std::string_view spec_key, node;
        if (auto e = s.unescaped_key().get(spec_key)) return ObjectJsonError(kObjectContext, "spec key", e);
        if (spec_key != "nodeName") continue;
        if (auto e = s.value().get_string().get(node)) return ObjectJsonError(kObjectContext, "nodeName", e);
        meta.node_name = std::string(node);
      }
    }
  }
  meta.annotations = std::move(metadata.annotations);
  meta.labels = std::move(metadata.labels);
  meta.controllers = std::move(metadata.controllers);
  for (ObjectRef& owner : meta.controllers) owner.namespace_name = namespace_name;
  return meta;
}

}  // namespace kraken::k8s
