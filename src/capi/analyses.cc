// The analysis calls of the C API: options read into the request layer's settings (keys
// mirror the CLI flags), inputs loaded and rendered by the same functions the CLI calls,
// so each document is byte for byte the CLI's.
#include "app/analyze_request.h"
#include "app/cluster_request.h"
#include "app/diff_request.h"
#include "app/colocate_request.h"
#include "app/disagg_request.h"
#include "app/mig_plan_request.h"
#include "app/pack_request.h"
#include "app/profile_inputs.h"
#include "app/report_request.h"
#include "app/temporal_request.h"
#include "app/tenant_request.h"
#include "capi/call.h"
#include "capi/options.h"

namespace kraken::capi {
namespace {

// The keys every call that loads inputs knows.
void ReadInputOptions(OptionReader& reader, InputOptions* options) {
  reader.Read("format", &options->format);
  reader.Read("db", &options->db);
}

// A call's inputs and the options that say how to load them, checked.
Outcome ReadRequiredInputs(const char* const* inputs, size_t count, const char* what,
                           std::vector<std::string>* arguments) {
  if (count == 0) return Outcome::BadArgument(std::string(what) + " needs at least one input (a file or a stored id)");
  return ReadInputs(inputs, count, arguments);
}

// Returns the outcome of a step that failed.
#define KRAKEN_CAPI_CHECK(outcome_expr)                                \
  do {                                                                 \
    ::kraken::capi::Outcome kraken_outcome_ = (outcome_expr);          \
    if (kraken_outcome_.code() != KRAKEN_OK) return kraken_outcome_;   \
  } while (0)

// Returns the options' first problem (a bad argument) once every key was read.
#define KRAKEN_CAPI_OPTIONS_OK(reader)                                                \
  do {                                                                                \
    if (auto problem = (reader).Problem()) return Outcome::BadArgument(*problem);     \
  } while (0)

Outcome Analyze(const char* const* inputs, size_t count, const char* options_json) {
  std::vector<std::string> arguments;
  KRAKEN_CAPI_CHECK(ReadRequiredInputs(inputs, count, "kraken_analyze", &arguments));
  OptionReader reader(options_json);
  InputOptions input_options;
  ReadInputOptions(reader, &input_options);
  AnalyzeSettings settings;
  reader.Read("device", &settings.device);
  reader.Read("window", &settings.window);
  reader.Read("thresholds", &settings.thresholds);
  reader.Read("top", &settings.top);
  reader.Read("linked_only", &settings.linked_only);
  bool json = true;
  reader.ReadOutput(&json);
  KRAKEN_CAPI_OPTIONS_OK(reader);
  KRAKEN_ASSIGN_OR_RETURN(CharacterizeOptions options, MakeCharacterizeOptions(settings));
  std::vector<Profile> profiles;
  KRAKEN_RETURN_IF_ERROR(LoadProfileInputs(arguments, input_options, &profiles));
  return RenderAnalysis(profiles, settings, options, json);
}

Outcome Report(const char* const* inputs, size_t count, const char* options_json) {
  std::vector<std::string> arguments;
  KRAKEN_CAPI_CHECK(ReadRequiredInputs(inputs, count, "kraken_report", &arguments));
  OptionReader reader(options_json);
  InputOptions input_options;
  ReadInputOptions(reader, &input_options);
  ReportSettings settings;
  reader.Read("device", &settings.analyze.device);
  reader.Read("gpu_hour_cost", &settings.gpu_hour_cost_usd);
  reader.Read("max_slowdown", &settings.max_slowdown_pct);
  reader.Read("title", &settings.title);
  bool data_only = false;
  reader.Read("data_only", &data_only);
  KRAKEN_CAPI_OPTIONS_OK(reader);
  settings.inputs = arguments;
  if (settings.title.empty()) settings.title = DefaultReportTitle(arguments);
  KRAKEN_RETURN_IF_ERROR(CheckReportSettings(settings));
  std::vector<Profile> profiles;
  KRAKEN_RETURN_IF_ERROR(LoadProfileInputs(arguments, input_options, &profiles));
  return RenderReport(profiles, settings, data_only);
}

Outcome Disagg(const char* const* inputs, size_t count, const char* options_json) {
  std::vector<std::string> arguments;
  KRAKEN_CAPI_CHECK(ReadRequiredInputs(inputs, count, "kraken_disagg", &arguments));
  OptionReader reader(options_json);
  InputOptions input_options;
  ReadInputOptions(reader, &input_options);
  DisaggSettings settings;
  reader.Read("link", &settings.links);
  reader.Read("price", &settings.price);
  reader.Read("max_slowdown", &settings.max_slowdown_pct);
  reader.Read("explain", &settings.explain);
  reader.Read("reference", &settings.reference);
  bool json = true;
  reader.ReadOutput(&json);
  KRAKEN_CAPI_OPTIONS_OK(reader);
  KRAKEN_ASSIGN_OR_RETURN(DisaggSetup setup, MakeDisaggSetup(settings));
  std::vector<Profile> profiles;
  KRAKEN_RETURN_IF_ERROR(LoadProfileInputs(arguments, input_options, &profiles));
  return RenderDisagg(profiles, setup, json);
}

// `kraken diff A B`: exactly two inputs, each loaded like any other call's inputs.
Outcome Diff(const char* const* inputs, size_t count, const char* options_json) {
  if (count != 2) return Outcome::BadArgument("kraken_diff needs exactly two inputs (A = before, B = after)");
  std::vector<std::string> arguments;
  KRAKEN_CAPI_CHECK(ReadInputs(inputs, count, &arguments));
  OptionReader reader(options_json);
  InputOptions input_options;
  ReadInputOptions(reader, &input_options);
  DiffSettings settings;
  reader.Read("top", &settings.top);
  bool json = true;
  reader.ReadOutput(&json);
  KRAKEN_CAPI_OPTIONS_OK(reader);
  settings.a_name = arguments[0];
  settings.b_name = arguments[1];
  std::vector<Profile> a, b;
  KRAKEN_RETURN_IF_ERROR(LoadProfileInputs({arguments[0]}, input_options, &a));
  KRAKEN_RETURN_IF_ERROR(LoadProfileInputs({arguments[1]}, input_options, &b));
  return RenderDiff(a, b, settings, json);
}

// The colocate keys every colocate call knows (optimize adds its own).
void ReadColocateOptions(OptionReader& reader, ColocateSettings* settings) {
  reader.Read("sm_split", &settings->sm_split);
  reader.ReadNamedNumbers("qos", &settings->qos);
  reader.ReadNamedNumbers("rate", &settings->rates);
  reader.Read("device", &settings->device);
  reader.Read("explain", &settings->explain);
  reader.Read("timeslice_ms", &settings->timeslice_ms);
}

Outcome RunColocate(const std::vector<std::string>& arguments, const ColocateSettings& settings,
                    const InputOptions& input_options, bool json) {
  KRAKEN_ASSIGN_OR_RETURN(ColocateSetup setup, MakeColocateSetup(settings));
  LoadedProfiles loaded;
  KRAKEN_RETURN_IF_ERROR(LoadProfileInputs(arguments, input_options, &loaded));
  KRAKEN_ASSIGN_OR_RETURN(ProfileDemands demands, DemandsOfProfiles(loaded, setup.device));
  return RenderColocate(demands, settings, setup, json);
}

Outcome Colocate(const char* const* inputs, size_t count, const char* options_json, bool optimize) {
  std::vector<std::string> arguments;
  KRAKEN_CAPI_CHECK(
      ReadRequiredInputs(inputs, count, optimize ? "kraken_colocate_optimize" : "kraken_colocate", &arguments));
  OptionReader reader(options_json);
  InputOptions input_options;
  ReadInputOptions(reader, &input_options);
  ColocateSettings settings;
  settings.optimize = optimize;
  ReadColocateOptions(reader, &settings);
  reader.Read("mode", &settings.mode);
  if (optimize) {
    reader.Read("gpus", &settings.gpus);
    reader.Read("gpu_memory", &settings.gpu_memory);
    reader.Read("max_slowdown", &settings.max_slowdown);
    reader.Read("max_per_gpu", &settings.max_per_gpu);
  } else {
    reader.Read("model", &settings.model);
  }
  bool json = true;
  reader.ReadOutput(&json);
  KRAKEN_CAPI_OPTIONS_OK(reader);
  return RunColocate(arguments, settings, input_options, json);
}

Outcome PredictInterference(const char* primary, const char* secondary, const char* options_json) {
  if (primary == nullptr || secondary == nullptr) return Outcome::BadArgument("primary and secondary must not be NULL");
  OptionReader reader(options_json);
  InputOptions input_options;
  ReadInputOptions(reader, &input_options);
  ColocateSettings settings;
  settings.mode = "timeslice";
  ReadColocateOptions(reader, &settings);
  reader.Read("mode", &settings.mode);
  bool json = true;
  reader.ReadOutput(&json);
  KRAKEN_CAPI_OPTIONS_OK(reader);
  KRAKEN_ASSIGN_OR_RETURN(settings, InterferenceSettings(settings));
  return RunColocate({primary, secondary}, settings, input_options, json);
}

Outcome Temporal(const char* const* inputs, size_t count, const char* options_json) {
  std::vector<std::string> arguments;
  KRAKEN_CAPI_CHECK(ReadRequiredInputs(inputs, count, "kraken_temporal", &arguments));
  OptionReader reader(options_json);
  InputOptions input_options;
  ReadInputOptions(reader, &input_options);
  TemporalSettings settings;
  reader.Read("series", &settings.series);
  reader.Read("horizon", &settings.horizons);
  bool explain = false;
  reader.Read("explain", &explain);
  bool json = true;
  reader.ReadOutput(&json);
  KRAKEN_CAPI_OPTIONS_OK(reader);
  if (json && explain)
    return Outcome::BadArgument("option 'explain' goes with \"output\": \"text\" (as --explain excludes --json)");
  KRAKEN_ASSIGN_OR_RETURN(temporal::TemporalOptions options, MakeTemporalOptions(settings));
  std::vector<Profile> profiles;
  KRAKEN_RETURN_IF_ERROR(LoadProfileInputs(arguments, input_options, &profiles));
  const TemporalView view = json ? TemporalView::kJson : explain ? TemporalView::kExplain : TemporalView::kText;
  return RenderTemporal(profiles, settings, options, view);
}

Outcome MigPlan(const char* const* inputs, size_t count, const char* options_json) {
  std::vector<std::string> arguments;
  KRAKEN_CAPI_CHECK(ReadInputs(inputs, count, &arguments));
  OptionReader reader(options_json);
  InputOptions input_options;
  ReadInputOptions(reader, &input_options);
  MigPlanSettings settings;
  reader.Read("gpu", &settings.gpu);
  reader.Read("headroom", &settings.headroom);
  reader.Read("max_slowdown", &settings.max_slowdown_pct);
  reader.Read("workload", &settings.workloads);
  reader.Read("explain", &settings.explain);
  reader.Read("slice_alone", &settings.slice_alone);
  bool json = true;
  reader.ReadOutput(&json);
  KRAKEN_CAPI_OPTIONS_OK(reader);
  KRAKEN_ASSIGN_OR_RETURN(MigPlanSetup setup, MakeMigPlanSetup(settings));
  KRAKEN_ASSIGN_OR_RETURN(std::vector<mig::MigWorkload> workloads, LoadMigWorkloads(arguments, input_options));
  return RenderMigPlan(std::move(workloads), settings, setup, json);
}

Outcome Pack(const char* nodes_path, const char* pods_path, const char* options_json) {
  if (nodes_path == nullptr || pods_path == nullptr)
    return Outcome::BadArgument("the node and pod lists must not be NULL");
  OptionReader reader(options_json);
  PackSettings settings;
  reader.Read("policy", &settings.policy);
  reader.Read("seeds", &settings.seeds);
  reader.Read("tune", &settings.tune);
  reader.Read("threshold", &settings.threshold);
  reader.Read("threads", &settings.threads);
  reader.Read("explain", &settings.explain);
  reader.Read("explain_pod", &settings.explain_pods);
  reader.Read("explain_top", &settings.explain_top);
  bool json = true;
  reader.ReadOutput(&json);
  KRAKEN_CAPI_OPTIONS_OK(reader);
  KRAKEN_ASSIGN_OR_RETURN(PackPlan plan, MakePackPlan(settings));
  // The loader's skipped-row counters go to standard error in the CLI; a library keeps
  // quiet (the document is the same either way).
  KRAKEN_ASSIGN_OR_RETURN(LoadedPackCluster loaded, LoadPackCluster(nodes_path, pods_path));
  return RenderPack(std::move(loaded.cluster), settings, plan, json);
}

Outcome ClusterAnalyze(const char* url, const char* options_json) {
  if (url == nullptr) return Outcome::BadArgument("the Prometheus URL must not be NULL");
  OptionReader reader(options_json);
  ClusterAnalyzeSettings settings;
  settings.prometheus = url;
  reader.Read("namespace", &settings.namespace_name);
  reader.Read("pod", &settings.pod);
  reader.Read("range", &settings.range);
  reader.Read("step", &settings.step);
  reader.Read("end", &settings.end_s);
  reader.Read("gpu_model", &settings.gpu_model);
  reader.Read("timeout", &settings.timeout_s);
  reader.Read("max_slowdown", &settings.max_slowdown_pct);
  reader.Read("explain", &settings.explain);
  bool json = true;
  reader.ReadOutput(&json);
  KRAKEN_CAPI_OPTIONS_OK(reader);
  return RenderClusterAnalysis(settings, json);
}

Outcome PlanTenants(const char* tenants_path, const char* options_json) {
  if (tenants_path == nullptr) return Outcome::BadArgument("the tenants file must not be NULL");
  OptionReader reader(options_json);
  InputOptions input_options;
  ReadInputOptions(reader, &input_options);
  TenantPlanSettings settings;
  settings.tenants = tenants_path;
  reader.Read("gpus", &settings.gpus);
  reader.Read("optimize", &settings.optimize);
  reader.Read("prices", &settings.prices);
  bool json = true;
  reader.ReadOutput(&json);
  KRAKEN_CAPI_OPTIONS_OK(reader);
  return RenderTenantPlan(settings, input_options, json);
}

}  // namespace
}  // namespace kraken::capi

