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

int RunTrial(const TrialArgs& args) {
  profiling::InstallStopSignalHandlers();
  auto interval = Duration("--interval", args.interval, false);
  if (!interval.ok()) return ReportError(interval.status());
  auto duration = Duration("--duration", args.duration, false);
  if (!duration.ok()) return ReportError(duration.status());
  auto warmup = Duration("--warmup", args.warmup, true);
  if (!warmup.ok()) return ReportError(warmup.status());
  auto grace = Duration("--grace", args.grace, true);
  if (!grace.ok()) return ReportError(grace.status());
  if (args.command.empty()) return ReportError(InvalidInput("nothing to try: kraken trial [options] -- CMD ARGS..."));
  if (Status runnable = profiling::CheckExecutable(args.command[0]); !runnable.ok()) return ReportError(runnable);

  profiling::TrialOptions options;
  options.command = args.command;
  options.warmup_ns = *warmup;
  options.duration_ns = *duration;
  options.interval_ns = *interval;
  options.grace_ns = *grace;
  options.throughput_file = args.throughput_file;
  if (!args.throughput_regex.empty()) {
    auto pattern = profiling::ThroughputPattern::Compile(args.throughput_regex);
    if (!pattern.ok()) return ReportError(pattern.status());
    options.pattern = std::move(*pattern);
  }

  std::optional<k8s::KubeConfig> kube;
  if (!args.annotate_job.empty()) {
    auto config = k8s::KubeConfigFromFlags(args.kube_api, args.token_file);
    if (!config.ok()) return ReportError(config.status());
    kube = std::move(*config);
    if (!args.namespace_name.empty()) kube->namespace_name = args.namespace_name;
    if (kube->namespace_name.empty())
      return ReportError(InvalidInput("--annotate-job: no namespace (give --namespace NS)"));
  }

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

  profiling::TrialReport report;
  report.trial_id = NewTrialId();
  report.command = args.command;
  report.candidates_spec = args.candidates;
  report.left_out = skipped;
  report.warmup_s = static_cast<double>(*warmup) / 1e9;
  report.duration_s = static_cast<double>(*duration) / 1e9;
  report.interval_s = static_cast<double>(*interval) / 1e9;
  report.throughput_regex = args.throughput_regex;
  report.throughput_file = args.throughput_file;
  if (store) report.stored_db = store->path();

  // A worker the workload daemonizes stays below kraken and is stopped with its candidate.
  profiling::BecomeSubreaper();
  for (size_t i = 0; i < candidates->size(); ++i) {
    const profiling::TrialCandidate& candidate = (*candidates)[i];
    if (profiling::StopSignalReceived() != 0) {
      report.candidates_not_run = candidates->size() - i;
      break;
    }
    std::fprintf(stderr, "kraken trial: candidate %zu/%zu: %s\n", i + 1, candidates->size(), candidate.uuid.c_str());
    profiling::BatchProfileBuilder profile;
    profiling::TrialHooks hooks;
    hooks.stop_requested = [] { return profiling::StopSignalReceived() != 0; };
    std::string prefix = "[trial " + std::to_string(i + 1) + "] ";
    if (!args.quiet)
      hooks.on_output = [prefix](std::string_view line) {
        std::fprintf(stderr, "%s%.*s\n", prefix.c_str(), static_cast<int>(line.size()), line.data());
      };
    hooks.on_pass = [&](const SampleBatch& kept) {
      if (store || upload->enabled()) profile.Add(kept);
      return Status::Ok();
    };
    auto run = profiling::RunTrialCandidate(sampler, candidate, options, hooks);
    if (!run.ok()) return ReportError(run.status());
    report.results.push_back(run->result);
    profiling::TrialResult& result = report.results.back();
    if (store && result.sampled) {
      profile.profile().metadata = CandidateMetadata(report, result, i);
      profile.profile().devices = sampler.devices();
      auto id = store->SaveProfile(profile.profile());
      if (!id.ok()) return ReportError(id.status());
      result.profile_id = *id;
    }
    if (upload->enabled() && result.sampled) {
      profile.profile().metadata = CandidateMetadata(report, result, i);
      profile.profile().devices = sampler.devices();
      ShipProfileAndSay(profile.profile(), "kraken-trial-" + report.trial_id + "-" + std::to_string(i + 1) + ".json",
                        *upload);
    }
    if (!run->tree_gone)
      return ReportError(Status(StatusCode::kInternal, "a process of candidate " + candidate.uuid +
                                                           " survived SIGKILL; stopping the trial"));
  }
  report.stop_signal = profiling::StopSignalReceived();
  if (report.stop_signal != 0 && report.candidates_not_run == 0)
    report.candidates_not_run = candidates->size() - report.results.size();
  report.ranking = profiling::RankCandidates(report.results);

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
