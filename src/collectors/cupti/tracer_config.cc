#include "collectors/cupti/tracer_config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <string_view>

namespace kraken::cupti {
namespace {

// The longest capture delay or duration: a week (a longer one is surely a unit mistake).
constexpr int64_t kMaxWindowMs = int64_t{7} * 24 * 3600 * 1000;

// A 0/1 setting; a bad value keeps `*value` and adds a problem.
void ReadSwitch(const std::function<const char*(const char*)>& getenv, const char* name, bool* value,
                std::vector<std::string>* problems) {
  const char* text = getenv(name);
  if (text == nullptr || *text == '\0') return;
  const std::string_view mode(text);
  if (mode == "0" || mode == "1") {
    *value = mode == "1";
  } else {
    problems->push_back(std::string(name) + "=" + text + " is not 0 or 1; using " + (*value ? "1" : "0"));
  }
}

// A positive integer setting in [min, max]; a bad value keeps `*value` and adds a problem.
void ReadInt(const std::function<const char*(const char*)>& getenv, const char* name, int64_t min, int64_t max,
             int64_t scale, int64_t* value, std::vector<std::string>* problems) {
  const char* text = getenv(name);
  if (text == nullptr || *text == '\0') return;
  std::string_view s(text);
  int64_t parsed = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), parsed);
  if (ec != std::errc() || end != s.data() + s.size() || parsed < min || parsed > max) {
    problems->push_back(std::string(name) + "=" + text + " is not a whole number from " + std::to_string(min) +
                        " to " + std::to_string(max) + "; using " + std::to_string(*value / scale));
    return;
  }
  *value = parsed * scale;
}

struct ActivityName {
  const char* name;
  uint32_t bits;
};
constexpr ActivityName kActivityNames[] = {{"kernels", 0},
                                           {"memcpy", kActivityMemcpy},
                                           {"memset", kActivityMemset},
                                           {"sync", kActivitySync},
                                           {"nvtx", kActivityNvtx},
                                           {"marker", kActivityNvtx},
                                           {"api", kActivityApi},
                                           {"memory", kActivityMemory},
                                           {"all", kAllActivities}};

