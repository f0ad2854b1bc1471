// kraken: GPU workload profiler and pooling advisor. This file builds the command line
// from the one list of subcommands and runs the one that was given.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>

#include "cli/cli_common.h"
#include "cli/command_line.h"
#include "cli/commands.h"

namespace {

using kraken::cli::CommandList;

// Every name CLI11 accepts for `app`'s options ("--interval", "-o", ...).
std::vector<std::string> OptionNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

// CLI11's "The following arguments were not expected" made kraken's: the unknown option
// named, with the closest real one.
std::string ExtrasMessage(const CommandList& commands, const std::vector<std::string>& args) {
  for (const kraken::cli::Command& command : commands) {
    if (!command.app->parsed() || args.size() < 2) continue;
    std::vector<std::string> rest(args.begin() + 2, args.end());
    return kraken::cli::UnknownOptionError(command.app->get_name(), rest, OptionNames(*command.app));
  }
  return "";
}

}  // namespace

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

  // The KRAKEN design's DaemonSet: KRAKEN_MODE=daemon and no arguments is the agent.
  const char* mode = std::getenv("KRAKEN_MODE");
  auto args = ApplyKrakenMode(std::vector<std::string>(argv, argv + argc), mode != nullptr ? mode : "");
  if (!args.ok()) return ReportError(args.status());
  std::vector<std::string> names;
  for (const Command& command : commands) names.push_back(command.app->get_name());
  if (args->size() > 1) {
    std::string unknown = UnknownCommandError((*args)[1], names);
    if (!unknown.empty()) return ReportError(kraken::InvalidInput(unknown));
  }
  std::vector<char*> arg_pointers;
  for (std::string& arg : *args) arg_pointers.push_back(arg.data());

  try {
    app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    std::string message = ExtrasMessage(commands, *args);
    if (!message.empty()) return ReportError(kraken::InvalidInput(message));
    std::fprintf(stderr, "kraken: error: %s (see --help)\n", e.what());
    return kExitBadInput;
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    std::fprintf(stderr, "kraken: error: %s (see --help)\n", message.c_str());
    return kExitBadInput;
  }
  for (const Command& command : commands)
    if (command.app->parsed()) return command.run();
  return kExitBadInput;
}
