// Writes a Capture in the text form of docs/nvml-capture-format.md. An answer that is
// NOT_SUPPORTED (the default) is left out; other error codes are written as `!NAME`.
#include <charconv>
#include <cstring>

#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/capture_parse_values.h"
#include "collectors/nvml/nvml_return_codes.h"

namespace kraken::nvml {
namespace {

std::string Number(uint64_t v) { return std::to_string(v); }
std::string Number(uint32_t v) { return std::to_string(v); }
std::string Number(int32_t v) { return std::to_string(v); }
std::string Number(double v) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);  // shortest round trip
  return ec == std::errc() ? std::string(buffer, end) : "0";
}
std::string Hex(uint32_t v) {
  char buffer[16];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v, 16);
  std::string out = "0x";
  out.append(ec == std::errc() ? std::string_view(buffer, static_cast<size_t>(end - buffer)) : "0");
  return out;
}

std::string Code(nvmlReturn_t rc) {
  std::string_view name = ReturnCodeName(rc);
  std::string out = "!";
  out.append(name.empty() ? "UNKNOWN" : name);
  return out;
}

class Writer {
 public:
  void Line(std::string_view text) {
    out_.append(text);
    out_ += '\n';
  }
  void Key(std::string_view key, std::string_view value) {
    out_.append(key);
    out_ += " = ";
    out_.append(value);
    out_ += '\n';
  }
  // Writes `key = <value>` unless the answer is the default NOT_SUPPORTED.
  template <typename T, typename Format>
  void Answer(std::string_view key, const nvml::Answer<T>& answer, Format format) {
    if (answer.rc == NVML_ERROR_NOT_SUPPORTED) return;
    Key(key, answer.ok() ? format(answer.value) : Code(answer.rc));
  }
  template <typename T>
  void Answer(std::string_view key, const nvml::Answer<T>& answer) {
    Answer(key, answer, [](const T& v) { return Number(v); });
  }
  // Text the format cannot carry is left out: it replays as NOT_SUPPORTED (absent).
  void Text(std::string_view key, const nvml::Answer<std::string>& answer) {
    if (answer.ok() && !CarriesText(answer.value)) return;
    Answer(key, answer, [](const std::string& v) { return v; });
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string FormatPci(const PciInfo& p) {
  return p.bus_id + " " + Hex(p.domain) + " " + Hex(p.bus) + " " + Hex(p.device) + " " + Hex(p.device_id) + " " +
         Hex(p.subsystem_id);
}

std::string FormatAttributes(const Attributes& a) {
  return Number(a.sm_count) + " " + Number(a.shared_copy_engines) + " " + Number(a.shared_decoders) + " " +
         Number(a.shared_encoders) + " " + Number(a.shared_jpegs) + " " + Number(a.shared_ofas) + " " +
         Number(a.gpu_instance_slices) + " " + Number(a.compute_instance_slices) + " " + Number(a.memory_mib);
}

std::string FormatMemory(const MemoryInfo& m) {
  return Number(m.total) + " " + Number(m.reserved) + " " + Number(m.free) + " " + Number(m.used);
}

std::string FormatField(const FieldAnswer& f) {
  if (f.rc != NVML_SUCCESS) return Code(f.rc);
  nvmlValue_t v;
  std::memcpy(&v, &f.bits, sizeof(v));
  std::string type(ValueTypeName(f.value_type));
  switch (f.value_type) {
    case NVML_VALUE_TYPE_DOUBLE: return type + " " + Number(v.dVal);
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return type + " " + std::to_string(v.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT: return type + " " + std::to_string(v.siVal);
    case NVML_VALUE_TYPE_UNSIGNED_INT: return type + " " + std::to_string(v.uiVal);
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return type + " " + std::to_string(v.usVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return type + " " + std::to_string(v.ulVal);
    default: return "ullong " + std::to_string(v.ullVal);
  }
}

std::string InstanceId(uint32_t id) { return id == NVML_NO_INSTANCE_ID ? "-" : Number(id); }

void WriteGpm(Writer& w, const std::string& prefix, const nvml::Answer<std::vector<GpmValue>>& gpm) {
  nvmlReturn_t implied = gpm.value.empty() ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
  if (gpm.rc != implied) w.Key(prefix + "gpm", Code(gpm.rc));
  for (const GpmValue& m : gpm.value)
    w.Key(prefix + "gpm." + Number(m.metric_id), m.rc == NVML_SUCCESS ? Number(m.value) : Code(m.rc));
}

void WriteDeviceFrame(Writer& w, size_t index, const DeviceFrame& d) {
  std::string p = "gpu" + std::to_string(index) + ".";
  w.Answer(p + "utilization", d.utilization,
           [](const UtilizationRates& u) { return Number(u.gpu_pct) + " " + Number(u.mem_pct); });
  w.Answer(p + "memory", d.memory, FormatMemory);
  w.Answer(p + "power_mw", d.power_mw);
  w.Answer(p + "energy_mj", d.energy_mj);
  w.Answer(p + "sm_clock_mhz", d.sm_clock_mhz);
  w.Answer(p + "mem_clock_mhz", d.mem_clock_mhz);
  w.Answer(p + "gpu_temp_c", d.gpu_temp_c);
  w.Answer(p + "pcie_tx_kbps", d.pcie_tx_kbps);
  w.Answer(p + "pcie_rx_kbps", d.pcie_rx_kbps);
  w.Answer(p + "encoder_pct", d.encoder_pct);
  w.Answer(p + "decoder_pct", d.decoder_pct);
  for (const FieldAnswer& f : d.fields) {
    if (f.rc == NVML_ERROR_NOT_SUPPORTED) continue;  // the default, like every other answer
    std::string key = p + "field." + Number(f.field_id);
    if (f.scope_id != 0) {
      key += '.';
      key += Number(f.scope_id);
    }
    w.Key(key, FormatField(f));
  }
  if (d.processes.rc != NVML_SUCCESS) w.Key(p + "processes", Code(d.processes.rc));
  for (const ProcessAnswer& pr : d.processes.value)
    w.Key(p + "process", Number(pr.pid) + " " + Number(pr.used_bytes) + " " + InstanceId(pr.gpu_instance_id) + " " +
                             InstanceId(pr.compute_instance_id));
  const auto& pu = d.process_utilization;
  nvmlReturn_t implied = pu.value.empty() ? NVML_ERROR_NOT_FOUND : NVML_SUCCESS;
  if (d.process_utilization_read) {
    if (pu.rc != implied) w.Key(p + "process_utilization", Code(pu.rc));
    for (const ProcessUtilization& s : pu.value)
      w.Key(p + "process_sample", Number(s.pid) + " " + Number(s.time_us) + " " + Number(s.sm_pct) + " " +
                                      Number(s.mem_pct) + " " + Number(s.enc_pct) + " " + Number(s.dec_pct));
  } else {
    // A frame that did not ask (the slow cadence) says so; a frame that asked, as every
    // frame did before, writes what it always wrote.
    w.Key(p + "process_utilization_read", "0");
  }
  for (uint64_t xid : d.xids) w.Key(p + "xid", Number(xid));
  WriteGpm(w, p, d.gpm);
  for (const auto& [gi, mig] : d.migs) {
    std::string mp = p + "mig." + Number(gi) + ".";
    w.Answer(mp + "memory", mig.memory, FormatMemory);
    WriteGpm(w, mp, mig.gpm);
  }
}

void WriteDevice(Writer& w, size_t index, const DeviceFacts& d) {
  w.Line("");
  w.Line("[device " + std::to_string(index) + "]");
  w.Text("name", d.name);
  w.Text("uuid", d.uuid);
  w.Answer("pci", d.pci, FormatPci);
  w.Answer("minor_number", d.minor_number);
  w.Answer("architecture", d.architecture);
  w.Answer("compute_capability", d.compute_capability,
           [](const std::pair<int32_t, int32_t>& cc) { return Number(cc.first) + " " + Number(cc.second); });
  w.Answer("num_gpu_cores", d.num_gpu_cores);
  w.Answer("attributes", d.attributes, FormatAttributes);
  w.Answer("max_sm_clock_mhz", d.max_sm_clock_mhz);
  w.Answer("max_mem_clock_mhz", d.max_mem_clock_mhz);
  w.Answer("power_limit_mw", d.power_limit_mw);
  w.Answer("pcie_max_generation", d.pcie_max_generation);
  w.Answer("pcie_max_width", d.pcie_max_width);
  w.Answer("mig_mode", d.mig_mode,
           [](const std::pair<uint32_t, uint32_t>& m) { return Number(m.first) + " " + Number(m.second); });
  w.Answer("gpm_supported", d.gpm_supported);
  w.Answer("numa_node", d.numa_node);
  w.Answer("cpu_affinity", d.cpu_affinity, FormatCpuList);
  for (size_t link = 0; link < d.nvlinks.size(); ++link) {
    std::string p = "nvlink." + std::to_string(link) + ".";
    w.Answer(p + "state", d.nvlinks[link].state);
    w.Text(p + "remote", d.nvlinks[link].remote);
  }
  w.Answer("max_mig_devices", d.max_mig_devices);
  for (const MigFacts& m : d.migs) {
    w.Line("");
    w.Line("[mig " + std::to_string(index) + " " + std::to_string(m.index) + "]");
    w.Answer("gpu_instance_id", m.gpu_instance_id);
    w.Answer("compute_instance_id", m.compute_instance_id);
    w.Text("name", m.name);
    w.Text("uuid", m.uuid);
    w.Answer("attributes", m.attributes, FormatAttributes);
  }
}

}  // namespace

bool CarriesText(std::string_view text) {
  return !text.empty() && text.front() != '!' && text.find('\n') == std::string_view::npos &&
         capture_text::TrimSpaces(text) == text;
}

std::string WriteCapture(const Capture& capture) {
  Writer w;
  for (const std::string& note : capture.notes) w.Line(note.empty() ? "#" : "# " + note);
  w.Line(std::string(kCaptureMagic) + " " + std::to_string(kCaptureFormatVersion));
  w.Line("");
  w.Line("[capture]");
  for (const auto& [key, value] : capture.info) {
    if (CarriesText(value)) w.Key(key, value);  // provenance: a fact that cannot be carried is left out
  }
  w.Key("start_unix_us", Number(capture.start_unix_us));
  w.Key("interval_us", Number(capture.interval_us));
  for (const std::string& function : capture.version_mismatch) w.Key("version_mismatch", function);
  w.Line("");
  w.Line("[system]");
  w.Text("driver_version", capture.system.driver_version);
  w.Text("nvml_version", capture.system.nvml_version);
  w.Answer("cuda_driver_version", capture.system.cuda_driver_version);
  w.Answer("device_count", capture.system.device_count);
  for (size_t i = 0; i < capture.devices.size(); ++i) WriteDevice(w, i, capture.devices[i]);
  if (!capture.topology.empty()) {
    w.Line("");
    w.Line("[topology]");
    // Every pair is written, unsupported ones too, so that the pairs survive a round trip.
    for (const TopologyLink& t : capture.topology) {
      const auto& level = t.common_ancestor;
      w.Key("common_ancestor." + Number(t.a) + "." + Number(t.b), level.ok() ? Number(level.value) : Code(level.rc));
    }
  }
  for (size_t f = 0; f < capture.frames.size(); ++f) {
    const Frame& frame = capture.frames[f];
    w.Line("");
    w.Line("[frame " + std::to_string(f) + "]");
    w.Key("time_us", Number(frame.time_us));
    for (size_t d = 0; d < frame.devices.size(); ++d) WriteDeviceFrame(w, d, frame.devices[d]);
  }
  return w.Take();
}

}  // namespace kraken::nvml
