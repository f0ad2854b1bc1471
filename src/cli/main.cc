// kraken: GPU workload profiler and pooling advisor. This file builds the command line
// from the one list of subcommands and runs the one that was given.
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

  CommandList commands;
  AddAnalyzeCommand(app, commands);
  AddColocateCommand(app, commands);
  AddImportCommand(app, commands);
  AddFormatsCommand(app, commands);
  AddDevicesCommand(app, commands);
  AddDisaggCommand(app, commands);
  AddMigPlanCommand(app, commands);
  AddTemporalCommand(app, commands);
  AddGpusCommand(app, commands);
  AddRecordNvmlCommand(app, commands);
  AddPackCommand(app, commands);
  AddListCommand(app, commands);
  AddShowCommand(app, commands);
  AddExportCommand(app, commands);
  AddReportCommand(app, commands);
  AddProfileCommand(app, commands);
  AddConfigCommand(app, commands);
  AddAgentCommand(app, commands);
  AddServeCommand(app, commands);
  AddDashboardCommand(app, commands);
  AddExtenderCommand(app, commands);
  AddAnnotateCommand(app, commands);
  AddTrialCommand(app, commands);

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
  for (const Command& command : commands)
    if (command.app->parsed()) return command.run();
  return kExitBadInput;
}
