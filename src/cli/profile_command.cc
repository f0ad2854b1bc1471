// `kraken profile [options] -- CMD ARGS...` / `kraken profile --pid N --duration 60s`:
// samples the GPUs with NVML while a process tree runs, attributes the per-process values to
// the tree, stores the run and prints its characterization (docs/profile.md).
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "base/duration.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"
#include "collectors/nvml/nvml_sampler.h"
#include "profiling/batch_profile.h"
#include "profiling/child_process.h"
#include "profiling/kernel_capture.h"
#include "profiling/run_output.h"
#include "profiling/run_summary_kernels.h"
#include "profiling/sampling_loop.h"
#include "report/profile_export.h"
#include "base/log.h"
#include "base/text.h"
#include "cli/upload_flags.h"

namespace kraken::cli {
namespace {

struct ProfileArgs {
  std::string interval = "100ms";
  std::string slow_interval = "1s";  // the slow NVML reads (nvml::NvmlSamplerOptions)
  std::string duration;
  int64_t samples = 0;
  int64_t pid = 0;
  std::string out;
  std::string db;
  bool no_store = false;
  bool json = false;
  std::string library;
  bool kernels = false;          // --kernels: the CUPTI tracer in the command (docs/kernel-capture.md)
  std::string kernel_trace_dir;  // default: <--out>.kernels, else a temporary folder
  bool kernel_counters = false;  // --kernel-counters: per-kernel hardware counters (replay)
  std::string kernel_delay;      // --kernel-delay: the tracer's capture window (KRAKEN_CUPTI_DELAY_MS)
  std::string kernel_duration;   // --kernel-duration (KRAKEN_CUPTI_DURATION_MS)
  std::string kernel_start_on_nvtx;  // --kernel-start-on-nvtx (KRAKEN_CUPTI_START_ON_NVTX)
  std::vector<std::string> command;
  ConfigFlags upload_flags;  // --upload-to, --token-file, --upload-spool, --config
};

ProfileMetadata RunMetadata(const ProfileArgs& args, int64_t interval_ns) {
  std::string what;
  for (const std::string& a : args.command) what += (what.empty() ? "" : " ") + a;
  return profiling::SampledRunMetadata(args.pid > 0 ? "pid " + std::to_string(args.pid) : what, interval_ns);
}

// Where the passes go while the run lasts: the store (live ingest, so that a killed
// kraken leaves what it had committed readable) and/or the --out profile.
struct Sinks {
  std::unique_ptr<ProfileStore> store;
  int64_t live_id = 0;
  std::unique_ptr<profiling::BatchProfileBuilder> file;
};

Result<Sinks> OpenSinks(const ProfileArgs& args, const ProfileMetadata& metadata,
                        const std::vector<DeviceInfo>& devices, bool upload) {
  Sinks sinks;
  // --no-store --upload-to: the profile is built in memory for the upload only.
  if (!args.out.empty() || (upload && args.no_store)) {
    sinks.file = std::make_unique<profiling::BatchProfileBuilder>();
    sinks.file->profile().metadata = metadata;
    sinks.file->profile().devices = devices;
  } else if (!args.no_store) {
    KRAKEN_ASSIGN_OR_RETURN(sinks.store, OpenStoreForWriting(args.db));
    KRAKEN_ASSIGN_OR_RETURN(sinks.live_id, sinks.store->BeginProfile(metadata, devices));
  }
  return sinks;
}

// The run's profile to the central API: the in-memory one, else the one just committed.
void ShipRun(Sinks& sinks, const ProfileArgs& args, const app::UploadSettings& upload) {
  std::string name = args.out.empty() ? "kraken-profile.json" : std::string(BaseName(args.out));
  if (sinks.file) return ShipProfileAndSay(sinks.file->profile(), name, upload);
  auto stored = sinks.store->LoadProfile(sinks.live_id);
  if (!stored.ok()) {
    Log(LogLevel::kWarn, "upload: %s; the profile is stored locally only", stored.status().message().c_str());
    return;
  }
  ShipProfileAndSay(*stored, name, upload);
}

// --kernel-delay / --kernel-duration as the tracer's window; a bad one names its flag.
Result<profiling::KernelCaptureWindow> KernelWindow(const ProfileArgs& args) {
  profiling::KernelCaptureWindow window;
  window.start_on_nvtx = args.kernel_start_on_nvtx;
  const std::pair<const char*, const std::string*> flags[] = {{"--kernel-delay", &args.kernel_delay},
                                                              {"--kernel-duration", &args.kernel_duration}};
  for (const auto& [flag, text] : flags) {
    if (text->empty()) continue;
    auto ns = ParseDurationNs(*text);
    if (!ns || *ns < 0 || *ns > profiling::kMaxKernelWindowNs)
      return InvalidInput(std::string(flag) + ": '" + *text + "' is not a duration from 0 to 7d such as 30s");
    // Whole milliseconds, as the tracer reads them; a shorter non-zero one rounds up.
    int64_t ms = (*ns + 999'999) / 1'000'000;
    (std::string_view(flag) == "--kernel-delay" ? window.delay_ms : window.duration_ms) = ms;
  }
  return window;
}

// The sampling periods and the kernel capture window, from the flags.
struct ProfileTimes {
  int64_t interval_ns = 0;
  int64_t slow_interval_ns = 0;
  int64_t duration_ns = 0;  // 0: until the process tree ends
  profiling::KernelCaptureWindow kernel_window;
};

// Every check of the flags that needs no GPU, in the order a user meets them: the
// durations, what to profile (a command or a live --pid, not both), then the kernel
// capture options. A bad one names its flag.
Result<ProfileTimes> ProfileTimesFromArgs(const ProfileArgs& args) {
  ProfileTimes times;
  auto interval = ParseDurationNs(args.interval);
  if (!interval || *interval <= 0)
    return InvalidInput("--interval: '" + args.interval + "' is not a duration such as 100ms");
  auto slow_interval = ParseDurationNs(args.slow_interval);
  if (!slow_interval || *slow_interval < 0)
    return InvalidInput("--slow-interval: '" + args.slow_interval + "' is not a duration such as 1s");
  std::optional<int64_t> duration = 0;
  if (!args.duration.empty()) duration = ParseDurationNs(args.duration);
  if (!duration) return InvalidInput("--duration: '" + args.duration + "' is not a duration such as 60s");
  if (args.pid > 0 && !args.command.empty()) return InvalidInput("give either --pid N or a command after --, not both");
  if (args.pid <= 0 && args.command.empty())
    return InvalidInput("nothing to profile: kraken profile [options] -- CMD ARGS..., or --pid N");
  if (args.kernels && args.pid > 0) return InvalidInput(profiling::kKernelsNeedLaunch);
  KRAKEN_ASSIGN_OR_RETURN(times.kernel_window, KernelWindow(args));
  if (args.kernel_counters &&
      (!args.kernel_delay.empty() || !args.kernel_duration.empty() || !args.kernel_start_on_nvtx.empty()))
    return InvalidInput(
        "--kernel-counters cannot be combined with a capture window (--kernel-delay, --kernel-duration, "
        "--kernel-start-on-nvtx): the counters replay kernels from the first launch on");
  if (args.pid > 0 && kill(static_cast<pid_t>(args.pid), 0) != 0 && errno == ESRCH)
    return NotFound("--pid " + std::to_string(args.pid) + ": no such process");
  times.interval_ns = *interval;
  times.slow_interval_ns = *slow_interval;
  times.duration_ns = *duration;
  return times;
}

// A run that ends before it measured anything leaves no half-written profile in the store.
void AbortLiveProfile(Sinks& sinks) {
  if (sinks.store) (void)sinks.store->Abort(sinks.live_id);
}

// The CUPTI tracer's set-up with --kernels (its traces in --kernel-trace-dir, else beside
// --out, else a temporary folder); none without it.
Result<std::optional<profiling::KernelCaptureSetup>> PrepareProfileKernelCapture(const ProfileArgs& args,
                                                                                  const ProfileTimes& times) {
  if (!args.kernels) return std::optional<profiling::KernelCaptureSetup>();
  KRAKEN_ASSIGN_OR_RETURN(
      profiling::KernelCaptureSetup setup,
      profiling::PrepareKernelCapture(
          !args.kernel_trace_dir.empty() || args.out.empty() ? args.kernel_trace_dir : args.out + ".kernels",
          times.kernel_window, args.kernel_counters));
  return std::optional<profiling::KernelCaptureSetup>(std::move(setup));
}

// Samples the tree until it ends, a stop signal, --duration or --samples; each pass goes
// to the sinks as it is taken. A launched command's exit code lands in *exit_code when
// sampling sees it end.
profiling::SamplingResult SampleProcessTree(nvml::NvmlSampler& sampler, profiling::ProcessTreeTracker& tree,
                                            const ProfileArgs& args, const ProfileTimes& times, pid_t child,
                                            Sinks& sinks, std::optional<int>* exit_code) {
  profiling::SamplingHooks hooks;
  hooks.stop_requested = [] { return profiling::StopSignalReceived() != 0; };
  hooks.target_ended = [&] {
    if (child > 0) {
      if (!*exit_code) *exit_code = profiling::PollChildExit(child);
      return exit_code->has_value();
    }
    return kill(static_cast<pid_t>(args.pid), 0) != 0 && errno == ESRCH;
  };
  hooks.on_pass = [&](const SampleBatch& kept, const profiling::PassRecord&) -> Status {
    if (sinks.file) sinks.file->Add(kept);
    if (sinks.store) return sinks.store->AppendBatch(sinks.live_id, kept);
    return Status::Ok();
  };
  profiling::SamplingOptions options{
      .interval_ns = times.interval_ns, .duration_ns = times.duration_ns, .max_passes = args.samples};
  return profiling::RunSampling(sampler, tree, options, hooks);
}

// Keeps what the run measured, stopping at the first failure (sampling's own included):
// the kernel traces, the store's commit, the --out file, then the upload. Says in the
// report where the profile went.
Status KeepProfiledRun(const ProfileArgs& args, Sinks& sinks,
                       const std::optional<profiling::KernelCaptureSetup>& capture, pid_t child,
                       const app::UploadSettings& upload, Status stored, std::optional<int>* exit_code,
                       profiling::RunReport* report) {
  if (capture) {
    // The command's processes write the end of their traces as they exit.
    if (child > 0 && !*exit_code) *exit_code = profiling::WaitChildExit(child);
    Profile events;
    report->kernels = profiling::CollectKernelTraces(*capture, &events);
    profiling::ApplyKernelTimeline(events, &report->summary);
    if (stored.ok() && sinks.store) stored = sinks.store->AttachEvents(sinks.live_id, events);
    if (sinks.file) profiling::AppendTimeline(events, &sinks.file->profile());
  }
  if (stored.ok() && sinks.store) {
    stored = sinks.store->Commit(sinks.live_id);
    report->stored_db = sinks.store->path();
    report->stored_id = sinks.live_id;
  }
  if (stored.ok() && sinks.file && !args.out.empty()) {
    JsonWriter json;
    WriteProfileJson(sinks.file->profile(), json);
    stored = WriteOutput(args.out, json.Take());
    report->stored_file = args.out;
  }
  if (stored.ok() && upload.enabled()) ShipRun(sinks, args, upload);
  return stored;
}

int RunProfile(const ProfileArgs& args) {
  // First of all: a Ctrl-C while NVML or the store opens must stop the run, not be lost
  // (or ignored, as a background job's SIGINT is) before the command even started.
  profiling::InstallStopSignalHandlers();
  auto times = ProfileTimesFromArgs(args);
  if (!times.ok()) return ReportError(times.status());
  auto upload = ResolveUploadSettings(args.upload_flags);
  if (!upload.ok()) return ReportError(upload.status());

  // NVML first: without it the command is not started at all.
  nvml::NvmlSamplerOptions sampler_options;
  sampler_options.slow_interval_us = times->slow_interval_ns / 1000;
  auto session = nvml::OpenNvmlSession(args.library, sampler_options);
  if (!session.ok()) return ReportError(session.status());
  nvml::NvmlSampler& sampler = *session->sampler;
  ProfileMetadata metadata = RunMetadata(args, times->interval_ns);
  auto sinks = OpenSinks(args, metadata, sampler.devices(), upload->enabled());
  if (!sinks.ok()) return ReportError(sinks.status());

  auto capture = PrepareProfileKernelCapture(args, *times);
  if (!capture.ok()) {
    AbortLiveProfile(*sinks);
    return ReportError(capture.status());
  }
  pid_t child = 0;
  if (int signal = profiling::StopSignalReceived(); signal != 0) {
    AbortLiveProfile(*sinks);
    return 128 + signal;  // stopped before anything was started or measured
  }
  if (!args.command.empty()) {
    auto started = profiling::StartCommand(args.command);
    if (!started.ok()) {
      AbortLiveProfile(*sinks);
      return ReportError(started.status());
    }
    child = *started;
    profiling::SetSignalForwardPid(child);
  }
  // Launch mode: the tree is kraken's children (kraken itself excluded); attach: N and below.
  profiling::ProcessTreeTracker tree(child > 0 ? getpid() : args.pid, child == 0);
  std::optional<int> exit_code;
  profiling::SamplingResult run = SampleProcessTree(sampler, tree, args, *times, child, *sinks, &exit_code);

  profiling::RunReport report;
  report.command = args.command;
  report.attached_pid = args.pid;
  report.stop_reason = run.reason;
  report.devices = sampler.devices();
  report.tree_pids.assign(tree.ever_members().begin(), tree.ever_members().end());
  report.summary = profiling::SummarizeRun(run.passes, static_cast<double>(times->interval_ns) / 1e9);
  Status stored = KeepProfiledRun(args, *sinks, *capture, child, *upload, run.sink_status, &exit_code, &report);
  // The command runs on after a stop signal or a pass limit until it ends by itself (it
  // got the signal too); its exit code is what kraken returns.
  if (child > 0 && !exit_code) exit_code = profiling::WaitChildExit(child);
  report.exit_code = exit_code;
  if (!stored.ok()) return ReportError(stored);
  std::string text = args.json ? profiling::RenderRunJson(report) : profiling::RenderRunText(report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return exit_code.value_or(kExitOk);
}

}  // namespace

void AddProfileCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Run a command (or attach to a process) and characterize its GPU use from NVML samples (and its CUDA kernels: --kernels)");
  cmd->add_option("--interval", args->interval, "Time between NVML sampling passes, e.g. 100ms, 1s")
      ->capture_default_str();
  cmd->add_option("--slow-interval", args->slow_interval,
                  "Time between a GPU's slow NVML reads (energy, PCIe throughput, process utilization: "
                  "~46 ms per H100), 0: every pass")
      ->capture_default_str();
  cmd->add_option("--duration", args->duration,
                  "Stop sampling after this long, e.g. 60s (default: until the process tree ends)");
  cmd->add_option("--samples", args->samples, "Stop sampling after this many passes (default: no limit)")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000'000}));
  cmd->add_option("--pid", args->pid, "Attach to this running process and its descendants instead of running CMD")
      ->check(CLI::Range(int64_t{1}, int64_t{4'194'304}));
  auto* out = cmd->add_option("--out", args->out,
                              "Write the profile to this file in kraken's export JSON (readable by kraken analyze) "
                              "instead of the database");
  auto* db = AddDbOption(cmd, &args->db);
  auto* no_store = cmd->add_flag("--no-store", args->no_store, "Keep nothing: only print the summary");
  out->excludes(db)->excludes(no_store);
  db->excludes(no_store);
  cmd->add_flag("--json", args->json, "Print the summary as JSON");
  cmd->add_option("--nvml-library", args->library,
                  "NVML library to load (default: $KRAKEN_NVML_LIBRARY, else libnvidia-ml.so.1)");
  auto* kernels = cmd->add_flag("--kernels", args->kernels,
                                "Also record every kernel, copy and launch of the command's CUDA processes with "
                                "kraken's CUPTI tracer (not with --pid)");
  cmd->add_option("--kernel-trace-dir", args->kernel_trace_dir,
                  "Keep the Kineto traces of --kernels in this folder (default: <--out>.kernels, else removed "
                  "after they are stored)")
      ->needs(kernels);
  cmd->add_flag("--kernel-counters", args->kernel_counters,
                "With --kernels: also measure each kernel's FLOPs, DRAM bytes and throughputs (CUPTI range "
                "profiler; replays every kernel, which serializes and slows them; at most "
                "KRAKEN_CUPTI_COUNTERS_MAX_KERNELS, default 2000; not with a capture window)")
      ->needs(kernels);
  cmd->add_option("--kernel-delay", args->kernel_delay,
                  "With --kernels: start recording this long after each CUDA process started, e.g. 30s (before "
                  "it the tracer enables nothing and costs nothing)")
      ->needs(kernels);
  cmd->add_option("--kernel-duration", args->kernel_duration,
                  "With --kernels: stop recording this long after recording started, e.g. 10s; the trace is "
                  "complete then while the command runs on (default: until the process ends)")
      ->needs(kernels);
  cmd->add_option("--kernel-start-on-nvtx", args->kernel_start_on_nvtx,
                  "With --kernels: start recording when an NVTX range of this name is first pushed, e.g. "
                  "ProfilerStep#10 (and not before --kernel-delay)")
      ->needs(kernels);
  AddUploadFlags(cmd, args->upload_flags);
  cmd->add_option("command", args->command, "The command to run and profile, after --");
  commands.push_back({cmd, [args] { return RunProfile(*args); }});
}

}  // namespace kraken::cli