// KRAKEN_CUPTI_ACTIVITIES: a comma list of kActivityNames; a bad word keeps the default.
void ReadActivities(const char* text, uint32_t* activities, std::vector<std::string>* problems) {
  uint32_t bits = 0;
  std::string_view rest(text);
  while (true) {
    size_t comma = rest.find(',');
    std::string_view word = rest.substr(0, comma);
    bool known = false;
    for (const ActivityName& entry : kActivityNames)
      if (word == entry.name) {
        bits |= entry.bits;
        known = true;
      }
    if (!known) {
      problems->push_back(std::string("KRAKEN_CUPTI_ACTIVITIES=") + text + ": '" + std::string(word) +
                          "' is not one of kernels, memcpy, memset, sync, nvtx, marker, api, memory, all; using " +
                          ActivitiesText(*activities));
      return;
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  *activities = bits;
}

}  // namespace

std::string ActivitiesText(uint32_t activities) {
  std::string text = "kernels";
  for (const ActivityName& entry : kActivityNames)
    if (entry.bits != 0 && (activities & entry.bits) != 0 && std::string_view(entry.name) != "marker" &&
        entry.bits != kAllActivities)  // one kind per word
      text += std::string(",") + entry.name;
  return text;
}

TracerConfig ReadTracerConfig(const std::function<const char*(const char*)>& getenv) {
  TracerConfig config;
  if (const char* output = getenv("KRAKEN_CUPTI_OUTPUT"); output != nullptr && *output != '\0') config.output = output;
  if (const char* api = getenv("KRAKEN_CUPTI_API"); api != nullptr && *api != '\0') {
    std::string_view mode(api);
    if (mode == "launches") {
      config.api = ApiRecording::kLaunches;
    } else if (mode == "all") {
      config.api = ApiRecording::kAll;
    } else if (mode == "none") {
      config.api = ApiRecording::kNone;
    } else {
      config.problems.push_back(std::string("KRAKEN_CUPTI_API=") + api +
                                " is not one of launches, all, none; using launches");
    }
  }
  if (const char* nvtx = getenv("KRAKEN_CUPTI_NVTX"); nvtx != nullptr) config.nvtx = std::string_view(nvtx) != "0";
  if (const char* quiet = getenv("KRAKEN_CUPTI_QUIET"); quiet != nullptr) config.quiet = std::string_view(quiet) == "1";
  if (const char* activities = getenv("KRAKEN_CUPTI_ACTIVITIES"); activities != nullptr && *activities != '\0')
    ReadActivities(activities, &config.activities, &config.problems);
  // The older switches and the list agree: either one turning a kind off turns it off.
  if (config.api == ApiRecording::kNone || (config.activities & kActivityApi) == 0) {
    config.api = ApiRecording::kNone;
    config.activities &= ~uint32_t{kActivityApi};
  }
  if (!config.nvtx || (config.activities & kActivityNvtx) == 0) {
    config.nvtx = false;
    config.activities &= ~uint32_t{kActivityNvtx};
  }
  if (const char* counters = getenv("KRAKEN_CUPTI_COUNTERS"); counters != nullptr && *counters != '\0') {
    std::string_view value(counters);
    if (value == "1" || value == "0") {
      config.counters = value == "1";
    } else {
      config.problems.push_back(std::string("KRAKEN_CUPTI_COUNTERS=") + counters +
                                " is not 0 or 1; per-kernel counters stay off");
    }
  }
  ReadInt(getenv, "KRAKEN_CUPTI_COUNTERS_MAX_KERNELS", 1, 1'000'000, 1, &config.counters_max_kernels,
          &config.problems);
  ReadInt(getenv, "KRAKEN_CUPTI_COUNTERS_BATCH", 1, 128, 1, &config.counters_batch, &config.problems);
  ReadInt(getenv, "KRAKEN_CUPTI_BUFFER_MB", 16, 65536, int64_t{1} << 20, &config.buffer_limit_bytes, &config.problems);
  ReadInt(getenv, "KRAKEN_CUPTI_FLUSH_MS", 10, 3'600'000, 1, &config.flush_interval_ms, &config.problems);
  ReadInt(getenv, "KRAKEN_CUPTI_SIGNAL_WAIT_MS", 0, 60'000, 1, &config.signal_wait_ms, &config.problems);
  if (const char* range = getenv("KRAKEN_CUPTI_START_ON_NVTX"); range != nullptr && *range != '\0') {
    if (config.nvtx) {
      config.start_on_nvtx = range;
    } else {
      config.problems.push_back(std::string("KRAKEN_CUPTI_START_ON_NVTX=") + range +
                                " needs the NVTX ranges, which KRAKEN_CUPTI_NVTX=0 or KRAKEN_CUPTI_ACTIVITIES turned off; "
                                "recording without it");
    }
  }
  ReadInt(getenv, "KRAKEN_CUPTI_DELAY_MS", 0, kMaxWindowMs, 1, &config.delay_ms, &config.problems);
  ReadInt(getenv, "KRAKEN_CUPTI_DURATION_MS", 0, kMaxWindowMs, 1, &config.duration_ms, &config.problems);
  ReadSwitch(getenv, "KRAKEN_CUPTI_HW_TRACE", &config.hw_trace, &config.problems);
  ReadSwitch(getenv, "KRAKEN_CUPTI_DETACH", &config.detach, &config.problems);
  if (config.counters && (config.delay_ms > 0 || config.duration_ms > 0 || !config.start_on_nvtx.empty())) {
    // The range profiler starts at a context's first launch: a window would not bound it.
    config.counters = false;
    config.problems.push_back(
        "KRAKEN_CUPTI_COUNTERS=1 is not combined with a capture window (KRAKEN_CUPTI_DELAY_MS, "
        "KRAKEN_CUPTI_DURATION_MS, KRAKEN_CUPTI_START_ON_NVTX); per-kernel counters stay off");
  }
  // Under kernel replay CUPTI kept asking for buffers faster than the writer's flushes gave
  // them back: on an H200 (run 10b, ~4 kernels/s of 10 passes each) 288 requests in 55 s
  // found all 32 buffers of 8 MiB in flight and their records were dropped. Its records are
  // few then (the kernels are serialized), so smaller buffers let 8x more be in flight.
  if (config.counters) config.buffer_bytes = int64_t{1} << 20;
  return config;
}

std::string ResolveOutputPath(const std::string& pattern, int64_t pid, const std::string& host,
                              const std::function<bool(const std::string&)>& is_directory) {
  std::string path;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && (pattern[i + 1] == 'p' || pattern[i + 1] == 'h')) {
      path += pattern[i + 1] == 'p' ? std::to_string(pid) : host;
      ++i;
    } else {
      path.push_back(pattern[i]);
    }
  }
  if (!path.empty() && (path.back() == '/' || is_directory(path))) {
    if (path.back() != '/') path.push_back('/');
    path += "kraken_cupti_" + std::to_string(pid) + ".json";
  }
  return path;
}

std::string HostName() {
  char name[256] = {};
  return gethostname(name, sizeof(name) - 1) == 0 ? name : "";
}

std::string ProcessTracePath(const TracerConfig& config, int64_t pid) {
  auto is_directory = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  };
  return ResolveOutputPath(config.output, pid, HostName(), is_directory);
}

}  // namespace kraken::cupti
