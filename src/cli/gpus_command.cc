// `kraken gpus`: what NVML sees on this node: the GPUs, their MIG instances, the topology,
// and one sample of every metric. Useful to check a node before running the agent.
#include <cstdio>

#include "base/json_writer.h"
#include "base/text.h"
#include "base/text_table.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/nvml_sampler.h"
#include "k8s/client/topology_annotation.h"

namespace kraken::cli {
namespace {

struct GpusArgs {
  bool json = false;
  std::string library;
};

std::string Optional(const std::optional<double>& v, int digits = 0) {
  return v ? FormatFixed(*v, digits) : "-";
}

void WriteJson(const nvml::NvmlSampler& sampler, const SampleBatch& batch, JsonWriter& json) {
  json.BeginObject();
  json.Key("gpus").BeginArray();
  for (size_t i = 0; i < sampler.devices().size(); ++i) {
    const DeviceInfo& d = sampler.devices()[i];
    json.BeginObject()
        .Field("index", d.index)
        .Field("name", d.name)
        .Field("uuid", d.uuid)
        .Field("pci_bus_id", d.pci_bus_id)
        .Field("architecture", d.architecture)
        .Field("memory_bytes", d.memory_bytes)
        .Field("driver_version", d.driver_version)
        .Field("cuda_version", d.cuda_version)
        .Field("mig_enabled", d.mig_enabled)
        .Field("gpm_supported", sampler.gpm_supported(i));
    if (d.sm_count >= 0) json.Field("sm_count", d.sm_count);
    if (d.compute_major >= 0) json.Key("compute_capability").String(std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor));
    if (d.max_sm_clock_mhz) json.Field("max_sm_clock_mhz", *d.max_sm_clock_mhz);
    if (d.max_mem_clock_mhz) json.Field("max_mem_clock_mhz", *d.max_mem_clock_mhz);
    if (d.power_limit_w) json.Field("power_limit_w", *d.power_limit_w);
    json.Key("mig_instances").BeginArray();
    for (const MigInstance& m : d.mig_instances)
      json.BeginObject()
          .Field("gpu_instance_id", m.gpu_instance_id)
          .Field("compute_instance_id", m.compute_instance_id)
          .Field("profile", m.profile)
          .Field("memory_bytes", m.memory_bytes)
          .Field("sm_count", m.sm_count)
          .EndObject();
    json.EndArray();
    const nvml::GpuPlacement& p = sampler.topology().gpus[i];
    json.Field("numa_node", p.numa_node).Field("cpus", nvml::FormatCpuList(p.cpus)).Field("active_nvlinks", p.active_nvlinks);
    json.EndObject();
  }
  json.EndArray();
  // Placement (docs/topology.md): each pair's one-direction GB/s and the node annotation
  // the agent publishes (every GPU shown free: this command does not ask the kubelet).
  NodeGpuTopology placement = nvml::PlacementTopology(sampler.reader().devices(), sampler.topology());
  json.Key("pairs").BeginArray();
  for (size_t i = 0; i < sampler.topology().pairs.size(); ++i) {
    const nvml::GpuPair& pair = sampler.topology().pairs[i];
    json.BeginObject()
        .Field("a", pair.a)
        .Field("b", pair.b)
        .Field("path", pair.path)
        .Field("nvlinks", pair.nvlinks)
        .Field("common_ancestor", pair.common_ancestor);
    if (i < placement.links.size()) json.Field("gbps", placement.links[i].gbps);
    json.EndObject();
  }
  json.EndArray();
  json.Key("topology").BeginObject().Key("pcie_gbps").BeginArray();
  for (const TopologyGpu& g : placement.gpus) json.Number(g.pcie_gbps);
  json.EndArray().Field("has_nvlink", placement.HasNvlink());
  json.Field("annotation", k8s::FormatTopologyAnnotation(placement)).EndObject();
  json.Key("sample").BeginObject().Field("time_ns", static_cast<int64_t>(batch.time_ns)).Key("values").BeginArray();
  for (const SampleBatch::Value& v : batch.values) {
    const SeriesEntity& e = batch.entities[static_cast<size_t>(v.entity)];
    json.BeginObject().Field("metric", GetMetricInfo(v.metric).name).Field("gpu", e.gpu_index);
    if (e.gpu_instance_id >= 0) json.Field("gpu_instance_id", e.gpu_instance_id);
    if (e.pid >= 0) json.Field("pid", e.pid).Field("process_name", e.process_name);
    json.Field("value", v.value).Field("source", v.source_name).EndObject();
  }
  json.EndArray().EndObject();
  json.EndObject();
}

std::string RenderText(const nvml::NvmlSampler& sampler, const SampleBatch& batch) {
  std::string out;
  TextTable gpus({"gpu", "name", "bus id", "memory", "SMs", "CC", "max SM MHz", "power limit W", "MIG", "GPM", "NUMA",
                  "CPUs"});
  for (size_t i = 0; i < sampler.devices().size(); ++i) {
    const DeviceInfo& d = sampler.devices()[i];
    const nvml::GpuPlacement& p = sampler.topology().gpus[i];
    gpus.AddRow({std::to_string(d.index), d.name, d.pci_bus_id,
                 d.memory_bytes >= 0 ? FormatBytes(static_cast<double>(d.memory_bytes)) : "-",
                 d.sm_count >= 0 ? std::to_string(d.sm_count) : "-",
                 d.compute_major >= 0 ? std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor) : "-",
                 Optional(d.max_sm_clock_mhz), Optional(d.power_limit_w), d.mig_enabled ? "on" : "off",
                 sampler.gpm_supported(i) ? "yes" : "no", p.numa_node >= 0 ? std::to_string(p.numa_node) : "-",
                 p.cpus.empty() ? "-" : nvml::FormatCpuList(p.cpus)});
  }
  out += "GPUs (driver " + std::string(sampler.devices().empty() ? "-" : sampler.devices()[0].driver_version) + "):\n" +
         gpus.Render();
  for (const DeviceInfo& d : sampler.devices()) {
    if (d.mig_instances.empty()) continue;
    TextTable migs({"GI", "CI", "profile", "memory", "SMs"});
    for (const MigInstance& m : d.mig_instances)
      migs.AddRow({std::to_string(m.gpu_instance_id), std::to_string(m.compute_instance_id), m.profile,
                   m.memory_bytes >= 0 ? FormatBytes(static_cast<double>(m.memory_bytes)) : "-",
                   m.sm_count >= 0 ? std::to_string(m.sm_count) : "-"});
    out += "\nMIG devices of GPU " + std::to_string(d.index) + ":\n" + migs.Render();
  }
  if (!sampler.topology().pairs.empty()) {
    TextTable pairs({"GPU pair", "path", "NVLinks", "PCIe common ancestor"});
    for (const nvml::GpuPair& p : sampler.topology().pairs)
      pairs.AddRow({std::to_string(p.a) + "-" + std::to_string(p.b), p.path.empty() ? "-" : p.path,
                    std::to_string(p.nvlinks), std::string(nvml::TopologyLevelName(p.common_ancestor))});
    out += "\nTopology:\n" + pairs.Render();
  }
  TextTable values({"gpu", "GI", "pid", "process", "metric", "value", "unit"});
  for (const SampleBatch::Value& v : batch.values) {
    const SeriesEntity& e = batch.entities[static_cast<size_t>(v.entity)];
    const MetricInfo& info = GetMetricInfo(v.metric);
    values.AddRow({std::to_string(e.gpu_index), e.gpu_instance_id >= 0 ? std::to_string(e.gpu_instance_id) : "",
                   e.pid >= 0 ? std::to_string(e.pid) : "", e.process_name, std::string(info.name),
                   FormatFixed(v.value, v.value == static_cast<int64_t>(v.value) ? 0 : 2), std::string(info.unit)});
  }
  out += "\nOne sample (metrics the GPU does not support are absent):\n" + values.Render();
  return out;
}

int RunGpus(const GpusArgs& args) {
  auto session = nvml::OpenNvmlSession(args.library);
  if (!session.ok()) return ReportError(session.status());
  SampleBatch batch;
  session->sampler->Sample(batch);
  std::string out;
  if (args.json) {
    JsonWriter json;
    WriteJson(*session->sampler, batch, json);
    out = json.Take() + "\n";
  } else {
    out = RenderText(*session->sampler, batch);
  }
  Status status = WriteOutput("-", out);
  return status.ok() ? kExitOk : ReportError(status);
}

}  // namespace

void AddGpusCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<GpusArgs>();
  CLI::App* cmd = app.add_subcommand("gpus", "List this node's GPUs and topology through NVML and take one sample");
  cmd->add_flag("--json", args->json, "Print one JSON document");
  cmd->add_option("--nvml-library", args->library,
                  "NVML library to load (default: $KRAKEN_NVML_LIBRARY, else libnvidia-ml.so.1)");
  commands.push_back({cmd, [args] { return RunGpus(*args); }});
}

}  // namespace kraken::cli
