#include "k8s/node_pods.h"

#include <simdjson.h>

#include "base/text.h"
#include "k8s/annotations.h"

namespace kraken::k8s {
namespace {

Status JsonError(std::string_view what, simdjson::error_code e) {
  return InvalidInput("PodList: " + std::string(what) + ": " + simdjson::error_message(e));
}

Status ReadAnnotations(simdjson::ondemand::value value, NodePod& pod) {
  simdjson::ondemand::object object;
  if (auto e = value.get_object().get(object)) return JsonError("annotations", e);
  for (auto entry : object) {
    std::string_view key, text;
    if (auto e = entry.unescaped_key().get(key)) return JsonError("annotation key", e);
    if (!IsPodSettingKey(key)) continue;
    std::string key_copy(key);  // the key's buffer is reused by the value
    if (auto e = entry.value().get_string().get(text)) return JsonError("annotation " + key_copy, e);
    pod.annotations[key_copy] = std::string(text);
  }
  return Status::Ok();
}

Status ReadItem(simdjson::ondemand::object item, NodePod& pod) {
  for (auto field : item) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("item key", e);
    if (key != "metadata") continue;
    simdjson::ondemand::object metadata;
    if (auto e = field.value().get_object().get(metadata)) return JsonError("metadata", e);
    for (auto m : metadata) {
      std::string_view name;
      if (auto e = m.unescaped_key().get(name)) return JsonError("metadata key", e);
      if (name == "annotations") {
        simdjson::ondemand::value value;
        if (auto e = m.value().get(value)) return JsonError("annotations", e);
        KRAKEN_RETURN_IF_ERROR(ReadAnnotations(value, pod));
      } else if (name == "name" || name == "namespace" || name == "uid") {
        std::string& field = name == "name" ? pod.name : name == "uid" ? pod.uid : pod.namespace_name;
        std::string what(name);  // the key's buffer is reused by the value
        std::string_view text;
        if (auto e = m.value().get_string().get(text)) return JsonError(what, e);
        field = std::string(text);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

std::string NodePodsPath(std::string_view node) {
  return "/api/v1/pods?fieldSelector=spec.nodeName%3D" + std::string(node);
}

Result<std::vector<NodePod>> ParsePodList(std::string_view json) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  simdjson::ondemand::document doc;
  if (auto e = parser.iterate(padded).get(doc)) return JsonError("not JSON", e);
  simdjson::ondemand::object root;
  if (auto e = doc.get_object().get(root)) return JsonError("not an object", e);
  std::vector<NodePod> pods;
  for (auto field : root) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("key", e);
    if (key != "items") continue;
    simdjson::ondemand::value items_value;
    if (auto e = field.value().get(items_value)) return JsonError("items", e);
    if (items_value.is_null()) continue;  // an empty list may say "items": null
    simdjson::ondemand::array items;
    if (auto e = items_value.get_array().get(items)) return JsonError("items", e);
    for (auto item : items) {
      simdjson::ondemand::object object;
      if (auto e = std::move(item).get_object().get(object)) return JsonError("item", e);
      NodePod pod;
      KRAKEN_RETURN_IF_ERROR(ReadItem(object, pod));
      if (!pod.name.empty()) pods.push_back(std::move(pod));
    }
  }
  return pods;
}

Result<std::vector<NodePod>> ListNodePods(const KubeClient& client, const std::string& node) {
  KRAKEN_ASSIGN_OR_RETURN(std::string body, client.Get(NodePodsPath(node)));
  return ParsePodList(body);
}

}  // namespace kraken::k8s
