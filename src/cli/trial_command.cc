// `kraken trial [options] -- CMD ARGS...`: runs the workload briefly on each candidate GPU or
// MIG instance (CUDA_VISIBLE_DEVICES = its UUID), reads the throughput the workload itself
// reports, samples the GPU with NVML, stops the workload's whole tree before the next
// candidate, and ranks the candidates by throughput per GPU fraction (docs/trial.md).
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>

#include "base/duration.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"
#include "cli/upload_flags.h"
#include "base/text.h"
#include "collectors/nvml/nvml_sampler.h"
#include "k8s/controller/annotation_writer.h"
#include "profiling/batch_profile.h"
#include "profiling/child_process.h"
#include "profiling/trial_output.h"
#include "profiling/trial_process.h"
#include "profiling/trial_runner.h"

namespace kraken::cli {
namespace {

struct TrialArgs {
  std::string candidates = "auto";
  std::string duration = "60s";
  std::string warmup = "10s";
  std::string interval = "100ms";
  std::string grace = "10s";
  std::string throughput_regex;
  std::string throughput_file;
  std::string db;
  std::string out;
  bool no_store = false;
  bool json = false;
  bool quiet = false;
  std::string library;
  std::string annotate_job;  // write the result onto this Job
  std::string namespace_name;
  std::string kube_api;
  std::string token_file;
  std::vector<std::string> command;
  ConfigFlags upload_flags;  // --upload-to, --upload-token-file, --upload-spool, --config
};

Result<int64_t> Duration(const std::string& flag, const std::string& text, bool zero_ok) {
  std::optional<int64_t> ns = ParseDurationNs(text);
  if (!ns || *ns < 0 || (*ns == 0 && !zero_ok))
    return InvalidInput(flag + ": '" + text + "' is not a duration such as " +
                        (zero_ok ? "0s or 10s" : "100ms or 60s"));
  return *ns;
}

std::vector<profiling::GpuForTrial> GpusOf(const nvml::NvmlSampler& sampler) {
  std::vector<profiling::GpuForTrial> gpus;
  for (size_t d = 0; d < sampler.devices().size(); ++d) {
    profiling::GpuForTrial& gpu = gpus.emplace_back();
    gpu.device = sampler.devices()[d];
    // The sampler's MigInstance has no UUID; the reader's facts, in the same order, do.
    const std::vector<nvml::MigFacts>* migs =
        d < sampler.reader().devices().size() ? &sampler.reader().devices()[d].migs : nullptr;
    for (size_t i = 0; i < gpu.device.mig_instances.size(); ++i)
      gpu.mig_uuids.push_back(migs != nullptr && i < migs->size() && (*migs)[i].uuid.ok() ? (*migs)[i].uuid.value : "");
  }
  return gpus;
}

std::string Hostname() {
  char name[256] = {};
  return gethostname(name, sizeof(name) - 1) == 0 ? name : "";
}

std::string NewTrialId() {
  return "trial-" + std::to_string(static_cast<int64_t>(time(nullptr))) + "-" + std::to_string(getpid());
}

ProfileMetadata CandidateMetadata(const profiling::TrialReport& report, const profiling::TrialResult& r,
                                  size_t position) {
  ProfileMetadata m;
  m.format = "kraken-profile";
  m.hostname = Hostname();
  m.accelerator_vendor = Vendor::kNvidia;
  std::string what;
  for (const std::string& a : report.command) what += (what.empty() ? "" : " ") + a;
  m.source = what + " [trial on " + r.candidate.uuid + "]";
  m.attributes["interval"] = FormatDurationNs(static_cast<int64_t>(report.interval_s * 1e9));
  m.attributes["trial.id"] = report.trial_id;
  m.attributes["trial.candidate"] = r.candidate.uuid;
  m.attributes["trial.candidate_position"] = std::to_string(position + 1);
  m.attributes["trial.gpu_index"] = std::to_string(r.candidate.gpu_index);
  if (!r.candidate.mig_profile.empty()) m.attributes["trial.mig_profile"] = r.candidate.mig_profile;
  if (r.candidate.gpu_fraction) m.attributes["trial.gpu_fraction"] = std::to_string(*r.candidate.gpu_fraction);
  m.attributes["trial.throughput_source"] = profiling::ThroughputSourceText(report);
  if (r.throughput && r.throughput->readings > 0) {
    char median[64];
    std::snprintf(median, sizeof(median), "%.17g", r.throughput->median);
    m.attributes["trial.throughput_median"] = median;
    m.attributes["trial.throughput_readings"] = std::to_string(r.throughput->readings);
  } else {
    m.attributes["trial.throughput_median"] = r.throughput ? "no reading after the warmup" : "not measured";
  }
  m.attributes["trial.exit"] = r.exit.state + (r.exit.exit_code ? " " + std::to_string(*r.exit.exit_code) : "");
  return m;
}

// The workload and the trial's timing from the flags. A bad duration, no command or one
// that cannot be executed, or a bad throughput regex ends the trial before anything runs.
Result<profiling::TrialOptions> TrialOptionsFromArgs(const TrialArgs& args) {
  KRAKEN_ASSIGN_OR_RETURN(int64_t interval, Duration("--interval", args.interval, false));
  KRAKEN_ASSIGN_OR_RETURN(int64_t duration, Duration("--duration", args.duration, false));
  KRAKEN_ASSIGN_OR_RETURN(int64_t warmup, Duration("--warmup", args.warmup, true));
  KRAKEN_ASSIGN_OR_RETURN(int64_t grace, Duration("--grace", args.grace, true));
  if (args.command.empty()) return InvalidInput("nothing to try: kraken trial [options] -- CMD ARGS...");
  if (Status runnable = profiling::CheckExecutable(args.command[0]); !runnable.ok()) return runnable;

  profiling::TrialOptions options;
  options.command = args.command;
  options.warmup_ns = warmup;
  options.duration_ns = duration;
  options.interval_ns = interval;
  options.grace_ns = grace;
  options.throughput_file = args.throughput_file;
  if (!args.throughput_regex.empty()) {
    KRAKEN_ASSIGN_OR_RETURN(options.pattern, profiling::ThroughputPattern::Compile(args.throughput_regex));
  }
  return options;
}

// The cluster the --annotate-job Job is in; none without the flag.
Result<std::optional<k8s::KubeConfig>> AnnotatedJobCluster(const TrialArgs& args) {
  if (args.annotate_job.empty()) return std::optional<k8s::KubeConfig>();
  KRAKEN_ASSIGN_OR_RETURN(k8s::KubeConfig kube, k8s::KubeConfigFromFlags(args.kube_api, args.token_file));
  if (!args.namespace_name.empty()) kube.namespace_name = args.namespace_name;
  if (kube.namespace_name.empty()) return InvalidInput("--annotate-job: no namespace (give --namespace NS)");
  return std::optional<k8s::KubeConfig>(std::move(kube));
}

// The report's heading before any candidate has run.
profiling::TrialReport NewTrialReport(const TrialArgs& args, const profiling::TrialOptions& options,
                                      const std::vector<std::string>& skipped, const ProfileStore* store) {
  profiling::TrialReport report;
  report.trial_id = NewTrialId();
  report.command = args.command;
  report.candidates_spec = args.candidates;
  report.left_out = skipped;
  report.warmup_s = static_cast<double>(options.warmup_ns) / 1e9;
  report.duration_s = static_cast<double>(options.duration_ns) / 1e9;
  report.interval_s = static_cast<double>(options.interval_ns) / 1e9;
  report.throughput_regex = args.throughput_regex;
  report.throughput_file = args.throughput_file;
  if (store != nullptr) report.stored_db = store->path();
  return report;
}

// What every candidate's run shares: the sampler, the trial's options and where a
// candidate's profile goes (the store, the central API, both or neither).
struct TrialRunSetup {
  nvml::NvmlSampler& sampler;
  const profiling::TrialOptions& options;
  ProfileStore* store;  // null: no profile is stored
  const app::UploadSettings& upload;
  bool quiet;
};

// Runs the candidate at `position` and appends its result to the report, with the id of
// its stored profile. An error ends the trial: the candidate could not be run, its
// profile not stored, or a process of it outlived SIGKILL (the next one would share the GPU).
Status RunOneTrialCandidate(const TrialRunSetup& setup, const profiling::TrialCandidate& candidate, size_t position,
                            profiling::TrialReport* report) {
  profiling::BatchProfileBuilder profile;
  profiling::TrialHooks hooks;
  hooks.stop_requested = [] { return profiling::StopSignalReceived() != 0; };
  std::string prefix = "[trial " + std::to_string(position + 1) + "] ";
  if (!setup.quiet)
    hooks.on_output = [prefix](std::string_view line) {
      std::fprintf(stderr, "%s%.*s\n", prefix.c_str(), static_cast<int>(line.size()), line.data());
    };
  hooks.on_pass = [&](const SampleBatch& kept) {
    if (setup.store != nullptr || setup.upload.enabled()) profile.Add(kept);
    return Status::Ok();
  };
  KRAKEN_ASSIGN_OR_RETURN(profiling::CandidateRun run,
                          profiling::RunTrialCandidate(setup.sampler, candidate, setup.options, hooks));
  report->results.push_back(run.result);
  profiling::TrialResult& result = report->results.back();
  if (setup.store != nullptr && result.sampled) {
    profile.profile().metadata = CandidateMetadata(*report, result, position);
    profile.profile().devices = setup.sampler.devices();
    KRAKEN_ASSIGN_OR_RETURN(result.profile_id, setup.store->SaveProfile(profile.profile()));
  }
  if (setup.upload.enabled() && result.sampled) {
    profile.profile().metadata = CandidateMetadata(*report, result, position);
    profile.profile().devices = setup.sampler.devices();
    ShipProfileAndSay(profile.profile(),
                      "kraken-trial-" + report->trial_id + "-" + std::to_string(position + 1) + ".json", setup.upload);
  }
  if (!run.tree_gone)
    return Status(StatusCode::kInternal,
                  "a process of candidate " + candidate.uuid + " survived SIGKILL; stopping the trial");
  return Status::Ok();
}

// Runs the candidates one after the other; a stop signal leaves the rest unrun (counted
// in the report) and the ranking is of those that ran.
Status RunTrialCandidates(const TrialRunSetup& setup, const std::vector<profiling::TrialCandidate>& candidates,
                          profiling::TrialReport* report) {
  for (size_t i = 0; i < candidates.size(); ++i) {
    const profiling::TrialCandidate& candidate = candidates[i];
    if (profiling::StopSignalReceived() != 0) {
      report->candidates_not_run = candidates.size() - i;
      break;
    }
    std::fprintf(stderr, "kraken trial: candidate %zu/%zu: %s\n", i + 1, candidates.size(), candidate.uuid.c_str());
    KRAKEN_RETURN_IF_ERROR(RunOneTrialCandidate(setup, candidate, i, report));
  }
  report->stop_signal = profiling::StopSignalReceived();
  if (report->stop_signal != 0 && report->candidates_not_run == 0)
    report->candidates_not_run = candidates.size() - report->results.size();
  report->ranking = profiling::RankCandidates(report->results);
  return Status::Ok();
}

// Writes the JSON report to --out, prints the report, then annotates the Job; returns
// kraken's exit code (128 + the signal when one stopped the trial).
int PublishTrialReport(const TrialArgs& args, const profiling::TrialReport& report,
                       const std::optional<k8s::KubeConfig>& kube) {
  std::string json = profiling::RenderTrialJson(report);
  if (!args.out.empty()) {
    Status written = WriteOutput(args.out, json);
    if (!written.ok()) return ReportError(written);
  }
  std::string text = args.json ? json : profiling::RenderTrialText(report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (kube) {
    // After the report is out: a failed patch loses no measurement.
    k8s::KubeClient client(*kube);
    k8s::AnnotationWriter writer(client);
    auto written = writer.Apply({"batch/v1", "Job", kube->namespace_name, args.annotate_job},
                                profiling::TrialAnnotations(report));
    if (!written.ok()) {
      ReportError(written.status());
      return kExitFailure;
    }
  }
  return report.stop_signal != 0 ? 128 + report.stop_signal : kExitOk;
}

int RunTrial(const TrialArgs& args) {
  profiling::InstallStopSignalHandlers();
  auto options = TrialOptionsFromArgs(args);
  if (!options.ok()) return ReportError(options.status());
  auto kube = AnnotatedJobCluster(args);
  if (!kube.ok()) return ReportError(kube.status());
  auto upload = ResolveUploadSettings(args.upload_flags);
  if (!upload.ok()) return ReportError(upload.status());

  // NVML before anything runs: without it no candidate is known and nothing is started.
  auto session = nvml::OpenNvmlSession(args.library);
  if (!session.ok()) return ReportError(session.status());
  nvml::NvmlSampler& sampler = *session->sampler;
  std::vector<std::string> skipped;
  auto candidates = profiling::EnumerateCandidates(GpusOf(sampler), args.candidates, &skipped);
  if (!candidates.ok()) return ReportError(candidates.status());
  std::unique_ptr<ProfileStore> store;
  if (args.out.empty() && !args.no_store) {
    auto opened = OpenStoreForWriting(args.db);
    if (!opened.ok()) return ReportError(opened.status());
    store = std::move(*opened);
  }

  profiling::TrialReport report = NewTrialReport(args, *options, skipped, store.get());
  // A worker the workload daemonizes stays below kraken and is stopped with its candidate.
  profiling::BecomeSubreaper();
  Status ran = RunTrialCandidates({sampler, *options, store.get(), *upload, args.quiet}, *candidates, &report);
  if (!ran.ok()) return ReportError(ran);
  return PublishTrialReport(args, report, *kube);
}

}  // namespace

void AddTrialCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<TrialArgs>();
  CLI::App* cmd = app.add_subcommand(
      "trial", "Run a workload briefly on each candidate GPU / MIG instance and rank them by measured throughput");
  cmd->add_option("--candidates", args->candidates,
                  "auto (every GPU, every MIG instance of GPUs in MIG mode) or a comma list of GPU indexes, GPU UUIDs "
                  "and MIG UUIDs")
      ->capture_default_str();
  cmd->add_option("--duration", args->duration, "How long each candidate is sampled after its warmup, e.g. 60s")
      ->capture_default_str();
  cmd->add_option("--warmup", args->warmup,
                  "How long each candidate runs before sampling starts; throughput read earlier is ignored")
      ->capture_default_str();
  cmd->add_option("--interval", args->interval, "Time between NVML sampling passes")->capture_default_str();
  cmd->add_option("--grace", args->grace,
                  "After the duration the workload gets SIGTERM; after this long SIGKILL")
      ->capture_default_str();
  auto* regex = cmd->add_option("--throughput-regex", args->throughput_regex,
                                "ECMAScript regex whose first capture group is the throughput in the workload's "
                                "output lines, e.g. 'throughput: ([0-9.]+) samples/s'");
  auto* file = cmd->add_option("--throughput-file", args->throughput_file,
                               "File the workload writes its throughput to (its last line, a number)");
  regex->excludes(file);
  auto* out = cmd->add_option("--out", args->out,
                              "Write the trial's JSON report to this file (then no profile is stored)");
  auto* db = AddDbOption(cmd, &args->db);
  auto* no_store = cmd->add_flag("--no-store", args->no_store, "Store no profile; only print the report");
  out->excludes(db)->excludes(no_store);
  db->excludes(no_store);
  cmd->add_flag("--json", args->json, "Print the report as JSON");
  cmd->add_flag("--quiet", args->quiet, "Do not copy the workload's output to standard error");
  cmd->add_option("--nvml-library", args->library,
                  "NVML library to load (default: $KRAKEN_NVML_LIBRARY, else libnvidia-ml.so.1)");
  auto* job = cmd->add_option("--annotate-job", args->annotate_job,
                              "Write kraken.io/trial-id and kraken.io/trial-throughput onto this Kubernetes Job "
                              "(in-cluster service account; needs get and patch on batch jobs)");
  cmd->add_option("--namespace", args->namespace_name,
                  "With --annotate-job: the Job's namespace (default: the service account's)")
      ->needs(job);
  cmd->add_option("--kube-api", args->kube_api,
                  "With --annotate-job: API server URL when not running in a pod (default: in-cluster)")
      ->needs(job);
  cmd->add_option("--token-file", args->token_file, "With --kube-api: file holding the bearer token");
  AddUploadFlags(cmd, args->upload_flags, "--upload-token-file");
  cmd->add_option("command", args->command, "The workload to try, after --");
  commands.push_back({cmd, [args] { return RunTrial(*args); }});
}

}  // namespace kraken::cli
