#include "app/tenant_request.h"

#include <map>

#include "analysis/colocate/profile_demands.h"
#include "analysis/tenants/tenant_plan.h"
#include "app/cost_request.h"
#include "base/csv_reader.h"
#include "base/number_input.h"
#include "base/small_file.h"
#include "base/text.h"
#include "base/text_table.h"
#include "model/device_catalog.h"
#include "report/tenant_output.h"

namespace kraken {
namespace {

constexpr size_t kMaxTenantWorkloads = 256;  // each placement tries every GPU: bounded work
constexpr size_t kMaxGpus = 256;

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

Result<double> NumberCell(const std::vector<std::string>& fields, const std::map<std::string, size_t>& columns,
                          const std::string& column, double high, const std::string& where) {
  auto it = columns.find(column);
  if (it == columns.end() || it->second >= fields.size() || Trim(fields[it->second]).empty()) return 0.0;
  std::string text(Trim(fields[it->second]));
  auto value = ParseBoundedNumber(text, 0, high);
  if (!value) return InvalidInput(where + column + " '" + text + "' is not a number in [0, " + FormatFixed(high, 0) + "]");
  return *value;
}

}  // namespace

Result<std::vector<TenantRow>> ParseTenantsCsv(const std::string& text, const std::string& origin) {
  CsvReader reader(text);
  std::vector<std::string> fields;
  std::map<std::string, size_t> columns;
  std::vector<TenantRow> rows;
  while (reader.Next(&fields)) {
    std::string where = origin + ":" + std::to_string(reader.line()) + ": ";
    std::string_view first = Trim(fields[0]);
    if ((fields.size() == 1 && first.empty()) || StartsWith(first, "#")) continue;
    if (columns.empty()) {
      for (size_t i = 0; i < fields.size(); ++i) columns[ToLower(Trim(fields[i]))] = i;
      for (const char* need : {"tenant", "workload", "profile"})
        if (!columns.count(need)) return InvalidInput(where + "the header has no column '" + need + "'");
      continue;
    }
    if (rows.size() >= kMaxTenantWorkloads)
      return InvalidInput(where + "more than " + std::to_string(kMaxTenantWorkloads) + " workloads");
    auto cell = [&](const char* name) {
      auto it = columns.find(name);
      return it == columns.end() || it->second >= fields.size() ? std::string() : std::string(Trim(fields[it->second]));
    };
    TenantRow row;
    row.line = reader.line();
    row.workload.tenant = cell("tenant");
    row.workload.name = cell("workload");
    row.profile = cell("profile");
    row.workload.kind = ToLower(cell("type"));
    if (row.workload.tenant.empty() || row.workload.name.empty() || row.profile.empty())
      return InvalidInput(where + "tenant, workload and profile must not be empty");
    if (row.workload.kind.empty()) row.workload.kind = "training";
    if (row.workload.kind != "inference" && row.workload.kind != "training")
      return InvalidInput(where + "type must be inference or training, got '" + row.workload.kind + "'");
    KRAKEN_ASSIGN_OR_RETURN(row.workload.p99_ms, NumberCell(fields, columns, "p99_ms", 1e7, where));
    KRAKEN_ASSIGN_OR_RETURN(row.workload.rate_per_s, NumberCell(fields, columns, "rate_per_s", 1e7, where));
    KRAKEN_ASSIGN_OR_RETURN(row.workload.min_throughput, NumberCell(fields, columns, "min_throughput", 1, where));
    if (row.workload.kind == "inference" && row.workload.min_throughput > 0)
      return InvalidInput(where + "min_throughput is a training SLA; inference workloads give p99_ms");
    if (row.workload.kind == "training" && row.workload.p99_ms > 0)
      return InvalidInput(where + "p99_ms is an inference SLA; training workloads give min_throughput");
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return InvalidInput(origin + ": no workloads (header tenant,workload,profile,type,p99_ms,...)");
  return rows;
}

Result<std::vector<tenants::AvailableGpu>> ParseGpus(const std::vector<std::string>& specs,
                                                     const std::vector<cost::InstancePrice>& catalog) {
  if (specs.empty()) return InvalidInput("--gpus names no GPU (e.g. --gpus a100-40gb-sxm:mig,a100-40gb-sxm,v100-sxm2)");
  if (specs.size() > kMaxGpus) return InvalidInput("--gpus: more than " + std::to_string(kMaxGpus) + " GPUs");
  std::vector<tenants::AvailableGpu> out;
  for (const std::string& text : specs) {
    tenants::AvailableGpu gpu;
    std::string model = text;
    size_t eq = model.find('=');
    gpu.name = eq == std::string::npos ? "gpu" + std::to_string(out.size()) : model.substr(eq + 1);
    if (eq != std::string::npos) model = model.substr(0, eq);
    size_t at = model.find('@');
    if (at != std::string::npos) {
      auto price = ParseBoundedNumber(model.substr(at + 1), 0, 1e5);
      if (!price) return InvalidInput("--gpus '" + text + "': the price after @ must be $/hour in [0, 100000]");
      gpu.usd_per_hour = *price;
      gpu.price_given = true;
      model.resize(at);
    }
    if (EndsWith(model, ":mig")) {
      gpu.mig_allowed = true;
      model.resize(model.size() - 4);
    }
    gpu.spec = FindDeviceSpec(model);
    if (gpu.spec == nullptr)
      return InvalidInput("--gpus '" + text + "': '" + model + "' is not in the device catalog (see `kraken devices`)");
    for (const cost::InstancePrice& p : catalog) {
      double per_gpu = p.on_demand_usd_per_hour / p.gpus;
      if (!gpu.price_given && p.gpu_model == gpu.spec->id && (gpu.usd_per_hour == 0 || per_gpu < gpu.usd_per_hour))
        gpu.usd_per_hour = per_gpu;
    }
    out.push_back(std::move(gpu));
  }
  return out;
}

namespace {

Result<tenants::Objective> ParseObjective(const std::string& text) {
  if (text == "cost") return tenants::Objective::kCost;
  if (text == "performance") return tenants::Objective::kPerformance;
  if (text == "balanced") return tenants::Objective::kBalanced;
  return InvalidInput("--optimize expects cost, performance or balanced, got '" + text + "'");
}

}  // namespace

Result<std::string> RenderTenantPlan(const TenantPlanSettings& settings, const InputOptions& inputs, bool json) {
  KRAKEN_ASSIGN_OR_RETURN(tenants::Objective objective, ParseObjective(settings.optimize));
  KRAKEN_ASSIGN_OR_RETURN(std::vector<cost::InstancePrice> catalog, LoadPriceCatalog(settings.prices));
  KRAKEN_ASSIGN_OR_RETURN(std::vector<tenants::AvailableGpu> gpus, ParseGpus(settings.gpus, catalog));
  if (settings.tenants.empty()) return InvalidInput("plan tenants needs the tenants file");
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(settings.tenants, 4 * kMiB, "the tenants file"));
  KRAKEN_ASSIGN_OR_RETURN(std::vector<TenantRow> rows, ParseTenantsCsv(text, settings.tenants));
  std::vector<tenants::TenantWorkload> workloads;
  for (TenantRow& row : rows) {
    std::string where = settings.tenants + ":" + std::to_string(row.line) + ": ";
    std::string path = row.profile;
    if (!IsStoredProfileArgument(path) && !StartsWith(path, "/")) path = DirectoryOf(settings.tenants) + path;
    LoadedProfiles loaded;
    Status status = LoadProfileInputs({path}, inputs, &loaded);
    if (!status.ok()) return status.WithContext(where.substr(0, where.size() - 2));
    ProfileDemands demands;
    KRAKEN_RETURN_IF_ERROR(AppendProfileDemands(loaded.profiles[0], loaded.origins[0], nullptr, &demands));
    if (demands.demands.empty()) return InvalidInput(where + "the profile '" + row.profile + "' gives no GPU demand");
    row.workload.demand = demands.demands[0];
    row.workload.demand.name = row.workload.name;
    if (row.workload.kind == "inference") row.workload.demand.workload_type = "inference";
    workloads.push_back(std::move(row.workload));
  }
  tenants::TenantPlan plan = tenants::PlanTenants(workloads, gpus, objective);
  return json ? RenderTenantPlanJson(plan, workloads, gpus) : RenderTenantPlanText(plan, workloads, gpus);
}

}  // namespace kraken
