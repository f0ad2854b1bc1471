#include "profiling/kernel_capture.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <system_error>

#include "base/executable_dir.h"
#include "base/text.h"
#include "importers/registry.h"

namespace kraken::profiling {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLibraryName = "libkraken_cupti.so";
constexpr const char* kTracePrefix = "kernels_";

// Re-interns a name of `from` into `into`.
StringId Rename(const Profile& from, StringId id, Profile* into) { return into->strings.Intern(from.Name(id)); }

// Copies the counter set `index` of `from` into `into` once (a kernel and its profiler
// range share one); its index in `into`, or -1.
int32_t MoveCounters(const Profile& from, int32_t index, std::map<int32_t, int32_t>* moved, Profile* into) {
  if (index < 0 || static_cast<size_t>(index) >= from.kernel_counters.size()) return -1;
  auto [it, added] = moved->emplace(index, static_cast<int32_t>(into->kernel_counters.size()));
  if (added) into->kernel_counters.push_back(from.kernel_counters[static_cast<size_t>(index)]);
  return it->second;
}

// Appends the timeline of one trace to `into`, its times shifted by `offset_ns`, with the
// per-kernel counters of KRAKEN_CUPTI_COUNTERS (profiler ranges tied to their kernels).
void MergeTimeline(const Profile& from, int64_t offset_ns, Profile* into) {
  std::map<int32_t, int32_t> moved;
  for (Kernel k : from.kernels) {
    k.name = Rename(from, k.name, into);
    k.start_ns += offset_ns;
    k.counters_index = MoveCounters(from, k.counters_index, &moved, into);
    k.collective_index = -1;  // the tracer records no collective args
    into->kernels.push_back(k);
  }
  for (ProfilerRange range : from.profiler_ranges) {
    range.name = Rename(from, range.name, into);
    range.start_ns += offset_ns;
    range.counters_index = MoveCounters(from, range.counters_index, &moved, into);
    into->profiler_ranges.push_back(std::move(range));
  }
  // Named records: their name re-interned, their start shifted.
  auto merge_named = [&](const auto& records, auto& out) {
    for (auto record : records) {
      record.name = Rename(from, record.name, into);
      record.start_ns += offset_ns;
      out.push_back(record);
    }
  };
  merge_named(from.memory_ops, into->memory_ops);
  merge_named(from.cpu_ops, into->cpu_ops);
  merge_named(from.runtime_calls, into->runtime_calls);
  merge_named(from.syncs, into->syncs);
  for (StepAnnotation step : from.steps) {
    step.start_ns += offset_ns;
    into->steps.push_back(step);
  }
  // The device memory of the tracer's memory records, one series per device and process:
  // a trace's own pid (its header) marks them, as NVML's per-process memory.
  const int64_t pid = ParseInt64(from.metadata.attributes.count("pid") ? from.metadata.attributes.at("pid") : "")
                          .value_or(-1);
  for (const Series& series : from.series) {
    if (series.metric != Metric::kCudaAllocatedBytes) continue;
    Series& copy = into->series.emplace_back(series);
    if (copy.entity.pid < 0) copy.entity.pid = pid;
    for (Sample& sample : copy.samples) sample.time_ns += offset_ns;
  }
  for (const auto& [name, value] : from.import_counters) into->import_counters[name] += value;
}

void SortByStart(Profile* p) {
  auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
  std::stable_sort(p->kernels.begin(), p->kernels.end(), by_start);
  std::stable_sort(p->memory_ops.begin(), p->memory_ops.end(), by_start);
  std::stable_sort(p->cpu_ops.begin(), p->cpu_ops.end(), by_start);
  std::stable_sort(p->runtime_calls.begin(), p->runtime_calls.end(), by_start);
  std::stable_sort(p->steps.begin(), p->steps.end(), by_start);
  std::stable_sort(p->syncs.begin(), p->syncs.end(), by_start);
}

std::vector<std::string> TraceFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && StartsWith(name, kTracePrefix) && name.ends_with(".json"))
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Attribute(const Profile& p, const std::string& key) {
  auto it = p.metadata.attributes.find(key);
  return it == p.metadata.attributes.end() ? "" : it->second;
}

}  // namespace

