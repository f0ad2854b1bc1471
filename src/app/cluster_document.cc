#include "app/cluster_document.h"

#include <cstdio>

#include "base/json_writer.h"

namespace kraken {
namespace {

void WriteOptional(JsonWriter& json, std::string_view key, std::optional<double> value) {
  json.Key(key);
  if (value) json.Number(*value);
  else json.Null();
}

void WriteGpu(JsonWriter& json, const ClusterGpu& row) {
  const SeriesEntity& e = row.entity;
  json.BeginObject().Field("hostname", e.hostname).Field("gpu_index", e.gpu_index);
  json.Field("gpu_instance_id", e.gpu_instance_id).Field("gpu_uuid", e.gpu_uuid).Field("gpu_name", e.gpu_name);
  json.Field("profile_id", row.profile_id).Field("profiles", row.profiles);
  json.Field("first_ns", row.first_ns).Field("last_ns", row.last_ns).Field("time_ns", row.last_ns);
  WriteOptional(json, "gpu_util_pct", row.gpu_util_pct);
  WriteOptional(json, "fb_used_bytes", row.fb_used_bytes);
  WriteOptional(json, "power_w", row.power_w);
  WriteOptional(json, "mean_gpu_util_pct", row.mean_gpu_util_pct);
  json.EndObject();
}

void WriteHeatmap(JsonWriter& json, const ClusterHeatmap& heat) {
  json.Key("heatmap").BeginObject().Field("metric", "gpu_util_pct").Field("start_ns", heat.start_ns);
  json.Field("bin_ns", heat.bin_ns).Field("bins", static_cast<int64_t>(heat.bins)).Key("rows").BeginArray();
  for (size_t i = 0; i < heat.rows.size(); ++i) {
    json.BeginObject().Field("gpu", static_cast<int64_t>(i)).Key("values").BeginArray();
    for (const std::optional<double>& v : heat.rows[i]) {
      if (v) json.Number(*v);
      else json.Null();
    }
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
}

void WriteUses(JsonWriter& json, std::string_view key, const std::vector<ClusterUse>& uses) {
  json.Key(key).BeginArray();
  for (const ClusterUse& u : uses) {
    json.BeginObject().Field("namespace", u.namespace_name);
    if (!u.pod.empty()) json.Field("pod", u.pod);
    json.Field("gpus", u.gpus).Field("mean_gpu_util_pct", u.mean_gpu_util_pct).Field("samples", u.samples);
    json.EndObject();
  }
  json.EndArray();
}

void WritePoolingCandidates(JsonWriter& json, const ClusterDocument& doc) {
  json.Key("pooling_candidates").BeginArray();
  for (const ClusterGpu& row : doc.gpus) {
    const std::optional<double>& mean = row.mean_gpu_util_pct;
    if (!mean || *mean >= static_cast<double>(doc.threshold_pct)) continue;
    json.BeginObject().Field("profile_id", row.profile_id).Field("hostname", row.entity.hostname);
    json.Field("gpu_index", row.entity.gpu_index).Field("gpu_instance_id", row.entity.gpu_instance_id);
    json.Field("mean_gpu_util_pct", *mean);
    char reason[160];
    std::snprintf(reason, sizeof(reason), "mean utilization %.1f %% < %lld %%: its work could share a GPU", *mean,
                  static_cast<long long>(doc.threshold_pct));
    json.Field("reason", reason).EndObject();
  }
  json.EndArray();
}

}  // namespace

std::string RenderClusterDocument(const ClusterDocument& doc) {
  JsonWriter json(false);
  json.BeginObject().Field("source", doc.source).Key("gpus").BeginArray();
  for (const ClusterGpu& row : doc.gpus) WriteGpu(json, row);
  json.EndArray();
  WriteHeatmap(json, doc.heatmap);
  WritePoolingCandidates(json, doc);
  json.Field("threshold_pct", doc.threshold_pct);
  if (doc.namespaces) WriteUses(json, "namespaces", *doc.namespaces);
  if (doc.pods) WriteUses(json, "pods", *doc.pods);
  if (doc.source == "prometheus") {
    json.Key("prometheus").BeginObject().Field("url", doc.prometheus_url).Field("start_s", doc.start_s);
    json.Field("end_s", doc.end_s).Field("step_s", doc.step_s).Field("windows", doc.windows).EndObject();
  }
  json.EndObject();
  return json.Take();
}

}  // namespace kraken
