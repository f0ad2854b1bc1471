#include "app/profile_session.h"

#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <set>

#include "app/store_access.h"
#include "app/upload_request.h"
#include "base/log.h"
#include "base/atomic_file.h"
#include "base/duration.h"
#include "base/json_writer.h"
#include "profiling/run_summary_kernels.h"
#include "report/profile_export.h"

namespace kraken {
namespace {

// The upload's file name from the session's name ("bert-training" -> "bert-training.json").
std::string SafeUploadName(const std::string& name) {
  std::string safe;
  for (char c : name) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return (safe.empty() ? std::string("session") : safe.substr(0, 100)) + ".json";
}

TimeNs NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool ProcessExists(int64_t pid) { return kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH; }

Status CheckSettings(const SessionSettings& settings) {
  if (settings.kernel_capture) KRAKEN_RETURN_IF_ERROR(app::CheckKernelTracerInjected(std::getenv));
  if (settings.samples < 0) return InvalidInput("samples must be >= 0 (0 = until the session is stopped)");
  for (int64_t pid : settings.pids)
    if (pid <= 0 || !ProcessExists(pid)) return NotFound("pid " + std::to_string(pid) + ": no such process");
  return Status::Ok();
}

std::string DefaultSource(const SessionSettings& settings) {
  if (!settings.name.empty()) return settings.name;
  return "pid " + std::to_string(settings.pids.empty() ? static_cast<int64_t>(getpid()) : settings.pids.front());
}

}  // namespace

Result<std::unique_ptr<ProfilingSession>> ProfilingSession::Start(const SessionSettings& settings) {
  KRAKEN_RETURN_IF_ERROR(CheckSettings(settings));
  if (!settings.upload_to.empty())  // a bad URL or token file fails now, not after the run
    KRAKEN_RETURN_IF_ERROR(app::UploadSettingsOf(settings.upload_to, settings.token_file, settings.upload_spool,
                                                 settings.upload_retry_for)
                               .status());
  std::optional<int64_t> interval = ParseDurationNs(settings.interval);
  if (!interval || *interval <= 0)
    return InvalidInput("interval: '" + settings.interval + "' is not a duration such as 100ms");
  std::optional<int64_t> slow_interval = ParseDurationNs(settings.slow_interval);
  if (!slow_interval || *slow_interval < 0)
    return InvalidInput("slow_interval: '" + settings.slow_interval + "' is not a duration such as 1s");
  nvml::NvmlSamplerOptions sampler_options;
  sampler_options.slow_interval_us = *slow_interval / 1000;
  KRAKEN_ASSIGN_OR_RETURN(nvml::NvmlSession nvml, nvml::OpenNvmlSession(settings.nvml_library, sampler_options));
  std::optional<app::KernelTraceLocation> kernel_trace;
  if (settings.kernel_capture) kernel_trace = app::LocateKernelTrace(std::getenv, getpid());
  std::unique_ptr<ProfilingSession> session(
      new ProfilingSession(settings, *interval, std::move(nvml), std::move(kernel_trace)));
  session->sampler_ = std::thread([s = session.get()] { s->SampleUntilStopped(); });
  return session;
}

ProfilingSession::ProfilingSession(SessionSettings settings, int64_t interval_ns, nvml::NvmlSession nvml,
                                   std::optional<app::KernelTraceLocation> kernel_trace)
    : settings_(std::move(settings)),
      interval_ns_(interval_ns),
      kernel_trace_(std::move(kernel_trace)),
      nvml_(std::move(nvml)),
      tree_(settings_.pids.empty() ? std::set<int64_t>{getpid()}
                                   : std::set<int64_t>(settings_.pids.begin(), settings_.pids.end()),
            /*include_roots=*/true) {
  builder_.profile().metadata = profiling::SampledRunMetadata(DefaultSource(settings_), interval_ns_);
  builder_.profile().devices = nvml_.sampler->devices();
  step_start_ns_ = NowNs();
  start_ns_ = step_start_ns_;
}

ProfilingSession::~ProfilingSession() {
  stop_requested_ = true;
  if (sampler_.joinable()) sampler_.join();
}

bool ProfilingSession::TargetEnded() const {
  if (settings_.pids.empty()) return false;  // this process: ends when the session is stopped
  for (int64_t pid : settings_.pids)
    if (ProcessExists(pid)) return false;
  return true;
}

void ProfilingSession::SampleUntilStopped() {
  profiling::SamplingHooks hooks;
  hooks.stop_requested = [this] { return stop_requested_.load(); };
  hooks.target_ended = [this] { return TargetEnded(); };
  hooks.on_pass = [this](const SampleBatch& kept, const profiling::PassRecord&) {
    builder_.Add(kept);
    ++passes_taken_;
    return Status::Ok();
  };
  profiling::SamplingOptions options{.interval_ns = interval_ns_, .max_passes = settings_.samples};
  run_ = profiling::RunSampling(*nvml_.sampler, tree_, options, hooks);
  // The only stop request a session has is its owner's Stop.
  if (run_.reason == profiling::StopReason::kSignal) run_.reason = profiling::StopReason::kRequested;
}

Status ProfilingSession::Mark(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopped_) return InvalidInput("the session is stopped: marks go before kraken_session_stop");
  const TimeNs now = NowNs();
  if (open_phase_) {
    open_phase_->end_ns = now;
    phases_.push_back(std::move(*open_phase_));
  }
  open_phase_ = Phase{name, now, now};
  return Status::Ok();
}

