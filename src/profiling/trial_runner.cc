#include "profiling/trial_runner.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "profiling/child_process.h"
#include "profiling/process_tree.h"
#include "profiling/trial_process.h"

namespace kraken::profiling {
namespace {

using Clock = std::chrono::steady_clock;

int64_t NsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

int64_t WallNs() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// The file's number when it was written at or after `not_before_wall_ns` (so a value left
// from the warmup, or from an earlier candidate, never counts).
std::optional<double> ReadThroughputFile(const std::string& path, int64_t not_before_wall_ns) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  if (mtime < not_before_wall_ns) return std::nullopt;
  // The file holds a number, or a log of them: its last 64 KiB are enough, and a runaway
  // writer cannot make kraken read gigabytes every pass.
  constexpr off_t kTail = 64 * 1024;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  off_t from = st.st_size > kTail ? st.st_size - kTail : 0;
  in.seekg(from);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return ParseThroughputFile(content);
}

// Readings shared between the output reader thread and the sampling loop.
struct Readings {
  std::mutex mutex;
  std::vector<ThroughputReading> values;
  int64_t unparsable_after_warmup = 0;
};

std::vector<std::pair<std::string, std::string>> TrialEnvironment(const TrialCandidate& candidate) {
  std::vector<std::pair<std::string, std::string>> env = {{"CUDA_VISIBLE_DEVICES", candidate.uuid}};
  // Python block-buffers stdout into a pipe: its throughput lines would reach kraken late, in
  // bursts, or only at exit. A user's own setting wins.
  if (getenv("PYTHONUNBUFFERED") == nullptr) env.emplace_back("PYTHONUNBUFFERED", "1");
  return env;
}

// A line of the workload's output at `t_ns` after its start: a reading when it matches the
// throughput pattern.
void ReadOutputLine(std::string_view line, int64_t t_ns, const TrialOptions& options, Readings& readings) {
  if (!options.pattern) return;
  if (auto match = options.pattern->Find(line)) {
    std::lock_guard<std::mutex> lock(readings.mutex);
    if (match->number) {
      readings.values.push_back({t_ns, *match->number});
    } else if (t_ns >= options.warmup_ns) {
      ++readings.unparsable_after_warmup;
    }
  }
}

// The throughput file's figure, when there is a file and it was written after the warmup.
void ReadThroughputFileInto(const TrialOptions& options, int64_t warmup_end_wall_ns, Clock::time_point start,
                            Readings& readings) {
  if (options.throughput_file.empty()) return;
  if (auto value = ReadThroughputFile(options.throughput_file, warmup_end_wall_ns)) {
    std::lock_guard<std::mutex> lock(readings.mutex);
    readings.values.push_back({NsSince(start), *value});
  }
}

void RecordTrialExit(bool ended_by_itself, std::optional<int> exit_code, const TreeStop& stopped, TrialExit& exit) {
  if (ended_by_itself) {
    exit.state = "exited";
    exit.exit_code = exit_code;
  } else {
    exit.state = "stopped";
    exit.exit_code = stopped.exit_code;
    exit.stop_signal = stopped.signal_used;
  }
}

}  // namespace

Result<CandidateRun> RunTrialCandidate(nvml::NvmlSampler& sampler, const TrialCandidate& candidate,
                                       const TrialOptions& options, const TrialHooks& hooks) {
  CandidateRun run;
  TrialResult& result = run.result;
  result.candidate = candidate;
  // A value the previous candidate left in the file must not be read as this one's.
  if (!options.throughput_file.empty()) unlink(options.throughput_file.c_str());

  Readings readings;
  const Clock::time_point start = Clock::now();
  KRAKEN_ASSIGN_OR_RETURN(TrialChild child, StartTrialCommand(options.command, TrialEnvironment(candidate)));
  OutputReader reader(child.output_fd, [&](std::string_view line) {
    ReadOutputLine(line, NsSince(start), options, readings);
    if (hooks.on_output) hooks.on_output(line);
  });

  std::optional<int> exit_code;
  auto ended = [&] {
    if (!exit_code) exit_code = PollChildExit(child.pid);
    return exit_code.has_value();
  };
  auto stop = [&] { return hooks.stop_requested && hooks.stop_requested(); };

  // Warmup: the workload runs unsampled; its readings are kept but will not count.
  while (NsSince(start) < options.warmup_ns && !ended() && !stop())
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  result.exit.during_warmup = exit_code.has_value();
  const int64_t warmup_end_wall_ns = WallNs();

  Status sink_status;
  if (!exit_code && !stop()) {
    ProcessTreeTracker tree(getpid(), /*include_root=*/false);
    SamplingHooks sampling;
    sampling.target_ended = ended;
    sampling.stop_requested = stop;
    sampling.on_pass = [&](const SampleBatch& kept, const PassRecord&) -> Status {
      ReadThroughputFileInto(options, warmup_end_wall_ns, start, readings);
      return hooks.on_pass ? hooks.on_pass(kept) : Status::Ok();
    };
    SamplingOptions sampling_options{.interval_ns = options.interval_ns, .duration_ns = options.duration_ns};
    SamplingResult sampled = RunSampling(sampler, tree, sampling_options, sampling);
    result.sampled = true;
    result.sampling_stop = sampled.reason;
    result.gpu = SummarizeCandidatePasses(sampled.passes, candidate.gpu_index);
    sink_status = sampled.sink_status;
  }
  result.interrupted = stop();

  // Whatever happened, nothing of this candidate may outlive it.
  bool ended_by_itself = ended();
  TreeStop stopped = StopProcessTree(child.pid, options.grace_ns);
  run.tree_gone = stopped.tree_gone;
  reader.Stop();
  RecordTrialExit(ended_by_itself, exit_code, stopped, result.exit);
  // A workload may write its final figure as it shuts down.
  ReadThroughputFileInto(options, warmup_end_wall_ns, start, readings);
  if (options.pattern || !options.throughput_file.empty())
    result.throughput = SummarizeThroughput(readings.values, options.warmup_ns, readings.unparsable_after_warmup);
  if (!sink_status.ok()) return sink_status;
  return run;
}

}  // namespace kraken::profiling
