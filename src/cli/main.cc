// kraken: GPU workload profiler and pooling advisor. This file parses the command line
// and hands each subcommand to its Run* function (see commands.h).
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"

#ifndef KRAKEN_VERSION
#define KRAKEN_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  using namespace kraken::cli;
  CLI::App app{"kraken: measures what GPU workloads really use and advises on pooling them"};
  app.set_version_flag("--version", std::string("kraken ") + KRAKEN_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  ImportArgs import_args;
  auto* import_cmd = app.add_subcommand("import", "Read profiler output and report what it holds");
  import_cmd->add_option("files", import_args.files, "Trace, export or log files (gzip and tar are fine)")
      ->required()
      ->check(CLI::ExistingFile);
  import_cmd->add_option("--format", import_args.format, "Force an importer (see `kraken formats`)");
  import_cmd->add_flag("--json", import_args.json, "Print one JSON document");

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

  if (import_cmd->parsed()) return RunImport(import_args);
  if (formats_cmd->parsed()) return RunFormats(formats_args);
  if (devices_cmd->parsed()) return RunDevices(devices_args);
  return kExitBadInput;
}
