// Reads the text form of an NVML capture (docs/nvml-capture-format.md). Strict: an
// unknown key, a bad number or a section out of order is an error naming the line, so a
// typo in a hand-written fixture does not silently replay as NOT_SUPPORTED.
#include <string>
#include <vector>

#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/capture_parse_values.h"
#include "collectors/nvml/nvml_return_codes.h"

namespace kraken::nvml {
namespace {

// The value grammar lives in capture_parse_values.cc; this file is the line and section
// parser that puts each value where its key says.
using capture_text::Consume;
using capture_text::CutIndex;
using capture_text::Integer;
using capture_text::ParseAttributes;
using capture_text::ParseCpus;
using capture_text::ParseField;
using capture_text::ParseI32;
using capture_text::ParseIntPair;
using capture_text::ParseMemory;
using capture_text::ParsePair;
using capture_text::ParsePci;
using capture_text::ParseProcess;
using capture_text::ParseProcessSample;
using capture_text::ParseText;
using capture_text::ParseU32;
using capture_text::ParseU64;
using capture_text::ParseUtilization;
using capture_text::Real;
using capture_text::Tokens;
using capture_text::TrimSpaces;

enum class Section { kNone, kCapture, kSystem, kDevice, kMig, kTopology, kFrame };

// Which list answers of one device frame had their return code written explicitly; the
// others get the code their content implies when the frame ends.
struct ExplicitCodes {
  bool processes = false;
  bool process_utilization = false;
  bool gpm = false;
  std::map<uint32_t, bool> mig_gpm;
};

class Parser {
 public:
  Result<Capture> Run(std::string_view text) {
    size_t pos = 0;
    bool seen_magic = false;
    while (pos <= text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = TrimSpaces(text.substr(pos, end - pos));
      pos = end + 1;
      ++line_number_;
      if (line.empty() || line.front() == '#') {
        // Comments above the first line are the capture's notes (its provenance header).
        if (!seen_magic && !line.empty()) {
          std::string_view note = line.substr(1);
          if (!note.empty() && note.front() == ' ') note.remove_prefix(1);
          capture_.notes.emplace_back(note);
        }
        continue;
      }
      if (!seen_magic) {
        KRAKEN_RETURN_IF_ERROR(Magic(line));
        seen_magic = true;
        continue;
      }
      KRAKEN_RETURN_IF_ERROR(Line(line));
    }
    if (!seen_magic) return Fail("not an NVML capture (no '" + std::string(kCaptureMagic) + " 1' line)");
    KRAKEN_RETURN_IF_ERROR(EndFrame());
    if (capture_.devices.empty()) return Fail("no [device] section");
    if (capture_.frames.empty()) return Fail("no [frame] section");
    const auto& count = capture_.system.device_count;
    if (count.ok() && count.value != capture_.devices.size())
      return Fail("device_count is " + std::to_string(count.value) + " but there are " +
                  std::to_string(capture_.devices.size()) + " [device] sections");
    return std::move(capture_);
  }

 private:
  Status Fail(const std::string& message) const {
    return InvalidInput("line " + std::to_string(line_number_) + ": " + message);
  }

  Status Magic(std::string_view line) {
    auto tokens = Tokens(line);
    int version = 0;
    if (tokens.size() != 2 || tokens[0] != kCaptureMagic || !Integer(tokens[1], version))
      return Fail("not an NVML capture (expected '" + std::string(kCaptureMagic) + " 1')");
    if (version != kCaptureFormatVersion)
      return Fail("capture format version " + std::to_string(version) + " is not supported (this kraken reads " +
                  std::to_string(kCaptureFormatVersion) + ")");
    return Status::Ok();
  }

