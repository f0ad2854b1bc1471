// kraken: GPU workload profiler and pooling advisor. This file builds the command line
// from the one list of subcommands and runs the one that was given.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "base/atomic_file.h"
#include "base/number_input.h"

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

// The command as given, down to its deepest subcommand ("cost recommend"), and every option
// name of it and of the commands above it: a nested command's options are its own.
std::pair<std::string, std::vector<std::string>> GivenCommand(const CLI::App& command) {
  std::string name = command.get_name();
  std::vector<std::string> options = OptionNames(command);
  const CLI::App* current = &command;
  while (current != nullptr) {
    const CLI::App* parsed_sub = nullptr;
    for (const CLI::App* sub : current->get_subcommands())
      if (sub->parsed()) parsed_sub = sub;
    if (parsed_sub != nullptr) {
      name += " " + parsed_sub->get_name();
      std::vector<std::string> more = OptionNames(*parsed_sub);
      options.insert(options.end(), more.begin(), more.end());
    }
    current = parsed_sub;
  }
  return {name, options};
}

// CLI11's "The following arguments were not expected" made kraken's: the unknown option
// named, with the closest real one; "" when every option given is the command's.
std::string UnknownOptionMessage(const CommandList& commands, const std::vector<std::string>& args) {
  for (const kraken::cli::Command& command : commands) {
    if (!command.app->parsed() || args.size() < 2) continue;
    std::vector<std::string> rest(args.begin() + 2, args.end());
    auto [name, options] = GivenCommand(*command.app);
    return kraken::cli::UnknownOptionError(name, rest, options);
  }
  return "";
}

// The unknown option among `args` when there is one, else CLI11's own message for `error`.
int ReportUnknownOptionOr(const CommandList& commands, const std::vector<std::string>& args,
                          const CLI::ParseError& error) {
  std::string message = UnknownOptionMessage(commands, args);
  if (!message.empty()) return kraken::cli::ReportError(kraken::InvalidInput(message));
  std::fprintf(stderr, "kraken: error: %s (see --help)\n", error.what());
  return kraken::cli::kExitBadInput;
}

// Every floating-point flag of every command: CLI11 reads "nan", "inf" and 1e999 as
// doubles, which then pass a "not negative" check (a plan of -2147483648 GPUs). One rule for
// all of them, so that a flag added later is covered too.
void RequireFiniteNumbers(CLI::App& app) {
  static const CLI::Validator kFinite(
      [](std::string& text) -> std::string {
        if (kraken::IsNonFiniteNumber(text)) return "must be a finite number, got '" + text + "'";
        return "";
      },
      "");
  for (CLI::Option* option : app.get_options())
    if (option->get_type_name() == "FLOAT") option->check(kFinite);
  for (CLI::App* sub : app.get_subcommands({})) RequireFiniteNumbers(*sub);
}

// Output that never reached standard output (a full disk, a closed pipe, /dev/full) is a
// failed run: a command that returned 0 gets kraken's one-line error and exit 2.
int CheckStandardOutput(int exit_code) {
  bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  int error = errno;
  if (std::fclose(stdout) != 0 && !failed) {
    failed = true;
    error = errno;
  }
  // A failed command has said its one line already (often this very write error).
  if (!failed || exit_code != 0) return exit_code;
  std::fprintf(stderr, "kraken: error: standard output: write failed: %s\n", std::strerror(error));
  return kraken::cli::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kraken::cli;
  CLI::App app{"kraken: measures what GPU workloads really use and advises on pooling them"};
  app.set_version_flag("--version", std::string("kraken ") + KRAKEN_VERSION_STRING);
  app.require_subcommand(1);
  app.fallthrough(false);
  kraken::InstallTempFileCleanupOnSignals();

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
  AddUploadCommand(app, commands);
  AddCostCommand(app, commands);
  AddPlanCommand(app, commands);
  AddMigCommand(app, commands);
  AddDiffCommand(app, commands);
  RequireFiniteNumbers(app);

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
    return ReportUnknownOptionOr(commands, *args, e);
  } catch (const CLI::RequiredError& e) {
    // CLI11 checks required options before extras: `--output F` for `--out F` is the
    // unknown option, not a missing --out.
    return ReportUnknownOptionOr(commands, *args, e);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    std::fprintf(stderr, "kraken: error: %s (see --help)\n", message.c_str());
    return kExitBadInput;
  }
  for (const Command& command : commands)
    if (command.app->parsed()) return CheckStandardOutput(command.run());
  return kExitBadInput;
}
