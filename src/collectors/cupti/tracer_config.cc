#include "collectors/cupti/tracer_config.h"

#include <charconv>
#include <string_view>

namespace kraken::cupti {
namespace {

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

}  // namespace

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
  ReadInt(getenv, "KRAKEN_CUPTI_BUFFER_MB", 16, 65536, int64_t{1} << 20, &config.buffer_limit_bytes, &config.problems);
  ReadInt(getenv, "KRAKEN_CUPTI_FLUSH_MS", 10, 3'600'000, 1, &config.flush_interval_ms, &config.problems);
  ReadInt(getenv, "KRAKEN_CUPTI_SIGNAL_WAIT_MS", 0, 60'000, 1, &config.signal_wait_ms, &config.problems);
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

}  // namespace kraken::cupti
