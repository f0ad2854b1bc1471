#include "app/profiler_step_removal.h"

#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "app/profiler_step_copy.h"
#include "base/byte_stream.h"
#include "importers/common/json_stream_walker.h"
#include "importers/kineto/kineto_schema.h"

namespace kraken {
namespace {

namespace od = simdjson::ondemand;

bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Decides, event by event, what the copy leaves out: each event to remove, and one comma
// per removed event, so that commas stay exactly between consecutive kept events. A
// removed event takes the comma after it; the last event of the array has none, so when
// it is removed the comma after the last kept event goes instead.
class StepCutFinder {
 public:
  explicit StepCutFinder(std::string name) : name_(std::move(name)) {}

  void OnEvent(std::string_view event, uint64_t offset) {
    const bool remove = IsNamedStep(event);
    if (seen_any_) {
      StepCut gap{previous_end_, offset, /*comma_only=*/true};
      if (previous_removed_) {
        cuts_.push_back(gap);
      } else {
        gap_after_last_kept_ = gap;
      }
    }
    if (remove) cuts_.push_back({offset, offset + event.size(), false});
    kept_any_ = kept_any_ || !remove;
    seen_any_ = true;
    previous_removed_ = remove;
    previous_end_ = offset + event.size();
  }

  // The cuts in file order, once the array has ended.
  std::vector<StepCut> Finish() {
    if (previous_removed_ && kept_any_) cuts_.push_back(gap_after_last_kept_);
    std::sort(cuts_.begin(), cuts_.end(), [](const StepCut& a, const StepCut& b) { return a.begin < b.begin; });
    return std::move(cuts_);
  }

 private:
  // Whether `event` (readable kJsonReadPadding bytes past its end) is a complete event
  // with exactly this name.
  bool IsNamedStep(std::string_view event) {
    // Quick rejection, without parsing: an unescaped name appears literally, and only a
    // \u escape can spell a letter of it (or the "X"). Most events fail both searches.
    if (event.find(kineto::kProfilerStepPrefix) == std::string_view::npos &&
        event.find("\\u") == std::string_view::npos)
      return false;
    bool named = false;
    if (ParseIsNamedStep(event.data(), event.size(), event.size() + kJsonReadPadding, &named)) return named;
    // simdjson refuses bytes that are not UTF-8 and raw control characters. Neither can
    // be part of the ASCII name, so the event with them replaced matches exactly when
    // the original does; the original bytes are what the copy keeps.
    scratch_.assign(event);
    for (char& c : scratch_) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x80) c = '?';
      if (byte < 0x20 && !IsJsonSpace(c)) c = ' ';
    }
    scratch_.append(simdjson::SIMDJSON_PADDING, '\0');
    return ParseIsNamedStep(scratch_.data(), event.size(), scratch_.size(), &named) && named;
  }

  // Reads the top-level "ph" and "name" (the last of each, as a JSON object keeps the
  // last duplicate). False when the text is not a JSON object simdjson accepts.
  bool ParseIsNamedStep(const char* data, size_t size, size_t capacity, bool* named) {
    od::document doc;
    od::object object;
    if (parser_.iterate(data, size, capacity).get(doc) || doc.get_object().get(object)) return false;
    bool complete = false;
    bool name_matches = false;
    for (auto field_result : object) {
      od::field field;
      std::string_view key;
      if (std::move(field_result).get(field) || field.unescaped_key().get(key)) return false;
      if (key != "ph" && key != "name") continue;
      od::value value = field.value();
      od::json_type type;
      if (value.type().get(type)) return false;
      std::string_view text;
      if (type == od::json_type::string && value.get_string().get(text)) return false;
      const bool is_string = type == od::json_type::string;
      if (key == "ph") complete = is_string && text == "X";
      if (key == "name") name_matches = is_string && text == name_;
    }
    *named = complete && name_matches;
    return true;
  }

  std::string name_;
  od::parser parser_;
  std::string scratch_;
  std::vector<StepCut> cuts_;
  bool seen_any_ = false;
  bool kept_any_ = false;
  bool previous_removed_ = false;
  uint64_t previous_end_ = 0;
  StepCut gap_after_last_kept_;
};

// The cuts that remove the step from the trace at `path`, in file order (none when it
// has no such event); nullopt when the file is not a JSON object with "traceEvents".
Result<std::optional<std::vector<StepCut>>> FindStepCuts(const std::string& path, int64_t step_number) {
  KRAKEN_ASSIGN_OR_RETURN(std::unique_ptr<ByteStream> stream, OpenFileStream(path));
  StepCutFinder finder(std::string(kineto::kProfilerStepPrefix) + std::to_string(step_number));
  JsonStreamWalker walker(*stream, kineto::kTraceEvents);
  JsonStreamWalker::Callbacks callbacks;
  bool in_trace_events = false;
  callbacks.on_element = [&](std::string_view event, uint64_t offset) {
    // A bare top-level array is streamed too: it is no Kineto object.
    if (walker.current_array() != kineto::kTraceEvents) return;
    in_trace_events = true;
    finder.OnEvent(event, offset);
  };
  Status walked = walker.Walk(callbacks);
  if (!walked.ok() && walked.code() != StatusCode::kInvalidInput) return walked;  // a read failed
  // Not JSON, or not a trace with events: nothing to remove.
  if (!walked.ok() || !in_trace_events) return std::optional<std::vector<StepCut>>();
  return std::optional<std::vector<StepCut>>(finder.Finish());
}

}  // namespace

Result<bool> RemoveProfilerStep(const std::string& path, int64_t step_number) {
  std::error_code error;
  const auto type = std::filesystem::status(path, error).type();
  if (type == std::filesystem::file_type::not_found) return NotFound(path + ": no such file");
  if (type != std::filesystem::file_type::regular)
    return IoError(path + ": not a regular file" + (error ? ": " + error.message() : std::string()));
  // "-" would be read as standard input.
  const std::string file = path == "-" ? "./-" : path;
  auto cuts = FindStepCuts(file, step_number);
  if (!cuts.ok()) return cuts.status().WithContext(path);
  if (!cuts->has_value() || (*cuts)->empty()) return false;
  KRAKEN_RETURN_IF_ERROR(CopyWithoutCuts(file, **cuts).WithContext(path));
  return true;
}

}  // namespace kraken
