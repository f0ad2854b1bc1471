// `kraken formats` and `kraken devices`: what kraken can read, and its device catalog.
#include "base/json_writer.h"
#include "base/text.h"
#include "base/text_table.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "importers/registry.h"
#include "model/device_catalog.h"

namespace kraken::cli {
namespace {

struct CatalogArgs {
  bool json = false;
};

int RunFormats(const CatalogArgs& args) {
  const auto& importers = BuiltinImporters().importers();
  std::string out;
  if (args.json) {
    JsonWriter json;
    json.BeginObject().Key("formats").BeginArray();
    for (const auto& importer : importers) {
      const auto& d = importer->descriptor();
      json.BeginObject().Field("name", d.name).Field("description", d.description).Field("accepts", d.accepts);
      json.EndObject();
    }
    json.EndArray().EndObject();
    out = json.Take() + "\n";
  } else {
    TextTable table({"format", "reads", "inputs"});
    for (const auto& importer : importers) {
      const auto& d = importer->descriptor();
      table.AddRow({std::string(d.name), std::string(d.description), std::string(d.accepts)});
    }
    out = "Formats are recognised from the content, not the file name; gzip and tar are undone first.\n" +
          table.Render();
  }
  Status status = WriteOutput("-", out);
  return status.ok() ? kExitOk : ReportError(status);
}

int RunDevices(const CatalogArgs& args) {
  std::string out;
  if (args.json) {
    JsonWriter json;
    json.BeginObject().Key("devices").BeginArray();
    for (const DeviceSpec& d : DeviceCatalog()) {
      json.BeginObject()
          .Field("id", d.id)
          .Field("name", d.name)
          .Field("sm_count", d.sm_count)
          .Field("memory_bytes", d.memory_bytes)
          .Field("dram_bytes_per_s", d.dram_bytes_per_s)
          .Field("fp64_flops_per_s", d.fp64_flops_per_s)
          .Field("fp32_flops_per_s", d.fp32_flops_per_s)
          .Field("tf32_tensor_flops_per_s", d.tf32_tensor_flops_per_s)
          .Field("fp16_tensor_flops_per_s", d.fp16_tensor_flops_per_s)
          .Field("bf16_tensor_flops_per_s", d.bf16_tensor_flops_per_s)
          .Field("fp8_tensor_flops_per_s", d.fp8_tensor_flops_per_s)
          .Field("source", d.source)
          .EndObject();
    }
    json.EndArray().EndObject();
    out = json.Take() + "\n";
  } else {
    TextTable table({"id", "name", "SMs", "memory", "DRAM TB/s", "FP32 TF", "FP16 tensor TF", "ridge FP32",
                     "ridge tensor"},
                    {TextTable::Align::kLeft, TextTable::Align::kLeft, TextTable::Align::kRight,
                     TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kRight,
                     TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kRight});
    for (const DeviceSpec& d : DeviceCatalog()) {
      double tensor = d.fp16_tensor_flops_per_s > 0 ? d.fp16_tensor_flops_per_s : d.bf16_tensor_flops_per_s;
      table.AddRow({d.id, d.name, std::to_string(d.sm_count), FormatBytes(static_cast<double>(d.memory_bytes)),
                    FormatFixed(d.dram_bytes_per_s / 1e12, 2), FormatFixed(d.fp32_flops_per_s / 1e12, 1),
                    FormatFixed(tensor / 1e12, 1), FormatFixed(d.ridge_fp32(), 1), FormatFixed(d.ridge_tensor16(), 1)});
    }
    out = "Dense peaks (no sparsity) at boost clock; ridge = FLOP per DRAM byte.\n" + table.Render();
  }
  Status status = WriteOutput("-", out);
  return status.ok() ? kExitOk : ReportError(status);
}

}  // namespace

void AddFormatsCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<CatalogArgs>();
  CLI::App* cmd = app.add_subcommand("formats", "List the input formats kraken reads");
  cmd->add_flag("--json", args->json, "Print one JSON document");
  commands.push_back({cmd, [args] { return RunFormats(*args); }});
}

void AddDevicesCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<CatalogArgs>();
  CLI::App* cmd = app.add_subcommand("devices", "List the built-in device catalog and its peaks");
  cmd->add_flag("--json", args->json, "Print one JSON document");
  commands.push_back({cmd, [args] { return RunDevices(*args); }});
}

}  // namespace kraken::cli
