// The parser of the text form of an NVML capture (ParseCapture, capture_format.h), shared
// by its two halves: capture_parser.cc reads the lines, the section headers and the facts
// sections ([capture], [system], [device], [mig], [topology]); capture_frame_parser.cc
// the [frame] sections, whose list answers get their implied return codes when the frame
// ends. Internal to those two files; the value grammar is capture_parse_values.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "collectors/nvml/capture.h"
#include "collectors/nvml/capture_format.h"

namespace kraken::nvml::capture_text {

enum class CaptureSection { kNone, kCapture, kSystem, kDevice, kMig, kTopology, kFrame };

// Which list answers of one device frame had their return code written explicitly; the
// others get the code their content implies when the frame ends.
struct ExplicitCodes {
  bool processes = false;
  bool process_utilization = false;
  bool gpm = false;
  std::map<uint32_t, bool> mig_gpm;
};

class CaptureParser {
 public:
  Result<Capture> Run(std::string_view text);

 private:
  Status Fail(const std::string& message) const {
    return InvalidInput("line " + std::to_string(line_number_) + ": " + message);
  }

  // capture_parser.cc: lines, headers, the facts sections.
  Status Magic(std::string_view line);
  Status Line(std::string_view line);
  Status Header(std::string_view header);
  Status Code(std::string_view value, nvmlReturn_t& rc);
  Status CaptureKey(std::string_view key, std::string_view value, bool& known);
  Status SystemKey(std::string_view key, std::string_view value, bool& known);
  Status DeviceKey(std::string_view key, std::string_view value, bool& known);
  Status MigKey(std::string_view key, std::string_view value, bool& known);
  Status TopologyKey(std::string_view key, std::string_view value, bool& known);

  // capture_frame_parser.cc: the frames.
  Status FrameKey(std::string_view key, std::string_view value, bool& known);
  Status FieldKey(std::string_view rest, std::string_view value, std::vector<FieldAnswer>& fields);
  Status GpmKey(std::string_view rest, std::string_view value, std::vector<GpmValue>& metrics);
  Status EndFrame();

  // Sets an answer from `value`: "!NAME" is a return code, anything else goes to `parse`.
  template <typename T, typename ParseFn>
  Status Set(std::string_view value, Answer<T>& answer, ParseFn parse) {
    if (!value.empty() && value.front() == '!') return Code(value, answer.rc);
    T parsed{};
    if (!parse(value, parsed)) return Fail("bad value '" + std::string(value) + "'");
    answer.Set(std::move(parsed));
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

  Capture capture_;
  CaptureSection section_ = CaptureSection::kNone;
  MigFacts* mig_ = nullptr;
  std::vector<ExplicitCodes> explicit_;
  bool in_frame_ = false;
  size_t line_number_ = 0;
};

}  // namespace kraken::nvml::capture_text
