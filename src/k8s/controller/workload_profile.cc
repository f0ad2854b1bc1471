#include "k8s/controller/workload_profile.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>

#include "base/json_writer.h"
#include "base/text.h"
#include "base/text_table.h"

namespace kraken::k8s {
namespace {

std::string Common(const std::vector<PodProfileFacts>& pods, std::string PodProfileFacts::*field) {
  std::string value = pods.empty() ? "" : pods[0].*field;
  for (const PodProfileFacts& p : pods)
    if (p.*field != value) return "mixed";
  return value;
}

// `nulls`: absent optional fields written as null, which deletes them in a merge patch.
void WriteStatus(JsonWriter& json, const WorkloadProfile& p, bool nulls = false) {
  auto number = [&](const char* key, const std::optional<double>& v, double scale) {
    if (v) json.Field(key, std::round(*v * scale) / scale);
    else if (nulls) json.Key(key).Null();
  };
  json.Field("class", p.facts.workload_class);
  if (!p.facts.bound.empty()) json.Field("bound", p.facts.bound);
  else if (nulls) json.Key("bound").Null();
  number("busyP95", p.facts.busy_p95, 1000);
  number("memoryPeakGiB", p.facts.memory_peak_gib, 10);
  number("disaggScore", p.facts.disagg_score, 1000);
  json.Field("recommendation", p.facts.recommendation).Field("pods", p.pods);
}

void WriteSpec(JsonWriter& json, const WorkloadProfile& p) {
  json.Key("workload")
      .BeginObject()
      .Field("apiVersion", p.workload.api_version)
      .Field("kind", p.workload.kind)
      .Field("name", p.workload.name)
      .EndObject();
}

// spec + status without lastUpdated, as compact JSON, to compare with the stored object.
std::string Comparable(const WorkloadProfile& p) {
  JsonWriter json(/*pretty=*/false);
  json.BeginObject().Key("spec").BeginObject();
  WriteSpec(json, p);
  json.EndObject().Key("status").BeginObject();
  WriteStatus(json, p);
  json.EndObject().EndObject();
  return json.Take();
}

// The stored object's spec and status in the same form (lastUpdated dropped); "" when
// the body cannot be read.
std::string StoredComparable(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc)) return "";
  WorkloadProfile p;
  simdjson::dom::element spec, status;
  if (doc["spec"]["workload"].get(spec) || doc["status"].get(status)) return "";
  std::string_view text;
  if (!spec["apiVersion"].get(text)) p.workload.api_version = std::string(text);
  if (!spec["kind"].get(text)) p.workload.kind = std::string(text);
  if (!spec["name"].get(text)) p.workload.name = std::string(text);
  if (!status["class"].get(text)) p.facts.workload_class = std::string(text);
  if (!status["bound"].get(text)) p.facts.bound = std::string(text);
  if (!status["recommendation"].get(text)) p.facts.recommendation = std::string(text);
  double number = 0;
  if (!status["busyP95"].get(number)) p.facts.busy_p95 = number;
  if (!status["memoryPeakGiB"].get(number)) p.facts.memory_peak_gib = number;
  if (!status["disaggScore"].get(number)) p.facts.disagg_score = number;
  int64_t pods = 0;
  if (!status["pods"].get(pods)) p.pods = static_cast<int>(pods);
  return Comparable(p);
}

}  // namespace

WorkloadProfile AggregateWorkload(const ObjectRef& workload, const std::vector<PodProfileFacts>& pods) {
  WorkloadProfile out;
  out.workload = workload;
  out.pods = static_cast<int>(pods.size());
  out.facts.workload_class = Common(pods, &PodProfileFacts::workload_class);
  out.facts.bound = Common(pods, &PodProfileFacts::bound);
  const PodProfileFacts* busiest = nullptr;
  for (const PodProfileFacts& p : pods) {
    if (p.busy_p95 && (!out.facts.busy_p95 || *p.busy_p95 > *out.facts.busy_p95)) {
      out.facts.busy_p95 = p.busy_p95;
      busiest = &p;
    }
    if (p.memory_peak_gib) out.facts.memory_peak_gib = std::max(out.facts.memory_peak_gib.value_or(0), *p.memory_peak_gib);
    if (p.disagg_score) out.facts.disagg_score = std::min(out.facts.disagg_score.value_or(1), *p.disagg_score);
  }
  if (busiest == nullptr && !pods.empty()) busiest = &pods[0];
  if (busiest != nullptr) out.facts.recommendation = busiest->recommendation;
  return out;
}

std::string WorkloadProfileName(const ObjectRef& workload) {
  std::string name = ToLower(workload.kind + "-" + workload.name);
  for (char& c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) c = '-';
  return name.substr(0, 253);
}

std::string WorkloadProfilePath(const ObjectRef& workload) {
  return std::string("/apis/") + kProfileGroupVersion + "/namespaces/" + workload.namespace_name + "/" + kProfilePlural +
         "/" + WorkloadProfileName(workload);
}

std::string WorkloadProfileJson(const WorkloadProfile& profile, const std::string& updated) {
  JsonWriter json(/*pretty=*/false);
  json.BeginObject().Field("apiVersion", kProfileGroupVersion).Field("kind", kProfileKind);
  json.Key("metadata")
      .BeginObject()
      .Field("name", WorkloadProfileName(profile.workload))
      .Field("namespace", profile.workload.namespace_name)
      .Key("labels")
      .BeginObject()
      .Field("app.kubernetes.io/managed-by", "kraken")
      .EndObject()
      .EndObject();
  json.Key("spec").BeginObject();
  WriteSpec(json, profile);
  json.EndObject().Key("status").BeginObject();
  WriteStatus(json, profile);
  json.Field("lastUpdated", updated).EndObject().EndObject();
  return json.Take();
}

Result<bool> UpsertWorkloadProfile(const KubeClient& client, const WorkloadProfile& profile, const std::string& updated) {
  const std::string path = WorkloadProfilePath(profile.workload);
  Result<std::string> stored = client.Get(path);
  if (!stored.ok() && stored.status().code() == StatusCode::kNotFound) {
    std::string collection = path.substr(0, path.rfind('/'));
    KRAKEN_RETURN_IF_ERROR(client.Post(collection, WorkloadProfileJson(profile, updated)));
    return true;
  }
  if (!stored.ok()) return stored.status();
  if (StoredComparable(*stored) == Comparable(profile)) return false;
  JsonWriter json(/*pretty=*/false);
  json.BeginObject().Key("spec").BeginObject();
  WriteSpec(json, profile);
  json.EndObject().Key("status").BeginObject();
  WriteStatus(json, profile, /*nulls=*/true);
  json.Field("lastUpdated", updated).EndObject().EndObject();
  KRAKEN_RETURN_IF_ERROR(client.Patch(path, json.Take(), kJsonMergePatch));
  return true;
}

}  // namespace kraken::k8s