using kraken::capi::Deliver;

extern "C" {

kraken_status kraken_analyze(const char* const* inputs, size_t input_count, const char* options_json, char** out) {
  return Deliver(out, [&] { return kraken::capi::Analyze(inputs, input_count, options_json); });
}

kraken_status kraken_report(const char* const* inputs, size_t input_count, const char* options_json, char** out) {
  return Deliver(out, [&] { return kraken::capi::Report(inputs, input_count, options_json); });
}

kraken_status kraken_disagg(const char* const* inputs, size_t input_count, const char* options_json, char** out) {
  return Deliver(out, [&] { return kraken::capi::Disagg(inputs, input_count, options_json); });
}

kraken_status kraken_diff(const char* const* inputs, size_t input_count, const char* options_json, char** out) {
  return Deliver(out, [&] { return kraken::capi::Diff(inputs, input_count, options_json); });
}

kraken_status kraken_colocate(const char* const* inputs, size_t input_count, const char* options_json, char** out) {
  return Deliver(out, [&] { return kraken::capi::Colocate(inputs, input_count, options_json, false); });
}

kraken_status kraken_colocate_optimize(const char* const* inputs, size_t input_count, const char* options_json,
                                       char** out) {
  return Deliver(out, [&] { return kraken::capi::Colocate(inputs, input_count, options_json, true); });
}

kraken_status kraken_predict_interference(const char* primary, const char* secondary, const char* options_json,
                                          char** out) {
  return Deliver(out, [&] { return kraken::capi::PredictInterference(primary, secondary, options_json); });
}

kraken_status kraken_temporal(const char* const* inputs, size_t input_count, const char* options_json, char** out) {
  return Deliver(out, [&] { return kraken::capi::Temporal(inputs, input_count, options_json); });
}

kraken_status kraken_mig_plan(const char* const* inputs, size_t input_count, const char* options_json, char** out) {
  return Deliver(out, [&] { return kraken::capi::MigPlan(inputs, input_count, options_json); });
}

kraken_status kraken_pack(const char* nodes_csv_path, const char* pods_csv_path, const char* options_json,
                          char** out) {
  return Deliver(out, [&] { return kraken::capi::Pack(nodes_csv_path, pods_csv_path, options_json); });
}

kraken_status kraken_cluster_analyze(const char* prometheus_url, const char* options_json, char** out) {
  return Deliver(out, [&] { return kraken::capi::ClusterAnalyze(prometheus_url, options_json); });
}

kraken_status kraken_plan_tenants(const char* tenants_csv_path, const char* options_json, char** out) {
  return Deliver(out, [&] { return kraken::capi::PlanTenants(tenants_csv_path, options_json); });
}

}  // extern "C"