  Status Line(std::string_view line) {
    if (line.front() == '[') {
      if (line.back() != ']') return Fail("a section header must end with ']'");
      return Header(line.substr(1, line.size() - 2));
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return Fail("expected 'key = value'");
    std::string_view key = TrimSpaces(line.substr(0, eq));
    std::string_view value = TrimSpaces(line.substr(eq + 1));
    if (key.empty()) return Fail("empty key");
    bool known = false;
    Status status = Status::Ok();
    switch (section_) {
      case Section::kNone: return Fail("a key before the first [section]");
      case Section::kCapture: status = CaptureKey(key, value, known); break;
      case Section::kSystem: status = SystemKey(key, value, known); break;
      case Section::kDevice: status = DeviceKey(key, value, known); break;
      case Section::kMig: status = MigKey(key, value, known); break;
      case Section::kTopology: status = TopologyKey(key, value, known); break;
      case Section::kFrame: status = FrameKey(key, value, known); break;
    }
    KRAKEN_RETURN_IF_ERROR(status);
    if (!known) return Fail("unknown key '" + std::string(key) + "' in this section");
    return Status::Ok();
  }

  Status Header(std::string_view header) {
    KRAKEN_RETURN_IF_ERROR(EndFrame());
    auto t = Tokens(header);
    if (t.empty()) return Fail("empty section header");
    uint32_t a = 0, b = 0;
    if (t.size() == 1 && t[0] == "capture") {
      section_ = Section::kCapture;
    } else if (t.size() == 1 && t[0] == "system") {
      section_ = Section::kSystem;
    } else if (t.size() == 1 && t[0] == "topology") {
      section_ = Section::kTopology;
    } else if (t.size() == 2 && t[0] == "device" && Integer(t[1], a)) {
      if (a != capture_.devices.size()) return Fail("[device " + std::to_string(a) + "] out of order");
      if (!capture_.frames.empty()) return Fail("[device] sections must come before the frames");
      if (capture_.devices.size() >= kMaxCaptureDevices) return Fail("too many devices");
      capture_.devices.emplace_back();
      section_ = Section::kDevice;
    } else if (t.size() == 3 && t[0] == "mig" && Integer(t[1], a) && Integer(t[2], b)) {
      if (a >= capture_.devices.size()) return Fail("[mig] of a device not declared before");
      auto& migs = capture_.devices[a].migs;
      if (migs.size() >= kMaxMigDevicesPerGpu) return Fail("too many MIG devices");
      for (const MigFacts& m : migs)
        if (m.index == b) return Fail("MIG device " + std::to_string(b) + " declared twice");
      migs.emplace_back().index = b;
      mig_ = &migs.back();
      section_ = Section::kMig;
    } else if (t.size() == 2 && t[0] == "frame" && Integer(t[1], a)) {
      if (a != capture_.frames.size()) return Fail("[frame " + std::to_string(a) + "] out of order");
      if (capture_.devices.empty()) return Fail("[frame] before any [device]");
      if (capture_.frames.size() >= kMaxCaptureFrames) return Fail("too many frames");
      capture_.frames.emplace_back().devices.resize(capture_.devices.size());
      explicit_.assign(capture_.devices.size(), ExplicitCodes());
      in_frame_ = true;
      section_ = Section::kFrame;
    } else {
      return Fail("unknown section [" + std::string(header) + "]");
    }
    return Status::Ok();
  }

  // Sets an answer from `value`: "!NAME" is a return code, anything else goes to `parse`.
  template <typename T, typename ParseFn>
  Status Set(std::string_view value, Answer<T>& answer, ParseFn parse) {
    if (!value.empty() && value.front() == '!') return Code(value, answer.rc);
    T parsed{};
    if (!parse(value, parsed)) return Fail("bad value '" + std::string(value) + "'");
    answer.Set(std::move(parsed));
    return Status::Ok();
  }

  Status Code(std::string_view value, nvmlReturn_t& rc) {
    if (value.empty() || value.front() != '!') return Fail("expected a return code such as !NOT_SUPPORTED");
    auto code = ReturnCodeFromName(value.substr(1));
    if (!code) return Fail("unknown NVML return code '" + std::string(value) + "'");
    rc = *code;
    return Status::Ok();
  }

  Status CaptureKey(std::string_view key, std::string_view value, bool& known) {
    known = true;
    if (key == "start_unix_us") return ParseU64(value, capture_.start_unix_us) ? Status::Ok() : Fail("bad number");
    if (key == "interval_us") return ParseU64(value, capture_.interval_us) ? Status::Ok() : Fail("bad number");
    if (key == "version_mismatch") {
      capture_.version_mismatch.emplace_back(value);
      return Status::Ok();
    }
    capture_.info[std::string(key)] = std::string(value);  // provenance is free-form
    return Status::Ok();
  }

  Status SystemKey(std::string_view key, std::string_view value, bool& known) {
    known = true;
    SystemFacts& s = capture_.system;
    if (key == "driver_version") return Set(value, s.driver_version, ParseText);
    if (key == "nvml_version") return Set(value, s.nvml_version, ParseText);
    if (key == "cuda_driver_version") return Set(value, s.cuda_driver_version, ParseI32);
    if (key == "device_count") return Set(value, s.device_count, ParseU32);
    known = false;
    return Status::Ok();
  }

  Status DeviceKey(std::string_view key, std::string_view value, bool& known) {
    known = true;
    DeviceFacts& d = capture_.devices.back();
    if (key == "name") return Set(value, d.name, ParseText);
    if (key == "uuid") return Set(value, d.uuid, ParseText);
    if (key == "pci") return Set(value, d.pci, ParsePci);
    if (key == "minor_number") return Set(value, d.minor_number, ParseU32);
    if (key == "architecture") return Set(value, d.architecture, ParseU32);
    if (key == "compute_capability") return Set(value, d.compute_capability, ParseIntPair);
    if (key == "num_gpu_cores") return Set(value, d.num_gpu_cores, ParseU32);
    if (key == "attributes") return Set(value, d.attributes, ParseAttributes);
    if (key == "max_sm_clock_mhz") return Set(value, d.max_sm_clock_mhz, ParseU32);
    if (key == "max_mem_clock_mhz") return Set(value, d.max_mem_clock_mhz, ParseU32);
    if (key == "power_limit_mw") return Set(value, d.power_limit_mw, ParseU32);
    if (key == "pcie_max_generation") return Set(value, d.pcie_max_generation, ParseU32);
    if (key == "pcie_max_width") return Set(value, d.pcie_max_width, ParseU32);
    if (key == "mig_mode") return Set(value, d.mig_mode, ParsePair);
    if (key == "gpm_supported") return Set(value, d.gpm_supported, ParseU32);
    if (key == "numa_node") return Set(value, d.numa_node, ParseU32);
    if (key == "cpu_affinity") return Set(value, d.cpu_affinity, ParseCpus);
    if (key == "max_mig_devices") return Set(value, d.max_mig_devices, ParseU32);
    std::string_view rest = key;
    uint32_t link = 0;
    if (Consume(rest, "nvlink.") && CutIndex(rest, link)) {
      if (link >= NVML_NVLINK_MAX_LINKS) return Fail("NVLink id out of range");
      if (d.nvlinks.size() <= link) d.nvlinks.resize(link + 1);
      if (rest == "state") return Set(value, d.nvlinks[link].state, ParseU32);
      if (rest == "remote") return Set(value, d.nvlinks[link].remote, ParseText);
    }
    known = false;
    return Status::Ok();
  }

  Status MigKey(std::string_view key, std::string_view value, bool& known) {
    known = true;
    MigFacts& m = *mig_;
    if (key == "gpu_instance_id") return Set(value, m.gpu_instance_id, ParseU32);
    if (key == "compute_instance_id") return Set(value, m.compute_instance_id, ParseU32);
    if (key == "name") return Set(value, m.name, ParseText);
    if (key == "uuid") return Set(value, m.uuid, ParseText);
    if (key == "attributes") return Set(value, m.attributes, ParseAttributes);
    known = false;
    return Status::Ok();
  }

  Status TopologyKey(std::string_view key, std::string_view value, bool& known) {
    std::string_view rest = key;
    TopologyLink link;
    if (!Consume(rest, "common_ancestor.") || !CutIndex(rest, link.a) || !Integer(rest, link.b)) return Status::Ok();
    known = true;
    if (link.a >= link.b || link.b >= capture_.devices.size()) return Fail("a topology pair needs two devices, a < b");
    KRAKEN_RETURN_IF_ERROR(Set(value, link.common_ancestor, ParseI32));
    capture_.topology.push_back(link);
    return Status::Ok();
  }

  Status FrameKey(std::string_view key, std::string_view value, bool& known) {
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

  template <typename T, typename ParseFn>
  Status Append(std::string_view value, std::vector<T>& list, ParseFn parse) {
    if (list.size() >= kMaxListEntries) return Fail("too many entries");
    T item{};
    if (!parse(value, item)) return Fail("bad value '" + std::string(value) + "'");
    list.push_back(item);
    return Status::Ok();
  }

  Status FieldKey(std::string_view rest, std::string_view value, std::vector<FieldAnswer>& fields) {
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

  Status GpmKey(std::string_view rest, std::string_view value, std::vector<GpmValue>& metrics) {
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
  Status EndFrame() {
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

  Capture capture_;
  Section section_ = Section::kNone;
  MigFacts* mig_ = nullptr;
  std::vector<ExplicitCodes> explicit_;
  bool in_frame_ = false;
  size_t line_number_ = 0;
};

}  // namespace

Result<Capture> ParseCapture(std::string_view text) { return Parser().Run(text); }

}  // namespace kraken::nvml
