// The text form of an NVML capture (docs/nvml-capture-format.md): versioned, line based,
// `key = value` lines in [sections], a return code written as `!NOT_SUPPORTED`.
//
// This code has no dependency beyond the standard library (and the header-only Status)
// because the replay library links it into a shared object.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "collectors/nvml/capture.h"

namespace kraken::nvml {

inline constexpr std::string_view kCaptureMagic = "kraken-nvml-capture";
inline constexpr int kCaptureFormatVersion = 1;

// Limits that keep a malformed or hostile capture from exhausting memory.
inline constexpr size_t kMaxCaptureDevices = 256;
inline constexpr size_t kMaxMigDevicesPerGpu = 64;
inline constexpr size_t kMaxCaptureFrames = 1'000'000;
inline constexpr size_t kMaxListEntries = 4096;  // processes, samples, fields per frame

// Errors are InvalidInput("line 12: ...").
Result<Capture> ParseCapture(std::string_view text);
std::string WriteCapture(const Capture& capture);

// Whether a `key = value` line carries `text` unchanged: not empty, one line, not starting
// with '!' (read as a return code) and nothing the parser trims from a value. Writers leave
// out any other text, rather than write a capture that reads back different or not at all
// (nothing promises that a driver's string meets these rules).
bool CarriesText(std::string_view text);

// "0-19,40-59" <-> {0..19, 40..59}.
std::string FormatCpuList(const std::vector<uint32_t>& cpus);
bool ParseCpuList(std::string_view text, std::vector<uint32_t>& cpus);

// The field's nvmlValueType_t as the capture spells it ("uint", "ullong", "double", ...).
std::string_view ValueTypeName(int32_t value_type);

}  // namespace kraken::nvml
