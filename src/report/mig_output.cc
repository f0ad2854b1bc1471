#include "report/mig_output.h"

#include "base/json_writer.h"
#include "base/text.h"
#include "base/text_table.h"
#include "report/explain_output.h"

namespace kraken {
namespace {

using mig::MigChoice;
using mig::MigPlan;
using mig::MigWorkload;
using Align = TextTable::Align;

std::string Pct(double ratio) { return FormatFixed(100 * ratio, 1) + "%"; }
std::string GiB(double bytes) { return FormatFixed(bytes / (1024.0 * 1024.0 * 1024.0), 2); }

std::string ProfileName(const MigPlan& plan, int profile) {
  return profile >= 0 ? plan.geometry->profiles[static_cast<size_t>(profile)].name : "-";
}

std::string LayoutText(const MigPlan& plan, const mig::PackedGpu& gpu, const std::vector<MigWorkload>& workloads) {
  std::string text;
  for (size_t i = 0; i < gpu.layout.size(); ++i) {
    if (i > 0) text += ", ";
    const MigProfileSpec& p = plan.geometry->profiles[static_cast<size_t>(gpu.layout[i].profile)];
    text += p.name + "@" + std::to_string(gpu.layout[i].start) + " " +
            std::string(BaseName(workloads[static_cast<size_t>(gpu.items[i])].name));
  }
  return text;
}

}  // namespace

std::string RenderMigPlanText(const MigPlan& plan, const std::vector<MigWorkload>& workloads, bool explain) {
  const MigGeometry& g = *plan.geometry;
  std::string out = "MIG plan on " + g.name + " (" + g.device_id + "), memory headroom " +
                    Pct(plan.options.memory_headroom) + ", slowdown budget " + Pct(plan.options.max_slowdown) + "\n";
  TextTable table({"workload", "source", "peak GiB", "need GiB", "SM need", "profile", "why"},
                  {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kLeft, Align::kLeft});
  table.SetMaxWidth(0, 60);
  for (const MigChoice& c : plan.choices) {
    const MigWorkload& w = workloads[static_cast<size_t>(c.workload)];
    table.AddRow({std::string(BaseName(w.name)), w.source, w.need.memory_measured ? GiB(w.need.memory_bytes) : "-",
                  w.need.memory_measured ? GiB(c.memory_need_bytes) : "-",
                  w.need.compute_measured ? Pct(c.compute_need) : "-",
                  c.sliced ? ProfileName(plan, c.profile) : "whole GPU x" + std::to_string(c.whole_gpus), c.reason});
  }
  out += table.Render();
  out += "GPUs with MIG (" + std::string(plan.packing.exact ? "fewest possible" : "first-fit decreasing, not proven fewest") +
         "):\n";
  for (size_t i = 0; i < plan.packing.gpus.size(); ++i)
    out += "  GPU " + std::to_string(i) + ": " + LayoutText(plan, plan.packing.gpus[i], workloads) + "\n";
  if (plan.packing.gpus.empty()) out += "  none\n";
  out += "GPUs: " + std::to_string(plan.gpus_for_slices) + " with MIG + " + std::to_string(plan.gpus_whole) +
         " whole = " + std::to_string(plan.gpus_total) + ", vs " + std::to_string(plan.baseline_gpus) +
         " with one GPU per workload: density gain " + FormatFixed(plan.density_gain, 2) + "x\n";
  bool any = false;
  for (const MigChoice& c : plan.choices) {
    if (c.sliced) continue;
    if (!any) out += "Do not slice:\n";
    any = true;
    out += "  - " + std::string(BaseName(workloads[static_cast<size_t>(c.workload)].name)) + ": " + c.reason + "\n";
  }
  for (const MigChoice& c : plan.choices) {
    if (!c.alone) continue;
    out += "  (--slice-alone slices a workload alone on its GPU anyway, keeping its other slices free for work not in "
           "this plan)\n";
    break;
  }
  if (explain) {
    for (const MigChoice& c : plan.choices) {
      out += "  -- " + workloads[static_cast<size_t>(c.workload)].name + "\n";
      out += "    decision: " + (c.sliced ? ProfileName(plan, c.profile) : "not sliced") + " - " + c.reason + "\n";
      RenderExplanationText(out, c.explanation);
    }
    out += "  assumes: profiles, SM counts, memory and placements from " + g.source + "\n";
  }
  return out;
}

std::string RenderMigPlanJson(const MigPlan& plan, const std::vector<MigWorkload>& workloads, bool explain) {
  const MigGeometry& g = *plan.geometry;
  JsonWriter json;
  json.BeginObject()
      .Field("gpu", g.device_id)
      .Field("gpu_name", g.name)
      .Field("memory_headroom", plan.options.memory_headroom)
      .Field("max_slowdown", plan.options.max_slowdown)
      .Field("slice_alone", plan.options.slice_alone)
      .Key("workloads")
      .BeginArray();
  for (const MigChoice& c : plan.choices) {
    const MigWorkload& w = workloads[static_cast<size_t>(c.workload)];
    json.BeginObject()
        .Field("name", w.name)
        .Field("source", w.source)
        .Field("workload_type", w.workload_type)
        .Field("memory_peak_bytes", w.need.memory_bytes)
        .Field("memory_need_bytes", c.memory_need_bytes)
        .Field("compute_need", c.compute_need)
        .Field("sliced", c.sliced)
        .Field("profile", c.sliced ? ProfileName(plan, c.profile) : "")
        .Field("whole_gpus", c.whole_gpus)
        .Field("alone", c.alone)
        .Field("reason", c.reason)
        .Field("slowdown_checked", c.slowdown_checked);
    if (c.slowdown_checked && c.sliced) {
      json.Field("expected_slowdown", c.expected_slowdown);
    } else {
      json.Key("expected_slowdown").Null();
    }
    if (explain) {
      json.Key("explain");
      WriteExplanationJson(json, c.explanation);
    }
    json.EndObject();
  }
  json.EndArray().Key("gpus").BeginArray();
  for (const mig::PackedGpu& gpu : plan.packing.gpus) {
    json.BeginArray();
    for (size_t i = 0; i < gpu.layout.size(); ++i)
      json.BeginObject()
          .Field("profile", ProfileName(plan, gpu.layout[i].profile))
          .Field("start", gpu.layout[i].start)
          .Field("workload", workloads[static_cast<size_t>(gpu.items[i])].name)
          .EndObject();
    json.EndArray();
  }
  json.EndArray()
      .Field("exact", plan.packing.exact)
      .Field("gpus_for_slices", plan.gpus_for_slices)
      .Field("gpus_whole", plan.gpus_whole)
      .Field("gpus_total", plan.gpus_total)
      .Field("baseline_gpus", plan.baseline_gpus)
      .Field("density_gain", plan.density_gain)
      .Field("source", g.source)
      .EndObject();
  return json.Take() + "\n";
}

}  // namespace kraken
