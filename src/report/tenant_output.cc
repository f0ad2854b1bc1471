#include "report/tenant_output.h"

#include "base/json_writer.h"
#include "base/text_table.h"

namespace kraken {
namespace {

const char* ObjectiveName(tenants::Objective o) {
  switch (o) {
    case tenants::Objective::kCost: return "cost";
    case tenants::Objective::kPerformance: return "performance";
    case tenants::Objective::kBalanced: break;
  }
  return "balanced";
}

std::string GpuLabel(const tenants::AvailableGpu& gpu) {
  std::string out = gpu.name;
  out.append(" (").append(gpu.spec->id).append(gpu.mig_allowed ? ", MIG allowed)" : ")");
  return out;
}

}  // namespace

std::string RenderTenantPlanText(const tenants::TenantPlan& plan, const std::vector<tenants::TenantWorkload>& workloads,
                                 const std::vector<tenants::AvailableGpu>& gpus) {
  std::string out = "Tenant allocation, optimized for " + std::string(ObjectiveName(plan.objective)) + ": " +
                    std::to_string(plan.gpus_used) + " of " + std::to_string(gpus.size()) + " GPUs used, $" +
                    FormatFixed(plan.usd_per_hour, 2) + "/h" + (plan.all_placed ? "" : "; NOT every workload placed") +
                    "\n";
  TextTable table({"tenant", "workload", "type", "GPU", "sharing", "slowdown", "SLA", "ok", "why"},
                  {TextTable::Align::kLeft, TextTable::Align::kLeft, TextTable::Align::kLeft, TextTable::Align::kLeft,
                   TextTable::Align::kLeft, TextTable::Align::kRight, TextTable::Align::kLeft, TextTable::Align::kLeft,
                   TextTable::Align::kLeft});
  for (size_t i = 0; i < workloads.size(); ++i) {
    const tenants::WorkloadOutcome& o = plan.workloads[i];
    bool placed = o.gpu >= 0;
    table.AddRow({workloads[i].tenant, workloads[i].name, workloads[i].kind,
                  placed ? GpuLabel(gpus[static_cast<size_t>(o.gpu)]) : "-", placed ? o.sharing : "-",
                  placed ? FormatFixed(o.slowdown, 3) + "x" : "-", placed ? o.sla : "-",
                  placed ? (o.sla_ok ? "yes" : "NO") : "-", o.why});
  }
  out += table.Render();
  for (const std::string& note : plan.notes) out += "  note: " + note + "\n";
  return out;
}

std::string RenderTenantPlanJson(const tenants::TenantPlan& plan, const std::vector<tenants::TenantWorkload>& workloads,
                                 const std::vector<tenants::AvailableGpu>& gpus) {
  JsonWriter w;
  w.BeginObject().Field("objective", ObjectiveName(plan.objective)).Field("gpus_used", plan.gpus_used);
  w.Field("usd_per_hour", plan.usd_per_hour).Field("all_placed", plan.all_placed);
  w.Key("gpus").BeginArray();
  for (size_t g = 0; g < gpus.size(); ++g) {
    w.BeginObject().Field("name", gpus[g].name).Field("model", gpus[g].spec->id);
    w.Field("mig_allowed", gpus[g].mig_allowed).Field("usd_per_hour", gpus[g].usd_per_hour);
    w.Key("workloads").BeginArray();
    for (size_t i : plan.gpus[g].workloads) w.String(workloads[i].name);
    w.EndArray();
    w.Field("mode", plan.gpus[g].workloads.empty() ? "idle" : SharingModeName(plan.gpus[g].prediction.mode));
    w.EndObject();
  }
  w.EndArray().Key("workloads").BeginArray();
  for (size_t i = 0; i < workloads.size(); ++i) {
    const tenants::WorkloadOutcome& o = plan.workloads[i];
    w.BeginObject().Field("tenant", workloads[i].tenant).Field("name", workloads[i].name);
    w.Field("type", workloads[i].kind);
    w.Key("gpu");
    o.gpu >= 0 ? w.String(gpus[static_cast<size_t>(o.gpu)].name) : w.Null();
    w.Field("sharing", o.sharing).Field("slowdown", o.slowdown).Field("speed_vs_profiled", o.speed_vs_profiled);
    w.Key("p99_ms");
    o.p99_ms > 0 ? w.Number(o.p99_ms) : w.Null();
    w.Key("sla").BeginObject();
    w.Key("p99_ms");
    workloads[i].p99_ms > 0 ? w.Number(workloads[i].p99_ms) : w.Null();
    w.Key("min_throughput");
    workloads[i].min_throughput > 0 ? w.Number(workloads[i].min_throughput) : w.Null();
    w.Field("ok", o.sla_ok).Field("check", o.sla).EndObject();
    w.Field("why", o.why).EndObject();
  }
  w.EndArray().Key("notes").BeginArray();
  for (const std::string& n : plan.notes) w.String(n);
  w.EndArray().EndObject();
  return w.Take() + "\n";
}

}  // namespace kraken