Status ProfilingSession::Step() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopped_) return InvalidInput("the session is stopped: steps go before kraken_session_stop");
  const TimeNs now = NowNs();
  StepAnnotation step;
  step.step_number = static_cast<int64_t>(steps_.size());
  step.start_ns = step_start_ns_;
  step.duration_ns = now - step_start_ns_;
  steps_.push_back(step);
  step_start_ns_ = now;
  return Status::Ok();
}

void ProfilingSession::FinishMarks(TimeNs stop_ns) {
  if (open_phase_) {
    open_phase_->end_ns = stop_ns;
    phases_.push_back(std::move(*open_phase_));
    open_phase_.reset();
  }
  Profile& profile = builder_.profile();
  profile.steps = steps_;
  for (const Phase& phase : phases_) {
    ProfilerRange range;
    range.name = profile.strings.Intern(phase.name);
    range.start_ns = phase.start_ns;
    range.duration_ns = phase.end_ns - phase.start_ns;
    profile.profiler_ranges.push_back(std::move(range));
  }
}

void ProfilingSession::MergeKernels(const Profile& events) {
  profiling::AppendTimeline(events, &builder_.profile());
  // Steps the caller marked are the session's steps; the trace's (from ProfilerStep ranges)
  // would count them twice. Without marked steps, the trace's are the only ones.
  if (!steps_.empty()) builder_.profile().steps = steps_;
}

Status ProfilingSession::SaveProfile(profiling::RunReport* report) {
  const Profile& profile = builder_.profile();
  if (settings_.store) {
    KRAKEN_ASSIGN_OR_RETURN(auto store, OpenStoreForWriting(settings_.db));
    KRAKEN_ASSIGN_OR_RETURN(report->stored_id, store->SaveProfile(profile));
    report->stored_db = store->path();
  }
  if (!settings_.out.empty()) {
    JsonWriter json;
    WriteProfileJson(profile, json);
    KRAKEN_RETURN_IF_ERROR(WriteFileAtomically(settings_.out, json.Take()));
    report->stored_file = settings_.out;
  }
  return Status::Ok();
}

Result<std::string> ProfilingSession::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return InvalidInput("the session was stopped already");
    stopped_ = true;
  }
  stop_requested_ = true;
  sampler_.join();
  const TimeNs stop_ns = NowNs();
  // Before taking the lock: the wait for the tracer's flush must not block stopped().
  Profile kernel_events;
  std::optional<profiling::KernelCaptureSummary> kernels;
  if (kernel_trace_) kernels = app::CollectSessionKernels(*kernel_trace_, start_ns_, stop_ns, &kernel_events);
  std::lock_guard<std::mutex> lock(mutex_);
  FinishMarks(stop_ns);
  if (kernels) MergeKernels(kernel_events);
  finished_ = true;

  profiling::RunReport report;
  report.attached_pid = settings_.pids.empty() ? getpid() : settings_.pids.front();
  report.stop_reason = run_.reason;
  report.devices = nvml_.sampler->devices();
  report.tree_pids.assign(tree_.ever_members().begin(), tree_.ever_members().end());
  report.summary = profiling::SummarizeRun(run_.passes, static_cast<double>(interval_ns_) / 1e9);
  if (kernels) {
    profiling::ApplyKernelTimeline(kernel_events, &report.summary);  // as kraken profile --kernels
    report.kernels = std::move(kernels);
  }
  KRAKEN_RETURN_IF_ERROR(SaveProfile(&report));
  if (!settings_.upload_to.empty()) {
    // After the local save: a failed upload loses nothing; it waits in the spool.
    auto upload = app::UploadSettingsOf(settings_.upload_to, settings_.token_file, settings_.upload_spool,
                                        settings_.upload_retry_for);
    if (upload.ok()) {
      app::ShipReport shipped = app::ShipProfile(builder_.profile(), SafeUploadName(settings_.name), *upload);
      Log(LogLevel::kInfo, "%s", shipped.Summary().c_str());
      if (!shipped.warning.empty()) Log(LogLevel::kWarn, "upload: %s", shipped.warning.c_str());
    }
  }
  return profiling::RenderRunJson(report);
}

bool ProfilingSession::stopped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stopped_;
}

bool ProfilingSession::finished() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return finished_;
}

Result<std::string> ProfilingSession::ProfileJson() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!finished_) return InvalidInput("the session is still sampling: stop it first");
  JsonWriter json;
  WriteProfileJson(builder_.profile(), json);
  return json.Take();
}

}  // namespace kraken
