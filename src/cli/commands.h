// The kraken subcommands. Each lives in its own file, declares its flags next to the
// code that uses them, and is added to the command line by the one list in main.cc.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace kraken::cli {

struct Command {
  CLI::App* app = nullptr;    // the subcommand, owned by the parent CLI::App
  std::function<int()> run;   // runs it with the parsed flags; returns the exit code
};
using CommandList = std::vector<Command>;

void AddAnalyzeCommand(CLI::App& app, CommandList& commands);
void AddColocateCommand(CLI::App& app, CommandList& commands);
void AddImportCommand(CLI::App& app, CommandList& commands);
void AddFormatsCommand(CLI::App& app, CommandList& commands);
void AddDevicesCommand(CLI::App& app, CommandList& commands);
void AddDisaggCommand(CLI::App& app, CommandList& commands);
void AddMigPlanCommand(CLI::App& app, CommandList& commands);
void AddTemporalCommand(CLI::App& app, CommandList& commands);
void AddGpusCommand(CLI::App& app, CommandList& commands);
void AddRecordNvmlCommand(CLI::App& app, CommandList& commands);
void AddPackCommand(CLI::App& app, CommandList& commands);
void AddListCommand(CLI::App& app, CommandList& commands);
void AddShowCommand(CLI::App& app, CommandList& commands);
void AddExportCommand(CLI::App& app, CommandList& commands);
void AddReportCommand(CLI::App& app, CommandList& commands);
void AddProfileCommand(CLI::App& app, CommandList& commands);
void AddConfigCommand(CLI::App& app, CommandList& commands);
void AddAgentCommand(CLI::App& app, CommandList& commands);
void AddServeCommand(CLI::App& app, CommandList& commands);
void AddDashboardCommand(CLI::App& app, CommandList& commands);
void AddExtenderCommand(CLI::App& app, CommandList& commands);
void AddAnnotateCommand(CLI::App& app, CommandList& commands);
void AddTrialCommand(CLI::App& app, CommandList& commands);
void AddUploadCommand(CLI::App& app, CommandList& commands);
void AddCostCommand(CLI::App& app, CommandList& commands);
void AddPlanCommand(CLI::App& app, CommandList& commands);
void AddMigCommand(CLI::App& app, CommandList& commands);
void AddDiffCommand(CLI::App& app, CommandList& commands);

}  // namespace kraken::cli
