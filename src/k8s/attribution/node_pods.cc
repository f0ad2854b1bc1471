#include "k8s/attribution/node_pods.h"

#include <simdjson.h>

#include "base/text.h"
#include "k8s/client/annotations.h"
#include "k8s/client/object_json_read.h"

namespace kraken::k8s {
namespace {

constexpr std::string_view kPodListContext = "PodList";

Status JsonError(std::string_view what, simdjson::error_code e) { return ObjectJsonError(kPodListContext, what, e); }

Status ReadItem(simdjson::ondemand::object item, NodePod& pod) {
  for (auto field : item) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("item key", e);
    if (key != "metadata") continue;
    simdjson::ondemand::object object;
    if (auto e = field.value().get_object().get(object)) return JsonError("metadata", e);
    ObjectMetadata metadata;
    MetadataKeep keep;
    keep.annotation = IsPodSettingKey;
    keep.labels = false;
    keep.owners = false;
    KRAKEN_RETURN_IF_ERROR(ReadObjectMetadata(object, kPodListContext, keep, &metadata));
    pod.name = std::move(metadata.name);
    pod.namespace_name = std::move(metadata.namespace_name);
    pod.uid = std::move(metadata.uid);
    pod.annotations = std::move(metadata.annotations);
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
    bool no_items = false;  // an empty list may say "items": null
    if (auto e = items_value.is_null().get(no_items)) return JsonError("items", e);
    if (no_items) continue;
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
