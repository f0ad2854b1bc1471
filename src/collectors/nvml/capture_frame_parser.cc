// The [frame] sections of an NVML capture's text form (docs/nvml-capture-format.md): each
// device's readings of one sampling pass, and at the frame's end the return codes its list
// answers imply. The rest of the parser is capture_parser.cc's.
#include <string>
#include <vector>

#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/capture_parse_values.h"
#include "collectors/nvml/capture_parser.h"

namespace kraken::nvml::capture_text {

Status CaptureParser::FrameKey(std::string_view key, std::string_view value, bool& known) {
  Frame& frame = capture_.frames.back();
  known = true;
  if (key == "time_us") return ParseU64(value, frame.time_us) ? Status::Ok() : Fail("bad number");
  std::string_view rest = key;
  uint32_t index = 0;
  if (!Consume(rest, "gpu") || !CutIndex(rest, index)) {
    known = false;
    return Status::Ok();
  }
  if (index >= frame.devices.size()) return Fail("gpu" + std::to_string(index) + " is not a declared device");
  DeviceFrame& d = frame.devices[index];
  ExplicitCodes& codes = explicit_[index];
  if (rest == "utilization") return Set(value, d.utilization, ParseUtilization);
  if (rest == "memory") return Set(value, d.memory, ParseMemory);
  if (rest == "power_mw") return Set(value, d.power_mw, ParseU32);
  if (rest == "energy_mj") return Set(value, d.energy_mj, ParseU64);
  if (rest == "sm_clock_mhz") return Set(value, d.sm_clock_mhz, ParseU32);
  if (rest == "mem_clock_mhz") return Set(value, d.mem_clock_mhz, ParseU32);
  if (rest == "gpu_temp_c") return Set(value, d.gpu_temp_c, ParseU32);
  if (rest == "pcie_tx_kbps") return Set(value, d.pcie_tx_kbps, ParseU32);
  if (rest == "pcie_rx_kbps") return Set(value, d.pcie_rx_kbps, ParseU32);
  if (rest == "encoder_pct") return Set(value, d.encoder_pct, ParseU32);
  if (rest == "decoder_pct") return Set(value, d.decoder_pct, ParseU32);
  if (rest == "processes") {
    codes.processes = true;
    return Code(value, d.processes.rc);
  }
  if (rest == "process") return Append(value, d.processes.value, ParseProcess);
  if (rest == "process_utilization") {
    codes.process_utilization = true;
    return Code(value, d.process_utilization.rc);
  }
  if (rest == "process_sample") return Append(value, d.process_utilization.value, ParseProcessSample);
  if (rest == "process_utilization_read") {
    if (value != "0" && value != "1") return Fail("process_utilization_read is 0 or 1");
    d.process_utilization_read = value == "1";
    return Status::Ok();
  }
  if (rest == "xid") return Append(value, d.xids, ParseU64);
  if (rest == "gpm") {
    codes.gpm = true;
    return Code(value, d.gpm.rc);
  }
  if (Consume(rest, "field.")) return FieldKey(rest, value, d.fields);
  if (Consume(rest, "gpm.")) return GpmKey(rest, value, d.gpm.value);
  uint32_t gi = 0;
  if (Consume(rest, "mig.") && CutIndex(rest, gi)) {
    if (d.migs.size() >= kMaxMigDevicesPerGpu && d.migs.count(gi) == 0) return Fail("too many GPU instances");
    MigFrame& mig = d.migs[gi];
    if (rest == "memory") return Set(value, mig.memory, ParseMemory);
    if (rest == "gpm") {
      codes.mig_gpm[gi] = true;
      return Code(value, mig.gpm.rc);
    }
    if (Consume(rest, "gpm.")) return GpmKey(rest, value, mig.gpm.value);
  }
  known = false;
  return Status::Ok();
}

Status CaptureParser::FieldKey(std::string_view rest, std::string_view value, std::vector<FieldAnswer>& fields) {
  FieldAnswer field;
  size_t dot = rest.find('.');
  if (!Integer(rest.substr(0, dot), field.field_id)) return Fail("bad field id");
  if (dot != std::string_view::npos && !Integer(rest.substr(dot + 1), field.scope_id)) return Fail("bad scope id");
  for (const FieldAnswer& f : fields)
    if (f.field_id == field.field_id && f.scope_id == field.scope_id) return Fail("field given twice");
  if (fields.size() >= kMaxListEntries) return Fail("too many fields");
  if (!value.empty() && value.front() == '!') {
    KRAKEN_RETURN_IF_ERROR(Code(value, field.rc));
  } else {
    if (!ParseField(value, field)) return Fail("bad field value '" + std::string(value) + "' (want 'TYPE NUMBER')");
    field.rc = NVML_SUCCESS;
  }
  fields.push_back(field);
  return Status::Ok();
}

Status CaptureParser::GpmKey(std::string_view rest, std::string_view value, std::vector<GpmValue>& metrics) {
  GpmValue metric;
  if (!Integer(rest, metric.metric_id) || metric.metric_id >= NVML_GPM_METRIC_MAX) return Fail("bad GPM metric id");
  for (const GpmValue& m : metrics)
    if (m.metric_id == metric.metric_id) return Fail("GPM metric given twice");
  if (!value.empty() && value.front() == '!') {
    KRAKEN_RETURN_IF_ERROR(Code(value, metric.rc));
  } else {
    if (!Real(value, metric.value)) return Fail("bad GPM value");
    metric.rc = NVML_SUCCESS;
  }
  metrics.push_back(metric);
  return Status::Ok();
}

// Gives the list answers of the frame that just ended the code their content implies.
// A frame that did not read process utilization can have no answer to it.
Status CaptureParser::EndFrame() {
  if (!in_frame_) return Status::Ok();
  in_frame_ = false;
  Frame& frame = capture_.frames.back();
  for (size_t i = 0; i < frame.devices.size(); ++i) {
    DeviceFrame& d = frame.devices[i];
    const ExplicitCodes& codes = explicit_[i];
    if (!d.process_utilization_read && (codes.process_utilization || !d.process_utilization.value.empty()))
      return Fail("gpu" + std::to_string(i) + " has process_utilization_read = 0 and process samples or a code");
    if (!codes.process_utilization)
      d.process_utilization.rc = d.process_utilization.value.empty() ? NVML_ERROR_NOT_FOUND : NVML_SUCCESS;
    if (!codes.gpm) d.gpm.rc = d.gpm.value.empty() ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
    for (auto& [gi, mig] : d.migs) {
      auto it = codes.mig_gpm.find(gi);
      if (it == codes.mig_gpm.end() || !it->second)
        mig.gpm.rc = mig.gpm.value.empty() ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
    }
  }
  return Status::Ok();
}

}  // namespace kraken::nvml::capture_text
