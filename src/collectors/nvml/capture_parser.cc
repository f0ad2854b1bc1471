// Reads the text form of an NVML capture (docs/nvml-capture-format.md). Strict: an
// unknown key, a bad number or a section out of order is an error naming the line, so a
// typo in a hand-written fixture does not silently replay as NOT_SUPPORTED. This file: the
// lines, the section headers and the facts sections; capture_frame_parser.cc: the frames.
#include <string>
#include <vector>

#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/capture_parse_values.h"
#include "collectors/nvml/capture_parser.h"
#include "collectors/nvml/nvml_return_codes.h"

namespace kraken::nvml {
namespace capture_text {

Result<Capture> CaptureParser::Run(std::string_view text) {
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

Status CaptureParser::Magic(std::string_view line) {
  auto tokens = Tokens(line);
  int version = 0;
  if (tokens.size() != 2 || tokens[0] != kCaptureMagic || !Integer(tokens[1], version))
    return Fail("not an NVML capture (expected '" + std::string(kCaptureMagic) + " 1')");
  if (version != kCaptureFormatVersion)
    return Fail("capture format version " + std::to_string(version) + " is not supported (this kraken reads " +
                std::to_string(kCaptureFormatVersion) + ")");
  return Status::Ok();
}

Status CaptureParser::Line(std::string_view line) {
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
    case CaptureSection::kNone: return Fail("a key before the first [section]");
    case CaptureSection::kCapture: status = CaptureKey(key, value, known); break;
    case CaptureSection::kSystem: status = SystemKey(key, value, known); break;
    case CaptureSection::kDevice: status = DeviceKey(key, value, known); break;
    case CaptureSection::kMig: status = MigKey(key, value, known); break;
    case CaptureSection::kTopology: status = TopologyKey(key, value, known); break;
    case CaptureSection::kFrame: status = FrameKey(key, value, known); break;
  }
  KRAKEN_RETURN_IF_ERROR(status);
  if (!known) return Fail("unknown key '" + std::string(key) + "' in this section");
  return Status::Ok();
}

Status CaptureParser::Header(std::string_view header) {
  KRAKEN_RETURN_IF_ERROR(EndFrame());
  auto t = Tokens(header);
  if (t.empty()) return Fail("empty section header");
  uint32_t a = 0, b = 0;
  if (t.size() == 1 && t[0] == "capture") {
    section_ = CaptureSection::kCapture;
  } else if (t.size() == 1 && t[0] == "system") {
    section_ = CaptureSection::kSystem;
  } else if (t.size() == 1 && t[0] == "topology") {
    section_ = CaptureSection::kTopology;
  } else if (t.size() == 2 && t[0] == "device" && Integer(t[1], a)) {
    if (a != capture_.devices.size()) return Fail("[device " + std::to_string(a) + "] out of order");
    if (!capture_.frames.empty()) return Fail("[device] sections must come before the frames");
    if (capture_.devices.size() >= kMaxCaptureDevices) return Fail("too many devices");
    capture_.devices.emplace_back();
    section_ = CaptureSection::kDevice;
  } else if (t.size() == 3 && t[0] == "mig" && Integer(t[1], a) && Integer(t[2], b)) {
    if (a >= capture_.devices.size()) return Fail("[mig] of a device not declared before");
    auto& migs = capture_.devices[a].migs;
    if (migs.size() >= kMaxMigDevicesPerGpu) return Fail("too many MIG devices");
    for (const MigFacts& m : migs)
      if (m.index == b) return Fail("MIG device " + std::to_string(b) + " declared twice");
    migs.emplace_back().index = b;
    mig_ = &migs.back();
    section_ = CaptureSection::kMig;
  } else if (t.size() == 2 && t[0] == "frame" && Integer(t[1], a)) {
    if (a != capture_.frames.size()) return Fail("[frame " + std::to_string(a) + "] out of order");
    if (capture_.devices.empty()) return Fail("[frame] before any [device]");
    if (capture_.frames.size() >= kMaxCaptureFrames) return Fail("too many frames");
    capture_.frames.emplace_back().devices.resize(capture_.devices.size());
    explicit_.assign(capture_.devices.size(), ExplicitCodes());
    in_frame_ = true;
    section_ = CaptureSection::kFrame;
  } else {
    return Fail("unknown section [" + std::string(header) + "]");
  }
  return Status::Ok();
}

Status CaptureParser::Code(std::string_view value, nvmlReturn_t& rc) {
  if (value.empty() || value.front() != '!') return Fail("expected a return code such as !NOT_SUPPORTED");
  auto code = ReturnCodeFromName(value.substr(1));
  if (!code) return Fail("unknown NVML return code '" + std::string(value) + "'");
  rc = *code;
  return Status::Ok();
}

Status CaptureParser::CaptureKey(std::string_view key, std::string_view value, bool& known) {
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

Status CaptureParser::SystemKey(std::string_view key, std::string_view value, bool& known) {
  known = true;
  SystemFacts& s = capture_.system;
  if (key == "driver_version") return Set(value, s.driver_version, ParseText);
  if (key == "nvml_version") return Set(value, s.nvml_version, ParseText);
  if (key == "cuda_driver_version") return Set(value, s.cuda_driver_version, ParseI32);
  if (key == "device_count") return Set(value, s.device_count, ParseU32);
  known = false;
  return Status::Ok();
}

Status CaptureParser::DeviceKey(std::string_view key, std::string_view value, bool& known) {
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

Status CaptureParser::MigKey(std::string_view key, std::string_view value, bool& known) {
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

Status CaptureParser::TopologyKey(std::string_view key, std::string_view value, bool& known) {
  std::string_view rest = key;
  TopologyLink link;
  if (!Consume(rest, "common_ancestor.") || !CutIndex(rest, link.a) || !Integer(rest, link.b)) return Status::Ok();
  known = true;
  if (link.a >= link.b || link.b >= capture_.devices.size()) return Fail("a topology pair needs two devices, a < b");
  KRAKEN_RETURN_IF_ERROR(Set(value, link.common_ancestor, ParseI32));
  capture_.topology.push_back(link);
  return Status::Ok();
}

}  // namespace capture_text

Result<Capture> ParseCapture(std::string_view text) { return capture_text::CaptureParser().Run(text); }

}  // namespace kraken::nvml