Result<std::string> FindInjectionLibrary() {
  std::error_code ec;
  if (const char* named = std::getenv("KRAKEN_CUPTI_INJECTION"); named != nullptr && *named != '\0') {
    if (!fs::is_regular_file(named, ec))
      return NotFound(std::string("KRAKEN_CUPTI_INJECTION=") + named + ": no such file");
    return fs::absolute(named, ec).string();
  }
  const std::string dir = ExecutableDir();
  for (const std::string& candidate :
       {dir + "/" + kLibraryName, dir + "/../lib/kraken/" + kLibraryName, dir + "/../lib/" + kLibraryName}) {
    if (fs::is_regular_file(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return NotFound(std::string("--kernels: ") + kLibraryName + " was not found beside " + dir +
                  " (this kraken was built without the CUDA toolkit's CUPTI headers?); set "
                  "KRAKEN_CUPTI_INJECTION=/path/to/libkraken_cupti.so");
}

Result<KernelCaptureSetup> PrepareKernelCapture(const std::string& trace_dir, const KernelCaptureWindow& window,
                                                bool counters) {
  KernelCaptureSetup setup;
  KRAKEN_ASSIGN_OR_RETURN(setup.injection_library, FindInjectionLibrary());
  std::error_code ec;
  if (const char* other = std::getenv("CUDA_INJECTION64_PATH"); other != nullptr && *other != '\0') {
    if (fs::weakly_canonical(other, ec).string() != setup.injection_library)
      return InvalidInput(std::string("--kernels: CUDA_INJECTION64_PATH is already set to ") + other +
                          ": another tool injects itself into CUDA; unset it to record kernels");
  }
  if (trace_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/kraken-kernels-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr)
      return IoError("--kernels: cannot create a temporary folder " + pattern + ": " + std::strerror(errno));
    setup.trace_dir = pattern;
    setup.remove_after_import = true;
  } else {
    fs::create_directories(trace_dir, ec);
    if (ec || !fs::is_directory(trace_dir))
      return IoError("--kernel-trace-dir " + trace_dir + ": cannot create the folder" +
                     (ec ? ": " + ec.message() : std::string()));
    setup.trace_dir = fs::absolute(trace_dir, ec).string();
  }
  std::string output = setup.trace_dir + "/" + kTracePrefix + "%p.json";
  setenv("CUDA_INJECTION64_PATH", setup.injection_library.c_str(), 1);
  setenv("NVTX_INJECTION64_PATH", setup.injection_library.c_str(), 1);
  setenv("KRAKEN_CUPTI_OUTPUT", output.c_str(), 1);
  setenv("KRAKEN_CUPTI_QUIET", "1", 0);
  if (window.delay_ms >= 0) setenv("KRAKEN_CUPTI_DELAY_MS", std::to_string(window.delay_ms).c_str(), 1);
  if (window.duration_ms >= 0) setenv("KRAKEN_CUPTI_DURATION_MS", std::to_string(window.duration_ms).c_str(), 1);
  if (!window.start_on_nvtx.empty()) setenv("KRAKEN_CUPTI_START_ON_NVTX", window.start_on_nvtx.c_str(), 1);
  if (counters) setenv("KRAKEN_CUPTI_COUNTERS", "1", 1);
  return setup;
}

KernelCaptureSummary ImportKernelTraces(const std::vector<std::string>& files, Profile* events) {
  KernelCaptureSummary summary;
  summary.files = files;
  ImportOptions options;
  options.forced_format = "kineto";
  size_t windows_not_started = 0;  // traces whose capture window began after the process ended
  for (const std::string& file : summary.files) {
    auto imported = ImportFile(BuiltinImporters(), file, options);
    if (!imported.ok()) {
      summary.problems.push_back(imported.status().message());
      continue;
    }
    for (const Profile& trace : *imported) {
      std::string name = fs::path(file).filename().string();
      if (std::string error = Attribute(trace, "kraken_cupti_error"); !error.empty())
        summary.problems.push_back(name + ": " + error);
      if (std::string error = Attribute(trace, "kraken_cupti_counters_error"); !error.empty())
        summary.problems.push_back(name + ": no per-kernel counters: " + error);
      if (trace.import_counters.count("kineto_trace_cut") > 0) ++summary.cut_traces;
      if (StartsWith(Attribute(trace, "kraken_cupti_window"), "not started")) ++windows_not_started;
      if (auto dropped = ParseInt64(Attribute(trace, "kraken_cupti_dropped_records"))) summary.dropped_records += *dropped;
      MergeTimeline(trace, trace.metadata.base_time_ns, events);
    }
  }
  SortByStart(events);
  CountTimeline(*events, &summary);
  events->metadata.attributes["kernel_traces"] = std::to_string(summary.files.size());
  if (summary.cut_traces > 0) events->metadata.attributes["kernel_traces_cut"] = std::to_string(summary.cut_traces);
  if (!summary.files.empty() && summary.kernels == 0 && summary.problems.empty() &&
      windows_not_started == summary.files.size()) {
    summary.note = "no kernel was recorded: the capture window (--kernel-delay) had not begun when the command's "
                   "CUDA processes ended";
  } else if (!summary.files.empty() && summary.kernels == 0) {
    summary.note = summary.problems.empty() ? "the command's CUDA processes ran no kernel"
                                            : "no kernel was recorded: " + summary.problems.front();
  }
  return summary;
}

void CountTimeline(const Profile& events, KernelCaptureSummary* summary) {
  int64_t kernel_ns = 0;
  for (const Kernel& k : events.kernels) kernel_ns += k.duration_ns;
  summary->kernel_time_s = static_cast<double>(kernel_ns) / 1e9;
  summary->kernels = static_cast<int64_t>(events.kernels.size());
  summary->memory_ops = static_cast<int64_t>(events.memory_ops.size());
  summary->runtime_calls = static_cast<int64_t>(events.runtime_calls.size());
  // From the merged timeline, so that a session's window (which keeps only its kernels)
  // counts the counters of the kernels it kept.
  summary->kernels_with_counters = 0;
  for (const Kernel& k : events.kernels) summary->kernels_with_counters += k.counters_index >= 0 ? 1 : 0;
}

KernelCaptureSummary CollectKernelTraces(const KernelCaptureSetup& setup, Profile* events) {
  KernelCaptureSummary summary = ImportKernelTraces(TraceFiles(setup.trace_dir), events);
  summary.trace_dir = setup.trace_dir;
  summary.kept = !setup.remove_after_import;
  if (summary.files.empty())
    summary.note = "no process of the command initialized CUDA, so the tracer never started (the CUDA driver "
                   "loads it when a process first uses CUDA)";
  if (setup.remove_after_import) {
    std::error_code ec;
    fs::remove_all(setup.trace_dir, ec);
  }
  return summary;
}

void AppendTimeline(const Profile& events, Profile* into) {
  MergeTimeline(events, 0, into);
  SortByStart(into);
  for (const auto& [key, value] : events.metadata.attributes) into->metadata.attributes[key] = value;
}

}  // namespace kraken::profiling
