#include "collectors/cupti/kineto_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cmath>

namespace kraken::cupti {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  size_t length = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + length > s.size()) return 0;
  for (size_t k = 1; k < length; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return length;
}

void AppendInt(std::string& out, int64_t value) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, static_cast<size_t>(end - buffer));
}

void AppendDouble(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, static_cast<size_t>(end - buffer));
}

// Creates the folders above `path` that do not exist yet, as torch.profiler's trace handler
// does: KRAKEN_CUPTI_OUTPUT=runs/job-7/ should not need a mkdir before every run (a missing
// folder used to leave a whole run untraced, with one line on stderr). Stops at the first
// folder it cannot create; the open that follows then reports the path and why.
void CreateMissingFolders(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    std::string folder = path.substr(0, slash);
    if (::mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST) return;
  }
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    // Runs of plain ASCII (most of every name) are appended whole.
    size_t run = i;
    while (run < text.size()) {
      auto c = static_cast<unsigned char>(text[run]);
      if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
      ++run;
    }
    out.append(text.data() + i, run - i);
    i = run;
    if (i == text.size()) break;
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      size_t length = Utf8SequenceLength(text, i);
      if (length == 0) {
        out.push_back('?');
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
    ++i;
  }
  out.push_back('"');
}

void AppendMicros(std::string& out, int64_t ns) {
  if (ns < 0) {
    out.push_back('-');
    // -INT64_MIN overflows; such a timestamp is nonsense anyway.
    ns = ns == INT64_MIN ? INT64_MAX : -ns;
  }
  AppendInt(out, ns / 1000);
  int64_t fraction = ns % 1000;
  out.push_back('.');
  out.push_back(static_cast<char>('0' + fraction / 100));
  out.push_back(static_cast<char>('0' + fraction / 10 % 10));
  out.push_back(static_cast<char>('0' + fraction % 10));
}

std::string JsonString(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

std::string JsonInt(int64_t value) {
  std::string out;
  AppendInt(out, value);
  return out;
}

std::string JsonNumber(double value) {
  std::string out;
  AppendDouble(out, value);
  return out;
}

std::unique_ptr<KinetoTraceWriter> KinetoTraceWriter::Open(const std::string& path, int64_t base_time_ns,
                                                           const JsonMembers& header, std::string* error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ENOENT) {
    CreateMissingFolders(path);
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  if (fd < 0) {
    *error = "cannot create " + path + ": " + strerror(errno);
    return nullptr;
  }
  std::unique_ptr<KinetoTraceWriter> writer(new KinetoTraceWriter(fd, base_time_ns));
  std::string& text = writer->pending_;
  text = "{\n  \"schemaVersion\": 1";
  for (const auto& [name, value] : header) {
    text += ",\n  ";
    AppendJsonString(text, name);
    text += ": " + value;
  }
  text += ",\n  \"baseTimeNanoseconds\": " + JsonInt(base_time_ns);
  text += ",\n  \"displayTimeUnit\": \"ms\",\n  \"incrementalEvents\": true,\n  \"traceEvents\": [";
  if (!writer->Flush()) {
    *error = writer->error_;
    return nullptr;
  }
  return writer;
}

KinetoTraceWriter::~KinetoTraceWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void KinetoTraceWriter::AppendArgs(const TraceEvent& event) {
  if (event.arg_count == 0) return;
  pending_ += ",\"args\":{";
  for (int i = 0; i < event.arg_count; ++i) {
    const TraceArg& arg = event.args[static_cast<size_t>(i)];
    if (i > 0) pending_.push_back(',');
    AppendJsonString(pending_, arg.key);
    pending_.push_back(':');
    switch (arg.type) {
      case TraceArg::Type::kInt: AppendInt(pending_, arg.int_value); break;
      case TraceArg::Type::kDouble: AppendDouble(pending_, arg.double_value); break;
      case TraceArg::Type::kString: AppendJsonString(pending_, arg.string_value); break;
      case TraceArg::Type::kDim3:
        pending_.push_back('[');
        for (size_t d = 0; d < 3; ++d) {
          if (d > 0) pending_.push_back(',');
          AppendInt(pending_, arg.dim3[d]);
        }
        pending_.push_back(']');
        break;
    }
  }
  pending_.push_back('}');
}

void KinetoTraceWriter::AppendPlace(const TraceEvent& event) {
  pending_ += ",\"pid\":";
  AppendInt(pending_, event.pid);
  pending_ += ",\"tid\":";
  AppendInt(pending_, event.tid);
  pending_ += ",\"ts\":";
  AppendMicros(pending_, event.start_ns - base_time_ns_);
}

void KinetoTraceWriter::AppendFlow(const TraceEvent& event) {
  pending_ += "\n,{\"ph\":\"";
  pending_.push_back(event.flow == FlowPhase::kStart ? 's' : 'f');
  pending_ += "\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":";
  AppendInt(pending_, event.flow_id);
  AppendPlace(event);
  if (event.flow == FlowPhase::kFinish) pending_ += ",\"bp\":\"e\"";
  pending_.push_back('}');
}

void KinetoTraceWriter::Emit(const TraceEvent& event) {
  // One event per line, each line starting with its separator: a file cut at a line's end
  // ends with a complete event, and with "]}" appended it is valid JSON (drop a partial
  // last line first).
  pending_ += first_event_ ? "\n{\"ph\":\"" : "\n,{\"ph\":\"";
  first_event_ = false;
  pending_.push_back(event.phase);
  pending_ += "\",\"cat\":";
  AppendJsonString(pending_, event.category);
  pending_ += ",\"name\":";
  AppendJsonString(pending_, event.name);
  AppendPlace(event);
  if (event.phase == 'X') {
    pending_ += ",\"dur\":";
    AppendMicros(pending_, event.duration_ns);
  } else if (event.phase == 'i') {
    pending_ += ",\"s\":\"t\"";
  }
  AppendArgs(event);
  pending_.push_back('}');
  ++events_;
  if (event.flow != FlowPhase::kNone) AppendFlow(event);
}

bool KinetoTraceWriter::WriteAll(std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = std::string("write failed: ") + (n < 0 ? strerror(errno) : "no progress");
      failed_ = true;
      return false;
    }
    bytes_written_ += n;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool KinetoTraceWriter::Flush() {
  if (failed_ || fd_ < 0) {
    pending_.clear();
    return false;
  }
  bool ok = WriteAll(pending_);
  pending_.clear();
  return ok;
}

bool KinetoTraceWriter::Finish(const JsonMembers& footer) {
  pending_ += "\n  ]";
  for (const auto& [name, value] : footer) {
    pending_ += ",\n  ";
    AppendJsonString(pending_, name);
    pending_ += ": " + value;
  }
  pending_ += "\n}\n";
  bool ok = Flush();
  if (fd_ >= 0) {
    if (::close(fd_) != 0 && ok) {
      error_ = std::string("close failed: ") + strerror(errno);
      ok = false;
    }
    fd_ = -1;
  }
  return ok;
}

}  // namespace kraken::cupti
