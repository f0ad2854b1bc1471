#include "exporter/exposition.h"

#include <charconv>
#include <cmath>

#include "exporter/exported_metrics.h"

namespace kraken::exporter {
namespace {

// Label values escape backslash, double quote and newline (exposition format 0.0.4).
void AppendEscaped(std::string_view value, std::string& out) {
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

void AppendLabel(std::string_view name, std::string_view value, std::string& out) {
  if (out.back() != '{') out += ',';
  out.append(name).append("=\"");
  AppendEscaped(value, out);
  out += '"';
}

void AppendInt(int64_t value, std::string& out) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

// The shortest text that reads back as the same double; integers without a decimal point
// (as DCGM prints its int64 fields, which the importer relies on to tell blanks apart).
void AppendValue(double value, std::string& out) {
  if (std::isnan(value)) {
    out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
    return;
  }
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

const DeviceInfo* FindDevice(const std::vector<DeviceInfo>* devices, const SeriesEntity& entity) {
  if (devices == nullptr) return nullptr;
  for (const DeviceInfo& d : *devices)
    if (!entity.gpu_uuid.empty() ? d.uuid == entity.gpu_uuid : d.index == entity.gpu_index) return &d;
  return nullptr;
}

// "{gpu=...,Hostname=...}" for one entity.
std::string LabelsOf(const SeriesEntity& e, const ExpositionInput& input) {
  std::string out = "{";
  std::string number;
  if (e.gpu_index >= 0) {
    AppendInt(e.gpu_index, number);
    AppendLabel("gpu", number, out);
  }
  if (!e.gpu_uuid.empty()) AppendLabel("UUID", e.gpu_uuid, out);
  if (!e.pci_bus_id.empty()) AppendLabel("pci_bus_id", e.pci_bus_id, out);
  // dcgm-exporter's device label is the /dev node name; the minor number is what names it.
  const DeviceInfo* device = FindDevice(input.devices, e);
  int64_t minor = device != nullptr && device->minor_number >= 0 ? device->minor_number : e.gpu_index;
  if (minor >= 0) {
    number = "nvidia";
    AppendInt(minor, number);
    AppendLabel("device", number, out);
  }
  if (!e.gpu_name.empty()) AppendLabel("modelName", e.gpu_name, out);
  if (e.gpu_instance_id >= 0) {
    if (!e.mig_profile.empty()) AppendLabel("GPU_I_PROFILE", e.mig_profile, out);
    number.clear();
    AppendInt(e.gpu_instance_id, number);
    AppendLabel("GPU_I_ID", number, out);
  }
  std::string_view host = !e.hostname.empty() ? std::string_view(e.hostname) : std::string_view(input.hostname);
  if (!host.empty()) AppendLabel("Hostname", host, out);
  if (!e.container.empty()) AppendLabel("container", e.container, out);
  if (!e.namespace_name.empty()) AppendLabel("namespace", e.namespace_name, out);
  if (!e.pod.empty()) AppendLabel("pod", e.pod, out);
  out += '}';
  if (out == "{}") out.clear();
  return out;
}

void AppendHeader(std::string_view name, std::string_view help, std::string_view type, std::string& out) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void RenderAgentStats(const AgentStats& stats, const std::string& hostname, std::string& out) {
  std::string labels;
  if (!hostname.empty()) {
    labels = "{";
    AppendLabel("Hostname", hostname, labels);
    labels += '}';
  }
  AppendHeader("kraken_agent_samples_total", "Sampling passes of the kraken agent since it started.", "counter", out);
  out.append("kraken_agent_samples_total").append(labels).append(" ");
  AppendInt(stats.samples_total, out);
  out += '\n';
  AppendHeader("kraken_agent_sample_duration_seconds", "Wall time of the newest sampling pass (in s).", "gauge",
               out);
  out.append("kraken_agent_sample_duration_seconds").append(labels).append(" ");
  AppendValue(stats.last_sample_duration_seconds, out);
  out += '\n';
  AppendHeader("kraken_agent_store_errors_total", "Sampling passes the profile store failed to take.", "counter",
               out);
  out.append("kraken_agent_store_errors_total").append(labels).append(" ");
  AppendInt(stats.store_errors_total, out);
  out += '\n';
}

}  // namespace

void RenderExposition(const ExpositionInput& input, std::string& out) {
  out.clear();
  if (input.batch != nullptr) {
    const SampleBatch& batch = *input.batch;
    // Labels once per entity; process entities get none and are skipped below.
    std::vector<std::string> labels(batch.entities.size());
    for (size_t e = 0; e < batch.entities.size(); ++e)
      if (batch.entities[e].pid < 0) labels[e] = LabelsOf(batch.entities[e], input);
    for (const ExportedMetric& metric : ExportedMetrics()) {
      bool header_written = false;
      for (const SampleBatch::Value& v : batch.values) {
        if (v.metric != metric.metric || v.entity < 0 || static_cast<size_t>(v.entity) >= batch.entities.size())
          continue;
        if (batch.entities[static_cast<size_t>(v.entity)].pid >= 0) continue;
        if (!header_written) {
          AppendHeader(metric.dcgm->field, metric.help,
                       metric.dcgm->type == prometheus::PromType::kCounter ? "counter" : "gauge", out);
          header_written = true;
        }
        out.append(metric.dcgm->field).append(labels[static_cast<size_t>(v.entity)]).append(" ");
        // Canonical unit -> the exported one (bytes -> MiB for the framebuffer).
        AppendValue(v.value / metric.dcgm->scale, out);
        out += '\n';
      }
    }
  }
  if (input.agent != nullptr) RenderAgentStats(*input.agent, input.hostname, out);
}

}  // namespace kraken::exporter

namespace kraken::exporter {

std::string EntityLabels(const SeriesEntity& entity, const ExpositionInput& input) { return LabelsOf(entity, input); }

}  // namespace kraken::exporter
