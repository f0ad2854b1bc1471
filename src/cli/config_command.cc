// `kraken config --print [--json] [--config FILE]`: every setting's effective value and
// where it came from (default, file:line, environment variable or flag).
#include <cstdio>

#include "base/json_writer.h"
#include "base/text_table.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/config_flags.h"

namespace kraken::cli {
namespace {

struct ConfigArgs {
  ConfigFlags flags;
  bool print = false;
  bool json = false;
  std::string out = "-";
};

std::string RenderJson(const config::EffectiveConfig& c) {
  JsonWriter json;
  json.BeginObject();
  json.Field("file", c.file);
  if (!c.file.empty()) json.Field("file_from", config::DescribeSource(c.file_from));
  json.Key("settings").BeginArray();
  for (const config::ConfigKeyInfo& key : config::ConfigKeys()) {
    json.BeginObject();
    json.Field("key", key.name);
    json.Field("value", config::ValueText(c.values, key.name));
    json.Field("source", config::DescribeSource(c.sources.at(std::string(key.name))));
    if (!key.env.empty()) json.Field("env", key.env);
    json.Field("help", key.help);
    json.EndObject();
  }
  json.EndArray();
  json.Key("warnings").BeginArray();
  for (const std::string& warning : c.warnings) json.String(warning);
  json.EndArray();
  json.EndObject();
  return json.Take() + "\n";
}

std::string RenderText(const config::EffectiveConfig& c) {
  std::string out = c.file.empty() ? "config file: none\n"
                                   : "config file: " + c.file + " (" + config::DescribeSource(c.file_from) + ")\n";
  TextTable table({"key", "value", "source"});
  for (const config::ConfigKeyInfo& key : config::ConfigKeys()) {
    std::string value = config::ValueText(c.values, key.name);
    table.AddRow({std::string(key.name), value.empty() ? "(empty)" : value,
                  config::DescribeSource(c.sources.at(std::string(key.name)))});
  }
  return out + table.Render("");
}

int RunConfig(const ConfigArgs& args) {
  auto config = args.flags.Resolve();
  if (!config.ok()) return ReportError(config.status());
  Status status = WriteOutput(args.out, args.json ? RenderJson(*config) : RenderText(*config));
  return status.ok() ? kExitOk : ReportError(status);
}

}  // namespace

void AddConfigCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ConfigArgs>();
  CLI::App* cmd = app.add_subcommand("config", "Show kraken's effective settings and where each comes from");
  cmd->add_flag("--print", args->print, "Print every setting, its value and its source (the default action)");
  cmd->add_flag("--json", args->json, "Print JSON instead of a table");
  cmd->add_option("--out", args->out, "Write to this file instead of standard output")->capture_default_str();
  args->flags.AddConfigFlag(cmd);
  commands.push_back({cmd, [args] { return RunConfig(*args); }});
}

}  // namespace kraken::cli
