// `kraken colocate A B [C...]` (files or stored ids): predicted slowdown / p99 latency of each workload when
// they share one GPU (time-slicing, MPS with an SM split, MIG), pair scores and a
// suggested split; `kraken colocate --optimize FILES... --gpus N`: which workloads share
// which GPU under memory, QoS and interference limits. Model: docs/colocation.md.
#include <cstdio>

#include "app/colocate_request.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct ColocateArgs {
  std::vector<std::string> files;
  ColocateSettings settings;
  std::string db;
  bool json = false;
  std::string output = "-";
};

int RunColocate(const ColocateArgs& args) {
  auto setup = MakeColocateSetup(args.settings);
  if (!setup.ok()) return ReportError(setup.status());
  LoadedProfiles loaded;
  if (Status status = LoadProfileInputs(args.files, CliInputOptions("", args.db), &loaded); !status.ok())
    return ReportError(status);
  auto demands = DemandsOfProfiles(loaded, setup->device);
  if (!demands.ok()) return ReportError(demands.status());
  auto text = RenderColocate(*demands, args.settings, *setup, args.json);
  return WriteCommandOutput(args.output, text);
}

}  // namespace

void AddColocateCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ColocateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "colocate", "Predict interference of workloads sharing a GPU (time-slicing, MPS, MIG); --optimize places them");
  cmd->add_option("files", args->files,
                  "Traces, sampler captures or kernel lists, or ids of stored profiles (12 or db:12); each gives one "
                  "workload (a capture: one per GPU/phase)")
      ->required();
  AddDbOption(cmd, &args->db);
  ColocateSettings& settings = args->settings;
  cmd->add_option("--mode", settings.mode, "Sharing mode to predict: timeslice, mps, mig or all")
      ->capture_default_str();
  cmd->add_option("--sm-split", settings.sm_split,
                  "MPS SM percentages per workload in input order, e.g. 60,40 (default: kraken suggests one)");
  cmd->add_option("--model", settings.model,
                  "measured (demand vectors, default) or class-table (the old compute/memory/mixed pair table)")
      ->capture_default_str();
  cmd->add_option("--qos", settings.qos,
                  "NAME=X: highest acceptable slowdown of a workload (p99 latency increase for inference); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--rate", settings.rates,
                  "NAME=RPS: request rate of an inference workload, for queueing in its p99 latency; repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--device", settings.device,
                  "GPU they would share (id or name, see `kraken devices`); default: the one the inputs ran on");
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/colocation.md)");
  cmd->add_flag("--explain", settings.explain,
                "Show every input with its source, the formula parts and the assumptions");
  cmd->add_option("--timeslice-ms", settings.timeslice_ms, "Time-slice length assumed for time-slicing")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  cmd->add_flag("--optimize", settings.optimize,
                "Place the workloads on --gpus GPUs (fewest GPUs, then least interference)");
  cmd->add_option("--gpus", settings.gpus, "GPUs available for --optimize");
  cmd->add_option("--gpu-memory", settings.gpu_memory,
                  "Memory per GPU for --optimize, e.g. 80GiB (default: the device's)");
  cmd->add_option("--max-slowdown", settings.max_slowdown,
                  "--optimize: no workload's slowdown (p99 increase for inference) above this");
  cmd->add_option("--max-per-gpu", settings.max_per_gpu, "--optimize: most workloads on one GPU")
      ->capture_default_str();
  commands.push_back({cmd, [args] { return RunColocate(*args); }});
}

}  // namespace kraken::cli
