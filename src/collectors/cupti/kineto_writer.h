// Writes a Chrome trace in the Kineto schema incrementally: the header (schemaVersion,
// baseTimeNanoseconds, "incrementalEvents": true, "traceEvents": [) when the file is
// opened, then each event on its own line as it comes, then the closing members
// (deviceProperties, the tracer's counts) at the end. A writer killed at any point leaves
// a prefix that kraken's kineto importer reads up to the last complete event; for other
// tools, dropping a partial last line and appending "]}" makes it a valid JSON document
// (every event line starts with its separator).
//
// Timestamps are written in microseconds with three decimals (exact nanoseconds) relative
// to baseTimeNanoseconds, as current Kineto writes them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectors/cupti/trace_event.h"

namespace kraken::cupti {

// Top-level members as name and JSON text ("1", "\"text\"", "[...]"), in order.
using JsonMembers = std::vector<std::pair<std::string, std::string>>;

// Appends `text` as a JSON string (quotes included). Bytes that are not valid UTF-8 become
// '?', so that strict readers (Python's json, Perfetto) accept the file.
void AppendJsonString(std::string& out, std::string_view text);
// Appends `ns` as microseconds with exactly three decimals ("-0.001", "12.345").
void AppendMicros(std::string& out, int64_t ns);
// The JSON text of a string, an integer and a number (non-finite numbers become null).
std::string JsonString(std::string_view text);
std::string JsonInt(int64_t value);
std::string JsonNumber(double value);

class KinetoTraceWriter final : public TraceEventSink {
 public:
  // Creates (or truncates) `path` and writes `header` members, baseTimeNanoseconds,
  // "incrementalEvents": true and the opening of traceEvents. nullptr with *error set when
  // the file cannot be created.
  static std::unique_ptr<KinetoTraceWriter> Open(const std::string& path, int64_t base_time_ns,
                                                 const JsonMembers& header, std::string* error);
  ~KinetoTraceWriter() override;
  KinetoTraceWriter(const KinetoTraceWriter&) = delete;
  KinetoTraceWriter& operator=(const KinetoTraceWriter&) = delete;

  // Formats the event (and its flow event) into the pending text; nothing is written yet.
  void Emit(const TraceEvent& event) override;
  size_t pending_bytes() const { return pending_.size(); }
  // Writes the pending text. False once a write failed: later output is dropped.
  bool Flush();
  // Closes traceEvents, writes `footer` members and the closing brace, closes the file.
  bool Finish(const JsonMembers& footer);

  int64_t events() const { return events_; }
  int64_t bytes_written() const { return bytes_written_; }
  const std::string& error() const { return error_; }

 private:
  KinetoTraceWriter(int fd, int64_t base_time_ns) : fd_(fd), base_time_ns_(base_time_ns) {}
  void AppendArgs(const TraceEvent& event);
  // ,"pid":..,"tid":..,"ts":.. of an event and of its flow arrow.
  void AppendPlace(const TraceEvent& event);
  void AppendFlow(const TraceEvent& event);
  bool WriteAll(std::string_view text);

  int fd_ = -1;
  int64_t base_time_ns_ = 0;
  std::string pending_;
  bool first_event_ = true;
  bool failed_ = false;
  int64_t events_ = 0;
  int64_t bytes_written_ = 0;
  std::string error_;
};

}  // namespace kraken::cupti
