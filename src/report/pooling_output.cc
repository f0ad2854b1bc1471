#include "report/pooling_output.h"

#include <cstdio>

#include "base/json_writer.h"
#include "base/text.h"
#include "base/text_table.h"
#include "report/explain_output.h"

namespace kraken {
namespace {

std::string PercentOrDash(bool measured, double ratio) { return measured ? FormatFixed(ratio * 100, 1) + "%" : "-"; }

std::string GpuName(const pooling::PodGpuUse& use) {
  if (use.device != nullptr) return use.device->id;
  return "unknown";
}

double HoursOf(int64_t seconds) { return static_cast<double>(seconds) / 3600.0; }

}  // namespace

std::string RenderClusterPoolingText(const ClusterPoolingView& v) {
  const pooling::PoolingReport& r = v.report;
  std::string out;
  out += "Prometheus " + v.prometheus_url + "  namespace " + v.namespace_name +
         (v.pod.empty() ? "" : "  pod " + v.pod) + "\n";
  out += "  range " + FormatFixed(HoursOf(v.end_s - v.start_s), 1) + " h ending at " + std::to_string(v.end_s) +
         " (Unix s), step " + std::to_string(v.step_s) + " s" +
         (v.step_reason.empty() ? "" : " (" + v.step_reason + ")") + ", " + std::to_string(v.windows) + " query window(s), " +
         std::to_string(v.series_received) + " series, " + std::to_string(v.points_received) + " points\n";
  for (const auto& [name, value] : v.counters)
    if (value > 0) out += "  " + name + ": " + std::to_string(value) + "\n";
  out += "\n";
  TextTable table(
      {"POD", "NODE", "GPU", "SLICE", "BUSY P95", "COMPUTE P95", "MEMORY PEAK", "ACTION", "SMALLER GPU", "WHY"},
      {TextTable::Align::kLeft, TextTable::Align::kLeft, TextTable::Align::kLeft, TextTable::Align::kLeft,
       TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kLeft,
       TextTable::Align::kLeft, TextTable::Align::kLeft});
  for (const pooling::PodRecommendation& rec : r.pods) {
    const pooling::PodGpuUse& use = v.uses[rec.use];
    table.AddRow({use.namespace_name + "/" + use.pod, use.node, GpuName(use),
                  use.mig_profile.empty() ? "-" : use.mig_profile,
                  PercentOrDash(use.demand.gpu_busy.measured, use.demand.gpu_busy.p95),
                  PercentOrDash(rec.need.compute_measured, rec.need.compute_p95),
                  rec.need.memory_measured ? FormatBytes(rec.need.memory_bytes) : "-",
                  pooling::PoolActionName(rec.action), rec.smaller_gpu != nullptr ? rec.smaller_gpu->id : "-",
                  rec.detail});
  }
  out += r.pods.empty() ? "  no pod in this namespace has DCGM series in the range\n" : table.Render();
  if (!r.groups.empty()) {
    out += "\nPooled GPUs:\n";
    for (size_t g = 0; g < r.groups.size(); ++g) {
      const pooling::PoolGroup& group = r.groups[g];
      out += "  " + std::to_string(g + 1) + ". " + pooling::PoolActionName(group.action) + " on one " +
             (group.device_id.empty() ? "GPU" : group.device_id) + ":";
      for (size_t k = 0; k < group.uses.size(); ++k) {
        const pooling::PodGpuUse& use = v.uses[group.uses[k]];
        out += " " + use.namespace_name + "/" + use.pod;
        if (k < group.mig_profiles.size()) out += " [" + group.mig_profiles[k] + "]";
      }
      out += "  (compute p95 sum " + FormatFixed(group.compute_p95_sum * 100, 1) + "%, memory " +
             FormatBytes(group.memory_bytes_sum) + ")\n";
    }
  }
  double hours = HoursOf(v.end_s - v.start_s);
  out += "\nGPUs held now " + std::to_string(r.gpus_now) + ", reclaimable (idle) " + std::to_string(r.gpus_reclaimed) +
         ", after pooling " + std::to_string(r.gpus_after) + ": " + std::to_string(r.gpus_saved) + " GPU(s) saved (" +
         FormatFixed(r.gpus_saved * hours, 1) + " GPU-hours over the range)\n";
  if (v.explain) {
    for (const pooling::PodRecommendation& rec : r.pods) {
      const pooling::PodGpuUse& use = v.uses[rec.use];
      out += "\n-- " + use.namespace_name + "/" + use.pod + " (" + pooling::PoolActionName(rec.action) + ")\n";
      RenderExplanationText(out, rec.explanation);
    }
    out += "\nassumes:\n";
    for (const std::string& a : r.assumptions) out += "  - " + a + "\n";
  }
  return out;
}

std::string RenderClusterPoolingJson(const ClusterPoolingView& v) {
  const pooling::PoolingReport& r = v.report;
  JsonWriter json;
  json.BeginObject();
  json.Key("source").BeginObject();
  json.Field("prometheus", v.prometheus_url).Field("query", v.query).Field("namespace", v.namespace_name);
  json.Field("pod", v.pod).Field("start_s", v.start_s).Field("end_s", v.end_s).Field("step_s", v.step_s);
  json.Field("step_reason", v.step_reason).Field("sample_interval_s", v.sample_interval_s);
  json.Field("windows", v.windows).Field("series", v.series_received).Field("points", v.points_received);
  json.Key("counters").BeginObject();
  for (const auto& [name, value] : v.counters) json.Field(name, value);
  json.EndObject().EndObject();
  json.Field("max_slowdown", r.max_slowdown);  // a ratio, as mig-plan's
  json.Key("pods").BeginArray();
  for (const pooling::PodRecommendation& rec : r.pods) {
    const pooling::PodGpuUse& use = v.uses[rec.use];
    const WorkloadDemand& d = use.demand;
    json.BeginObject();
    json.Field("namespace", use.namespace_name).Field("pod", use.pod).Field("node", use.node);
    json.Field("gpu_uuid", use.gpu_uuid).Field("gpu_model", use.device != nullptr ? use.device->id : "");
    json.Field("mig_profile", use.mig_profile);
    auto stat = [&](const char* key, const DemandStat& s) {
      json.Key(key);
      if (!s.measured) {
        json.Null();
        return;
      }
      json.BeginObject()
          .Field("mean", s.mean)
          .Field("p95", s.p95)
          .Field("max", s.max)
          .Field("basis", s.basis)
          .EndObject();
    };
    stat("gpu_busy", d.gpu_busy);
    stat("sm_active", d.sm_active);
    stat("tensor_active", d.tensor_active);
    stat("dram_active", d.dram_active);
    stat("memory_bytes", d.memory_bytes);
    json.Field("samples_span_s", d.duration_s);
    json.Field("compute_p95", rec.need.compute_p95).Field("compute_measured", rec.need.compute_measured);
    json.Field("action", pooling::PoolActionName(rec.action)).Field("detail", rec.detail);
    json.Field("smaller_gpu", rec.smaller_gpu != nullptr ? rec.smaller_gpu->id : "");
    if (v.explain) {
      json.Key("explanation");
      WriteExplanationJson(json, rec.explanation);
    }
    json.EndObject();
  }
  json.EndArray();
  json.Key("groups").BeginArray();
  for (const pooling::PoolGroup& g : r.groups) {
    json.BeginObject().Field("action", pooling::PoolActionName(g.action)).Field("device", g.device_id);
    json.Key("pods").BeginArray();
    for (int u : g.uses) json.String(v.uses[u].namespace_name + "/" + v.uses[u].pod);
    json.EndArray();
    json.Key("mig_profiles").BeginArray();
    for (const std::string& p : g.mig_profiles) json.String(p);
    json.EndArray();
    json.Field("compute_p95_sum", g.compute_p95_sum).Field("memory_bytes_sum", g.memory_bytes_sum).EndObject();
  }
  json.EndArray();
  json.Key("gpus").BeginObject();
  json.Field("now", r.gpus_now)
      .Field("reclaimed", r.gpus_reclaimed)
      .Field("after", r.gpus_after)
      .Field("saved", r.gpus_saved);
  json.Field("saved_gpu_hours", r.gpus_saved * HoursOf(v.end_s - v.start_s));
  json.EndObject();
  json.Key("assumptions").BeginArray();
  for (const std::string& a : r.assumptions) json.String(a);
  json.EndArray();
  json.EndObject();
  return json.Take() + "\n";
}

}  // namespace kraken
