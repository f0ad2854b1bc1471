// kraken: GPU workload profiler and pooling advisor. This file parses the command line
// and hands each subcommand to its Run* function (see commands.h).
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace kraken::cli;
  CLI::App app{"kraken: measures what GPU workloads really use and advises on pooling them"};
  app.set_version_flag("--version", std::string("kraken ") + KRAKEN_VERSION_STRING);
  app.require_subcommand(1);
  app.fallthrough(false);

  ImportArgs import_args;
  auto* import_cmd = app.add_subcommand("import", "Read profiler output and report what it holds");
  import_cmd->add_option("files", import_args.files, "Trace, export or log files (gzip and tar are fine)")
      ->required()
      ->check(CLI::ExistingFile);
  import_cmd->add_option("--format", import_args.format, "Force an importer (see `kraken formats`)");
  import_cmd->add_flag("--json", import_args.json, "Print one JSON document");

  AnalyzeArgs analyze_args;
  auto* analyze_cmd = app.add_subcommand(
      "analyze", "Characterize workloads: GPU timeline, kernel bounds, training vs inference, diagnoses");
  analyze_cmd->add_option("files", analyze_args.files, "Traces, exports or logs (one profile per rank or node)")
      ->required()
      ->check(CLI::ExistingFile);
  analyze_cmd->add_flag("--json", analyze_args.json, "Print one JSON document (keys: docs/json-output.md)");
  analyze_cmd->add_option("--device", analyze_args.device,
                          "Device whose peaks the roofline uses (id or name, see `kraken devices`); default: "
                          "recognised from the input");
  analyze_cmd->add_option("--window", analyze_args.window, "Headline timeline window: trace or steps")
      ->capture_default_str();
  analyze_cmd->add_option("--thresholds", analyze_args.thresholds,
                          "Fixed arithmetic-intensity classes LOW,HIGH (e.g. 10,50): AI<LOW memory, >HIGH "
                          "compute, else mixed");
  analyze_cmd->add_option("--top", analyze_args.top, "Kernels to list")->capture_default_str();
  analyze_cmd->add_flag("--linked-only", analyze_args.linked_only,
                        "Count only GPU events linked to a launch call (TraceLens' default)");
  analyze_cmd->add_option("--format", analyze_args.format, "Force an importer (see `kraken formats`)");
  analyze_cmd->add_option("-o,--output", analyze_args.output, "Write to FILE instead of standard output");

  FormatsArgs formats_args;
  auto* formats_cmd = app.add_subcommand("formats", "List the input formats kraken reads");
  formats_cmd->add_flag("--json", formats_args.json, "Print one JSON document");

  DevicesArgs devices_args;
  auto* devices_cmd = app.add_subcommand("devices", "List the built-in device catalog and its peaks");
  devices_cmd->add_flag("--json", devices_args.json, "Print one JSON document");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    std::fprintf(stderr, "kraken: error: %s (see --help)\n", message.c_str());
    return kExitBadInput;
  }

  if (analyze_cmd->parsed()) return RunAnalyze(analyze_args);
  if (import_cmd->parsed()) return RunImport(import_args);
  if (formats_cmd->parsed()) return RunFormats(formats_args);
  if (devices_cmd->parsed()) return RunDevices(devices_args);
  return kExitBadInput;
}
