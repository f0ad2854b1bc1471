// `kraken colocate A B [C...]`: predicted slowdown / p99 latency of each workload when
// they share one GPU (time-slicing, MPS with an SM split, MIG), pair scores and a
// suggested split; `kraken colocate --optimize FILES... --gpus N`: which workloads share
// which GPU under memory, QoS and interference limits. Model: docs/colocation.md.
#include <cstdio>

#include "analysis/colocate/colocate.h"
#include "analysis/colocate/placement.h"
#include "cli/cli_common.h"
#include "cli/colocate_inputs.h"
#include "cli/commands.h"
#include "model/device_catalog.h"
#include "report/colocation_output.h"

namespace kraken::cli {
namespace {

struct ColocateArgs {
  std::vector<std::string> files;
  std::string mode = "all";
  std::string sm_split;
  std::string model = "measured";
  std::vector<std::string> qos;
  std::vector<std::string> rates;
  std::string device;
  bool json = false;
  bool explain = false;
  double timeslice_ms = 2.0;
  std::string output = "-";
  bool optimize = false;
  int gpus = 0;
  std::string gpu_memory;
  double max_slowdown = 0;
  size_t max_per_gpu = 4;
};

Result<std::vector<SharingMode>> ParseModes(const std::string& mode) {
  if (mode == "all") return std::vector<SharingMode>{SharingMode::kTimeSlice, SharingMode::kMps, SharingMode::kMig};
  if (mode == "timeslice") return std::vector<SharingMode>{SharingMode::kTimeSlice};
  if (mode == "mps") return std::vector<SharingMode>{SharingMode::kMps};
  if (mode == "mig") return std::vector<SharingMode>{SharingMode::kMig};
  return InvalidInput("--mode must be timeslice, mps, mig or all, got '" + mode + "'");
}

int RunColocate(const ColocateArgs& args) {
  const DeviceSpec* device = nullptr;
  if (!args.device.empty()) {
    device = FindDeviceSpec(args.device);
    if (device == nullptr)
      return ReportError(InvalidInput("unknown device '" + args.device + "' (see `kraken devices` for the catalog)"));
  }
  auto modes = ParseModes(args.mode);
  if (!modes.ok()) return ReportError(modes.status());
  if (args.model != "measured" && args.model != "class-table")
    return ReportError(InvalidInput("--model must be measured or class-table, got '" + args.model + "'"));
  if (args.timeslice_ms <= 0) return ReportError(InvalidInput("--timeslice-ms must be positive"));
  if (args.optimize && args.gpus <= 0) return ReportError(InvalidInput("--optimize needs --gpus N (N >= 1)"));
  if (args.optimize && args.model == "class-table")
    return ReportError(InvalidInput("--optimize uses the measured model (predicted slowdowns), not class-table"));

  auto loaded = LoadDemands(args.files, device);
  if (!loaded.ok()) return ReportError(loaded.status());
  const std::vector<WorkloadDemand>& demands = loaded->demands;
  if (args.optimize && demands.empty()) return ReportError(InvalidInput("--optimize: the inputs give no workload"));
  if (!args.optimize && demands.size() < 2) {
    std::string skipped;
    for (const std::string& note : loaded->notes)
      if (note.find("(skipped)") != std::string::npos) skipped += "; " + note;
    return ReportError(InvalidInput("colocate needs at least two workloads, the inputs give " +
                                    std::to_string(demands.size()) + skipped));
  }
  std::vector<double> qos, rates;
  Status status = ApplyNamedValues(args.qos, "--qos", demands, &qos);
  if (status.ok()) status = ApplyNamedValues(args.rates, "--rate", demands, &rates);
  if (!status.ok()) return ReportError(status);

  ColocateOptions options;
  options.params.timeslice_s = args.timeslice_ms / 1e3;
  options.modes = *modes;
  options.model = args.model;
  options.device = device;
  if (!args.sm_split.empty()) {
    auto split = ParseSmSplit(args.sm_split, demands.size());
    if (!split.ok()) return ReportError(split.status());
    options.sm_split = *split;
  }
  std::vector<ColocationWorkload> workloads;
  for (size_t i = 0; i < demands.size(); ++i) {
    WorkloadSetup setup;
    setup.max_slowdown = qos[i];
    setup.request_rate_per_s = rates[i];
    workloads.push_back(BuildColocationWorkload(demands[i], setup, options.params));
  }

  ColocationOutputOptions output;
  output.explain = args.explain;
  output.notes = loaded->notes;
  std::vector<std::string> device_notes;
  const DeviceSpec* target = ResolveColocationDevice(workloads, device, &device_notes);
  if (target != nullptr) output.device = target->id + " (" + target->name + ")";

  std::string text;
  if (args.optimize) {
    PlacementOptions placement;
    placement.colocate = options;
    placement.gpus = args.gpus;
    placement.max_slowdown = args.max_slowdown;
    placement.max_per_gpu = std::max<size_t>(1, args.max_per_gpu);
    if (!args.gpu_memory.empty()) {
      auto bytes = ParseByteSize(args.gpu_memory);
      if (!bytes.ok()) return ReportError(bytes.status());
      placement.gpu_memory_bytes = *bytes;
    }
    PlacementResult result = OptimizePlacement(workloads, placement);
    ColocationReport inputs;
    inputs.model = "measured";
    inputs.workloads = workloads;
    inputs.parameters = DescribeParameters(options.params, target);
    inputs.assumptions = ColocationAssumptions();
    text = args.json ? RenderPlacementJson(result, inputs, output) : RenderPlacementText(result, inputs, output);
  } else {
    ColocationReport report = PredictColocation(workloads, options);
    text = args.json ? RenderColocationJson(report, output) : RenderColocationText(report, output);
  }
  status = WriteOutput(args.output, text);
  if (!status.ok()) return ReportError(status);
  if (args.output != "-" && !args.output.empty()) std::fprintf(stderr, "kraken: wrote %s\n", args.output.c_str());
  return kExitOk;
}

}  // namespace

void AddColocateCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ColocateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "colocate", "Predict interference of workloads sharing a GPU (time-slicing, MPS, MIG); --optimize places them");
  cmd->add_option("files", args->files,
                  "Traces, sampler captures or kernel lists; each gives one workload (a capture: one per GPU/phase)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--mode", args->mode, "Sharing mode to predict: timeslice, mps, mig or all")->capture_default_str();
  cmd->add_option("--sm-split", args->sm_split,
                  "MPS SM percentages per workload in input order, e.g. 60,40 (default: kraken suggests one)");
  cmd->add_option("--model", args->model,
                  "measured (demand vectors, default) or class-table (the old compute/memory/mixed pair table)")
      ->capture_default_str();
  cmd->add_option("--qos", args->qos,
                  "NAME=X: highest acceptable slowdown of a workload (p99 latency increase for inference); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--rate", args->rates,
                  "NAME=RPS: request rate of an inference workload, for queueing in its p99 latency; repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--device", args->device,
                  "GPU they would share (id or name, see `kraken devices`); default: the one the inputs ran on");
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/colocation.md)");
  cmd->add_flag("--explain", args->explain, "Show every input with its source, the formula parts and the assumptions");
  cmd->add_option("--timeslice-ms", args->timeslice_ms, "Time-slice length assumed for time-slicing")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  cmd->add_flag("--optimize", args->optimize, "Place the workloads on --gpus GPUs (fewest GPUs, then least interference)");
  cmd->add_option("--gpus", args->gpus, "GPUs available for --optimize");
  cmd->add_option("--gpu-memory", args->gpu_memory, "Memory per GPU for --optimize, e.g. 80GiB (default: the device's)");
  cmd->add_option("--max-slowdown", args->max_slowdown,
                  "--optimize: no workload's slowdown (p99 increase for inference) above this");
  cmd->add_option("--max-per-gpu", args->max_per_gpu, "--optimize: most workloads on one GPU")->capture_default_str();
  commands.push_back({cmd, [args] { return RunColocate(*args); }});
}

}  // namespace kraken::cli
