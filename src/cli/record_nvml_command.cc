// `kraken record-nvml`: records an NVML capture (docs/nvml-capture-format.md) from the
// driver, or through the replay library; or derives one from an nvidia-smi capture.
#include <signal.h>

#include <cctype>
#include <csignal>
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/nvml_recorder.h"
#include "collectors/nvml/smi_capture_converter.h"

namespace kraken::cli {
namespace {

struct RecordArgs {
  std::string out;
  std::string duration = "10s";
  std::string interval = "100ms";
  std::string slow_interval = "1s";  // nvml::RecordOptions::slow_interval_us
  int64_t frames = 0;
  std::string library;
  std::string from_nvidia_smi;
  int copies = 1;
};

// Set by SIGINT/SIGTERM while recording: the recording ends after the current frame and
// what was recorded is written (a script can record "during the runs" and stop it then).
volatile std::sig_atomic_t g_stop_signal = 0;

void OnStopSignal(int signal_number) { g_stop_signal = signal_number; }

void InstallStopHandlers() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

// "10s", "100ms", "250us", "2m", "0" -> µs; nullopt when malformed or negative.
std::optional<int64_t> ParseDurationUs(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) ++digits;
  if (digits == 0) return std::nullopt;
  char* end = nullptr;
  std::string number(text.substr(0, digits));
  double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size()) return std::nullopt;
  std::string_view unit = text.substr(digits);
  double scale = 0;
  if (unit == "us") scale = 1;
  if (unit == "ms") scale = 1e3;
  if (unit == "s" || unit.empty()) scale = 1e6;
  if (unit == "m") scale = 60e6;
  if (scale == 0 || value < 0 || value * scale > 1e13) return std::nullopt;
  return static_cast<int64_t>(value * scale + 0.5);
}

int RunRecord(const RecordArgs& args) {
  Result<nvml::Capture> capture = InvalidInput("nothing recorded");
  nvml::RecordStats stats;
  if (!args.from_nvidia_smi.empty()) {
    nvml::SmiConversionOptions options;
    options.copies = args.copies;
    capture = nvml::CaptureFromNvidiaSmi(args.from_nvidia_smi, options);
  } else {
    auto duration = ParseDurationUs(args.duration);
    auto interval = ParseDurationUs(args.interval);
    auto slow_interval = ParseDurationUs(args.slow_interval);
    if (!duration || *duration == 0)
      return ReportError(InvalidInput("--duration: '" + args.duration + "' is not a duration such as 10s"));
    if (!interval || *interval == 0)
      return ReportError(InvalidInput("--interval: '" + args.interval + "' is not a duration such as 100ms"));
    if (!slow_interval)
      return ReportError(InvalidInput("--slow-interval: '" + args.slow_interval + "' is not a duration such as 1s"));
    auto library = nvml::NvmlLibrary::Load(args.library);
    if (!library.ok()) return ReportError(library.status());
    nvml::RecordOptions options;
    options.duration_us = *duration;
    options.interval_us = *interval;
    options.frames = args.frames;
    options.slow_interval_us = *slow_interval;
    options.info["library"] = (*library)->path();
    options.info["recorded_by"] = std::string("kraken ") + KRAKEN_VERSION_STRING;
    options.stop_requested = [] { return g_stop_signal != 0; };
    InstallStopHandlers();
    capture = nvml::RecordCapture(**library, options, &stats);
  }
  if (!capture.ok()) return ReportError(capture.status());
  Status status = WriteOutput(args.out, nvml::WriteCapture(*capture));
  if (!status.ok()) return ReportError(status);
  if (args.out != "-")
    std::fprintf(stderr, "kraken: wrote %zu frames of %zu GPUs to %s%s\n", capture->frames.size(),
                 capture->devices.size(), args.out.c_str(),
                 g_stop_signal == 0 ? "" : (g_stop_signal == SIGINT ? " (stopped by SIGINT)" : " (stopped by SIGTERM)"));
  if (stats.frames > 0)  // the recorder's own NVML overhead, per frame
    std::fprintf(stderr, "kraken: frame reads took %.3f ms median, %.3f ms max; %lld of %lld frames made the slow reads"
                 " (%.3f ms median without them)\n",
                 stats.median_read_us / 1e3, stats.max_read_us / 1e3, static_cast<long long>(stats.slow_frames),
                 static_cast<long long>(stats.frames), stats.median_fast_read_us / 1e3);
  return kExitOk;
}

}  // namespace

void AddRecordNvmlCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<RecordArgs>();
  CLI::App* cmd = app.add_subcommand(
      "record-nvml", "Record an NVML capture on this node (for tests and replay), or derive one from nvidia-smi output");
  cmd->add_option("--out", args->out, "Capture file to write ('-' = standard output)")->required();
  cmd->add_option("--duration", args->duration, "How long to record, e.g. 10s, 500ms")->capture_default_str();
  cmd->add_option("--interval", args->interval, "Time between frames, e.g. 100ms")->capture_default_str();
  cmd->add_option("--slow-interval", args->slow_interval,
                  "Time between the slow NVML reads (energy, PCIe throughput, process utilization: ~46 ms "
                  "per H100); frames in between hold the last energy and PCIe answers and record that they "
                  "did not read process utilization. 0: every frame")
      ->capture_default_str();
  cmd->add_option("--frames", args->frames, "Record exactly this many frames (overrides --duration)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  cmd->add_option("--nvml-library", args->library,
                  "NVML library to load (default: $KRAKEN_NVML_LIBRARY, else libnvidia-ml.so.1)");
  cmd->add_option("--from-nvidia-smi", args->from_nvidia_smi,
                  "Derive the capture from an nvidia-smi capture file instead of recording (no GPU needed)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--copies", args->copies,
                  "With --from-nvidia-smi: repeat the GPUs this many times (distinct indices, UUIDs, bus ids)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  commands.push_back({cmd, [args] { return RunRecord(*args); }});
}

}  // namespace kraken::cli
