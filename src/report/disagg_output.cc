#include "report/disagg_output.h"

#include "base/json_writer.h"
#include "base/text.h"
#include "base/text_table.h"
#include "report/explain_output.h"

namespace kraken {
namespace {

using disagg::DisaggResult;
using disagg::LinkSensitivity;

std::string Pct(double ratio) { return FormatFixed(100 * ratio, 1) + "%"; }
std::string Money(double dollars) { return std::string(1, '$').append(FormatFixed(dollars, 2)); }

std::string PartText(bool measured, double value) { return measured ? FormatFixed(value, 2) : "n/a"; }

std::string LinkTable(const DisaggResult& r) {
  // One column per traffic component ("host copies", "API calls", ...): seconds added, low..high.
  std::vector<std::string> columns = {"remote link", "slowdown low", "high"};
  for (const disagg::LinkComponent& c : r.links.front().components) columns.push_back(c.name + " +s");
  std::vector<TextTable::Align> align(columns.size(), TextTable::Align::kRight);
  align[0] = TextTable::Align::kLeft;
  TextTable table(columns, align);
  for (size_t i = 0; i < r.links.size(); ++i) {
    const LinkSensitivity& s = r.links[i];
    std::vector<std::string> row = {s.link.label + (i == 0 ? " (scored)" : ""), Pct(s.slowdown_lo), Pct(s.slowdown_hi)};
    for (const disagg::LinkComponent& c : s.components)
      row.push_back(FormatFixed(c.added_lo_s, 4) + ".." + FormatFixed(c.added_hi_s, 4));
    if (s.saturated) row.back() += " (saturated)";
    table.AddRow(row);
  }
  return table.Render("    ");
}

void RenderOne(std::string& out, const DisaggResult& r, const DisaggOutputOptions& options) {
  out += "== " + r.workload + "  [" + r.source_kind;
  if (!r.workload_type.empty()) out += ", " + r.workload_type;
  if (!r.device_id.empty()) out += ", " + r.device_id;
  out += "]\n";
  out += "  score " + FormatFixed(r.score, 2) + "  (decoupling " + PartText(r.decoupling.measured, r.decoupling.score) +
         ", network " + PartText(r.network_measured, r.network_part) + ", temporal " +
         PartText(r.temporal.measured, r.temporal_part) + "; " + std::to_string(r.parts_measured) + " of 3 parts measured)\n";
  out += "  recommended: " + std::string(disagg::StrategyName(r.strategy));
  if (!r.mig_profile.empty()) out += " " + r.mig_profile;
  out += " - " + r.strategy_reason + "\n";
  out += "  impact: " + Pct(r.impact.expected) + " slower expected (range " + Pct(r.impact.lo) + " .. " +
         Pct(r.impact.hi) + ")\n";
  out += "  GPU share kept " + Pct(r.gpu_fraction_lo) + " .. " + Pct(r.gpu_fraction_hi) + "; frees " +
         FormatFixed(r.freed_lo, 2) + " .. " + FormatFixed(r.freed_hi, 2) + " GPU-h per hour = " +
         Money(r.savings_per_hour_lo) + " .. " + Money(r.savings_per_hour_hi) + " per hour, " +
         Money(r.savings_per_month_lo) + " .. " + Money(r.savings_per_month_hi) + " per month at " +
         Money(r.price_per_gpu_hour) + "/GPU-hour\n";
  if (r.network_measured) {
    out += "  network sensitivity (GPU behind a remote link):\n" + LinkTable(r);
  } else {
    out += "  network sensitivity: not measured (no timeline and no sampled PCIe/NVLink traffic)\n";
  }
  if (r.temporal.measured)
    out += "  temporal: cv " + FormatFixed(r.temporal.cv, 2) + ", burst p95/mean " + FormatFixed(r.temporal.burst_ratio, 2) +
           ", periodicity " + FormatFixed(r.temporal.periodicity, 2) +
           (r.temporal.period_s > 0 ? " at " + FormatFixed(r.temporal.period_s * 1000, 1) + " ms" : std::string()) + "\n";
  if (options.explain) {
    for (const disagg::DisaggSection& s : r.sections) {
      out += "  -- " + s.title + "\n";
      RenderExplanationText(out, s.explanation);
    }
  }
}

void RenderReference(std::string& out, const DisaggOutputOptions& options) {
  const disagg::FleetReference& f = *options.reference;
  auto row = [](const char* name, const disagg::RatioStats& s) {
    return std::vector<std::string>{name, FormatFixed(s.p10, 1), FormatFixed(s.p50, 1), FormatFixed(s.p90, 1),
                                    FormatFixed(s.mean, 2), std::to_string(s.count)};
  };
  out += "Reference: GPU-disaggregated serving (" + options.reference_source + "): " + std::to_string(f.gpu_node_instances) +
         " GPU-node and " + std::to_string(f.cpu_node_instances) + " CPU-node instances of " + std::to_string(f.apps) +
         " apps\n";
  TextTable table({"per GPU instance", "p10", "p50", "p90", "mean", "n"},
                  {TextTable::Align::kLeft, TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kRight,
                   TextTable::Align::kRight, TextTable::Align::kRight});
  table.AddRow(row("vCPU", f.vcpu_per_gpu));
  table.AddRow(row("host memory GiB", f.host_memory_gib_per_gpu));
  table.AddRow(row("RDMA % of one RNIC", f.rdma_pct_per_gpu));
  table.AddRow(row("CPU-node instances (per app)", f.cpu_instances_per_gpu_instance));
  out += table.Render();
}

void WriteLink(JsonWriter& json, const LinkSensitivity& s) {
  json.BeginObject()
      .Field("link", s.link.label)
      .Field("bytes_per_s", s.link.bytes_per_s)
      .Field("latency_s", s.link.latency_s)
      .Field("measured", s.measured)
      .Field("slowdown_lo", s.slowdown_lo)
      .Field("slowdown_hi", s.slowdown_hi)
      .Field("saturated", s.saturated)
      .Key("components")
      .BeginArray();
  for (const disagg::LinkComponent& c : s.components)
    json.BeginObject()
        .Field("name", c.name)
        .Field("operations", c.operations)
        .Field("bytes", c.bytes)
        .Field("added_lo_s", c.added_lo_s)
        .Field("added_hi_s", c.added_hi_s)
        .EndObject();
  json.EndArray().EndObject();
}

void WriteResult(JsonWriter& json, const DisaggResult& r, bool explain) {
  json.BeginObject()
      .Field("workload", r.workload)
      .Field("source_kind", r.source_kind)
      .Field("workload_type", r.workload_type)
      .Field("device", r.device_id)
      .Field("score", r.score)
      .Field("parts_measured", r.parts_measured);
  json.Key("parts").BeginObject();
  json.Key("decoupling").BeginObject().Field("measured", r.decoupling.measured).Field("value", r.decoupling.score)
      .Field("imbalance", r.decoupling.imbalance).Field("correlation", r.decoupling.correlation)
      .Field("independence", r.decoupling.independence).EndObject();
  json.Key("network").BeginObject().Field("measured", r.network_measured).Field("value", r.network_part).EndObject();
  json.Key("temporal").BeginObject().Field("measured", r.temporal.measured).Field("value", r.temporal_part)
      .Field("cv", r.temporal.cv).Field("burst_ratio", r.temporal.burst_ratio)
      .Field("periodicity", r.temporal.periodicity).Field("period_s", r.temporal.period_s).EndObject();
  json.EndObject();
  json.Key("strategy").BeginObject().Field("name", disagg::StrategyName(r.strategy)).Field("reason", r.strategy_reason)
      .Field("mig_profile", r.mig_profile).Field("mig_max_slowdown", r.mig_max_slowdown).EndObject();
  json.Key("impact").BeginObject().Field("expected", r.impact.expected).Field("lo", r.impact.lo).Field("hi", r.impact.hi)
      .EndObject();
  json.Key("savings").BeginObject()
      .Field("price_per_gpu_hour", r.price_per_gpu_hour)
      .Field("gpu_fraction_lo", r.gpu_fraction_lo)
      .Field("gpu_fraction_hi", r.gpu_fraction_hi)
      .Field("gpu_hours_freed_per_hour_lo", r.freed_lo)
      .Field("gpu_hours_freed_per_hour_hi", r.freed_hi)
      .Field("per_hour_lo", r.savings_per_hour_lo)
      .Field("per_hour_hi", r.savings_per_hour_hi)
      .Field("per_month_lo", r.savings_per_month_lo)
      .Field("per_month_hi", r.savings_per_month_hi)
      .EndObject();
  json.Key("links").BeginArray();
  for (const LinkSensitivity& s : r.links) WriteLink(json, s);
  json.EndArray();
  if (explain) {
    json.Key("explain").BeginObject();
    for (const disagg::DisaggSection& s : r.sections) {
      json.Key(s.title);
      WriteExplanationJson(json, s.explanation);
    }
    json.EndObject();
  }
  json.EndObject();
}

}  // namespace

std::string RenderDisaggText(const std::vector<DisaggResult>& results, const DisaggOutputOptions& options) {
  std::string out;
  for (const DisaggResult& r : results) RenderOne(out, r, options);
  if (options.reference) RenderReference(out, options);
  return out;
}

std::string RenderDisaggJson(const std::vector<DisaggResult>& results, const DisaggOutputOptions& options) {
  JsonWriter json;
  json.BeginObject().Key("workloads").BeginArray();
  for (const DisaggResult& r : results) WriteResult(json, r, options.explain);
  json.EndArray();
  if (options.reference) {
    const disagg::FleetReference& f = *options.reference;
    auto stats = [&](const char* key, const disagg::RatioStats& s) {
      json.Key(key).BeginObject().Field("count", s.count).Field("mean", s.mean).Field("p10", s.p10).Field("p50", s.p50)
          .Field("p90", s.p90).EndObject();
    };
    json.Key("reference").BeginObject().Field("source", options.reference_source)
        .Field("gpu_node_instances", f.gpu_node_instances).Field("cpu_node_instances", f.cpu_node_instances)
        .Field("apps", f.apps);
    stats("vcpu_per_gpu", f.vcpu_per_gpu);
    stats("host_memory_gib_per_gpu", f.host_memory_gib_per_gpu);
    stats("rdma_pct_per_gpu", f.rdma_pct_per_gpu);
    stats("cpu_instances_per_gpu_instance", f.cpu_instances_per_gpu_instance);
    json.EndObject();
  }
  json.EndObject();
  return json.Take() + "\n";
}

}  // namespace kraken
