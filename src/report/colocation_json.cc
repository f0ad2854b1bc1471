#include <cmath>

#include "analysis/colocate/model_validation.h"
#include "base/json_writer.h"
#include "report/colocation_output.h"

namespace kraken {
namespace {

// Infinite figures (an overloaded queue) are written as null by JsonWriter; the
// `overloaded` flag says why.
void WriteWorkload(JsonWriter& j, const ColocationWorkload& w) {
  j.BeginObject();
  j.Field("name", w.name).Field("workload_type", w.workload_type).Field("class", w.work_class);
  j.Field("device", w.device_id);
  j.Field("request_driven", w.request_driven);
  j.Key("inputs").BeginArray();
  for (const ColocationFigure& f : w.figures) {
    j.BeginObject().Field("name", f.name).Field("value", f.value).Field("unit", f.unit).Field("basis", f.basis);
    j.Field("assumed", f.assumed).EndObject();
  }
  j.EndArray();
  j.EndObject();
}

void WritePrediction(JsonWriter& j, const WorkloadPrediction& p) {
  j.BeginObject();
  j.Field("name", p.name).Field("slowdown", p.slowdown);
  if (p.latency_predicted) {
    j.Key("latency").BeginObject();
    j.Field("unit", p.latency_unit).Field("p99_alone_ms", p.p99_alone_ms).Field("p99_colocated_ms", p.p99_colocated_ms);
    j.Field("p99_increase", p.p99_increase).Field("overloaded", p.overloaded).EndObject();
  } else {
    j.Key("latency").Null();
  }
  j.Field("penalty", p.penalty).Field("contended_resource", p.contended_resource);
  j.Field("fits_memory", p.fits_memory);
  j.Key("qos").BeginObject();
  if (p.qos_max_slowdown > 0) j.Field("max", p.qos_max_slowdown);
  else j.Key("max").Null();
  j.Field("ok", p.qos_ok).EndObject();
  j.Key("terms").BeginArray();
  for (const FormulaTerm& t : p.terms) j.BeginObject().Field("name", t.name).Field("value", t.value).Field("formula", t.formula).EndObject();
  j.EndArray();
  j.EndObject();
}

void WriteMode(JsonWriter& j, const ModePrediction& m) {
  j.BeginObject();
  j.Field("mode", SharingModeName(m.mode)).Field("label", ModeLabel(m)).Field("feasible", m.feasible);
  if (m.feasible) j.Key("infeasible_reason").Null();
  else j.Field("infeasible_reason", m.infeasible_reason);
  j.Key("sm_shares").BeginArray();
  for (double s : m.sm_shares) j.Number(s);
  j.EndArray();
  j.Key("memory_shares").BeginArray();
  for (double s : m.memory_shares) j.Number(s);
  j.EndArray();
  j.Key("mig_profiles").BeginArray();
  for (const std::string& s : m.mig_profiles) j.String(s);
  j.EndArray();
  j.Field("split_suggested", m.split_suggested);
  j.Field("all_qos_ok", m.all_qos_ok);
  if (m.workloads.size() == 2) j.Field("score", m.score);
  else j.Key("score").Null();
  j.Key("predictions").BeginArray();
  for (const WorkloadPrediction& p : m.workloads) WritePrediction(j, p);
  j.EndArray();
  j.Key("notes").BeginArray();
  for (const std::string& n : m.notes) j.String(n);
  j.EndArray();
  const ModeValidation& v = m.validation;
  j.Key("validation").BeginObject().Field("validated", v.validated).Field("summary", ValidationText(v));
  if (v.validated) {
    j.Field("device", v.device).Field("pairs", static_cast<int64_t>(v.pairs));
    j.Field("workloads", static_cast<int64_t>(v.workloads));
    j.Field("mean_abs_error_pct", v.mean_abs_error_pct).Field("max_abs_error_pct", v.max_abs_error_pct);
  }
  j.Field("reference", v.reference).EndObject();
  j.EndObject();
}

void WriteCommon(JsonWriter& j, const ColocationReport& r, const ColocationOutputOptions& options) {
  j.Field("kraken_version", KRAKEN_VERSION_STRING);
  j.Field("model", r.model);
  if (options.device.empty()) j.Key("device").Null();
  else j.Field("device", options.device);
  j.Key("workloads").BeginArray();
  for (const ColocationWorkload& w : r.workloads) WriteWorkload(j, w);
  j.EndArray();
}

void WriteTail(JsonWriter& j, const ColocationReport& r, const ColocationOutputOptions& options) {
  j.Key("parameters").BeginArray();
  for (const ModelParameter& p : r.parameters)
    j.BeginObject().Field("name", p.name).Field("value", p.value).Field("unit", p.unit).Field("source", p.source).EndObject();
  j.EndArray();
  j.Key("assumptions").BeginArray();
  for (const std::string& a : r.assumptions) j.String(a);
  j.EndArray();
  j.Key("notes").BeginArray();
  for (const std::string& n : options.notes) j.String(n);
  j.EndArray();
}

}  // namespace

std::string RenderColocationJson(const ColocationReport& r, const ColocationOutputOptions& options) {
  JsonWriter j;
  j.BeginObject();
  WriteCommon(j, r, options);
  j.Key("modes").BeginArray();
  for (const ModePrediction& m : r.modes) WriteMode(j, m);
  j.EndArray();
  j.Key("pairs").BeginArray();
  for (const PairScore& p : r.pairs) {
    j.BeginObject();
    j.Field("a", r.workloads[p.a].name).Field("b", r.workloads[p.b].name).Field("score", p.score);
    j.Field("model", p.model).Field("class_a", p.class_a).Field("class_b", p.class_b);
    if (p.model == "class-table") {
      j.Key("best_mode").Null();
    } else {
      j.Field("best_mode", SharingModeName(p.best_mode));
    }
    j.Key("sm_split").BeginArray();
    for (double s : p.sm_split) j.Number(s);
    j.EndArray();
    j.Field("explanation", p.explanation);
    j.EndObject();
  }
  j.EndArray();
  WriteTail(j, r, options);
  j.EndObject();
  return j.Take() + "\n";
}

std::string RenderPlacementJson(const PlacementResult& result, const ColocationReport& inputs,
                                const ColocationOutputOptions& options) {
  JsonWriter j;
  j.BeginObject();
  WriteCommon(j, inputs, options);
  j.Key("placement").BeginObject();
  j.Field("feasible", result.feasible).Field("method", result.method);
  j.Field("gpus_available", static_cast<int64_t>(result.gpus_available));
  j.Field("gpus_used", static_cast<int64_t>(result.gpus.size()));
  j.Field("total_interference", result.total_interference);
  j.Key("gpus").BeginArray();
  for (const GpuAssignment& g : result.gpus) {
    j.BeginObject();
    j.Field("gpu", static_cast<int64_t>(g.gpu));
    j.Key("workloads").BeginArray();
    for (size_t i : g.workloads) j.String(inputs.workloads[i].name);
    j.EndArray();
    j.Field("reason", g.reason);
    j.Key("sharing");
    WriteMode(j, g.prediction);
    j.EndObject();
  }
  j.EndArray();
  j.Key("reasons").BeginArray();
  for (const std::string& r : result.reasons) j.String(r);
  j.EndArray();
  j.EndObject();
  WriteTail(j, inputs, options);
  j.EndObject();
  return j.Take() + "\n";
}

}  // namespace kraken
