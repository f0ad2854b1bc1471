#include "k8s/scheduler_extender.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>

#include "analysis/colocate/colocate.h"
#include "base/json_writer.h"
#include "base/text.h"
#include "base/text_table.h"
#include "k8s/annotations.h"

namespace kraken::k8s {
namespace {

constexpr double kBusyNodeP95 = 0.05;

Status JsonError(std::string_view what, simdjson::error_code e) {
  return InvalidInput("ExtenderArgs: " + std::string(what) + ": " + simdjson::error_message(e));
}

// metadata: name, namespace and the kraken.io/* annotations.
Status ReadMetadata(simdjson::ondemand::object metadata, std::string* name, std::string* namespace_name,
                    GpuProfileHint* hint) {
  for (auto field : metadata) {
    std::string_view key, text;
    if (auto e = field.unescaped_key().get(key)) return JsonError("metadata key", e);
    if (key == "name" || key == "namespace") {
      bool is_name = key == "name";
      if (auto e = field.value().get_string().get(text)) return JsonError("metadata name", e);
      if (is_name)
        *name = std::string(text);
      else if (namespace_name != nullptr)
        *namespace_name = std::string(text);
    } else if (key == "annotations") {
      simdjson::ondemand::object annotations;
      if (auto e = field.value().get_object().get(annotations)) return JsonError("annotations", e);
      for (auto a : annotations) {
        std::string_view k, v;
        if (auto e = a.unescaped_key().get(k)) return JsonError("annotation", e);
        std::string annotation(k);
        if (auto e = a.value().get_string().get(v)) return JsonError("annotation value", e);
        if (annotation == kGpuUtilP95Key) {
          std::optional<double> p95 = ParseDouble(v);
          if (p95 && std::isfinite(*p95)) hint->gpu_util_p95 = std::clamp(*p95, 0.0, 1.0);
        } else if (annotation == kBoundKey) {
          hint->bound = std::string(v);
        } else if (annotation == kColocationClassKey) {
          hint->colocation_class = std::string(v);
        }
      }
    }
  }
  return Status::Ok();
}

Status ReadObjectMetadata(simdjson::ondemand::object object, std::string* name, std::string* namespace_name,
                          GpuProfileHint* hint) {
  for (auto field : object) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("key", e);
    if (key != "metadata") continue;
    simdjson::ondemand::object metadata;
    if (auto e = field.value().get_object().get(metadata)) return JsonError("metadata", e);
    return ReadMetadata(metadata, name, namespace_name, hint);
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
  for (auto field : root) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("key", e);
    if (key == "pod") {
      simdjson::ondemand::object pod;
      if (auto e = field.value().get_object().get(pod)) return JsonError("pod", e);
      KRAKEN_RETURN_IF_ERROR(ReadObjectMetadata(pod, &request.pod_name, &request.pod_namespace, &request.pod));
      have_pod = true;
    } else if (key == "nodenames") {
      simdjson::ondemand::array names;
      if (auto e = field.value().get_array().get(names)) return JsonError("nodenames", e);
      request.by_name = true;
      for (auto n : names) {
        std::string_view name;
        if (auto e = n.get_string().get(name)) return JsonError("nodenames", e);
        request.nodes.push_back({std::string(name), {}, ""});
      }
    } else if (key == "nodes") {
      simdjson::ondemand::value nodes_value;
      if (auto e = field.value().get(nodes_value)) return JsonError("nodes", e);
      bool is_null = false;
      if (auto e = nodes_value.is_null().get(is_null)) return JsonError("nodes", e);
      if (is_null) continue;
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
          KRAKEN_RETURN_IF_ERROR(ReadObjectMetadata(node_object, &node.name, nullptr, &node.hint));
          if (node.name.empty()) return InvalidInput("ExtenderArgs: a node has no metadata.name");
          request.nodes.push_back(std::move(node));
        }
      }
    }
  }
  if (!have_pod) return InvalidInput("ExtenderArgs: no pod");
  return request;
}

std::vector<NodeDecision> DecideNodes(const ExtenderRequest& request) {
  std::vector<NodeDecision> out;
  const GpuProfileHint& pod = request.pod;
  double pod_p95 = pod.gpu_util_p95.value_or(0);
  for (const ExtenderNode& node : request.nodes) {
    NodeDecision d;
    d.node = node.name;
    double node_p95 = node.hint.gpu_util_p95.value_or(0);
    d.fill_after = std::min(1.0, node_p95 + pod_p95);
    // kraken's class table scores how well two bound classes share (1 = complementary).
    bool classes_known = !pod.bound.empty() && !node.hint.bound.empty() && node_p95 > 0;
    d.interference = classes_known ? 1.0 - ClassTableScore(pod.bound, node.hint.bound) : 0.0;
    if (!node.hint.gpu_util_p95) {
      d.reason = "no kraken annotations on the node: assumed idle";
    } else if (pod.colocation_class == "dedicated" && node_p95 > kBusyNodeP95) {
      d.fits = false;
      d.reason = "pod wants a dedicated GPU; node GPU p95 " + FormatFixed(node_p95 * 100, 1) + "%";
    } else if (node_p95 + pod_p95 > 1.0) {
      d.fits = false;
      d.reason = "GPU p95 would reach " + FormatFixed((node_p95 + pod_p95) * 100, 1) + "% (node " +
                 FormatFixed(node_p95 * 100, 1) + "% + pod " + FormatFixed(pod_p95 * 100, 1) + "%)";
    } else {
      d.reason = "fits";
    }
    double score = 0.5 * (1.0 - d.interference) + 0.5 * d.fill_after;
    d.score = d.fits ? std::clamp<int64_t>(std::llround(score * kMaxExtenderPriority), 0, kMaxExtenderPriority) : 0;
    out.push_back(std::move(d));
  }
  return out;
}

std::string FilterResponseJson(const ExtenderRequest& request, const std::vector<NodeDecision>& decisions) {
  JsonWriter json(/*pretty=*/false);
  json.BeginObject();
  if (request.by_name) {
    json.Key("nodenames").BeginArray();
    for (const NodeDecision& d : decisions)
      if (d.fits) json.String(d.node);
    json.EndArray();
  }
  json.Key("failedNodes").BeginObject();
  for (const NodeDecision& d : decisions)
    if (!d.fits) json.Field(d.node, d.reason);
  json.EndObject();
  json.Field("error", "");
  json.EndObject();
  std::string out = json.Take();
  if (request.by_name) return out;
  // "nodes": the NodeList with the Node objects as the scheduler sent them.
  std::string items;
  for (size_t i = 0; i < decisions.size() && i < request.nodes.size(); ++i) {
    if (!decisions[i].fits) continue;
    if (!items.empty()) items += ',';
    items += request.nodes[i].raw_json;
  }
  return "{\"nodes\":{\"items\":[" + items + "]}," + out.substr(1);
}

std::string PrioritizeResponseJson(const std::vector<NodeDecision>& decisions) {
  JsonWriter json(/*pretty=*/false);
  json.BeginArray();
  for (const NodeDecision& d : decisions) json.BeginObject().Field("host", d.node).Field("score", d.score).EndObject();
  json.EndArray();
  return json.Take();
}

}  // namespace kraken::k8s
