#include "importers/common/exposition_parser.h"

#include "base/text.h"
#include "model/dcgm_metric_catalog.h"

namespace kraken::prometheus {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsMetricNameChar(char c) { return IsAsciiLetter(c) || IsDigit(c) || c == '_' || c == ':'; }

// A cursor over one line; every read is bounds-checked.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool done() const { return pos_ >= text_.size(); }
  char peek() const { return done() ? '\0' : text_[pos_]; }
  void advance() { ++pos_; }
  // Skips spaces and tabs; returns how many were skipped.
  size_t SkipBlanks() {
    size_t start = pos_;
    while (!done() && IsBlank(text_[pos_])) ++pos_;
    return pos_ - start;
  }
  // Reads up to the next blank or the end of the line.
  std::string_view Token() {
    size_t start = pos_;
    while (!done() && !IsBlank(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  std::string_view Rest() const { return done() ? std::string_view() : text_.substr(pos_); }
  std::string_view TakeWhile(bool (*accept)(char)) {
    size_t start = pos_;
    while (!done() && accept(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

void SetInvalid(ExpositionLine* out, std::string error) {
  out->kind = LineKind::kInvalid;
  out->error = std::move(error);
}

bool IsKnownType(std::string_view type) {
  // 0.0.4 defines the first five; OpenMetrics writers add the others.
  for (std::string_view known : {"counter", "gauge", "histogram", "summary", "untyped", "unknown", "info",
                                 "stateset", "gaugehistogram"}) {
    if (type == known) return true;
  }
  return false;
}

// Docstrings escape only backslash and newline; any other backslash is kept as written.
std::string UnescapeHelp(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '\\' || text[i + 1] == 'n')) {
      out.push_back(text[i + 1] == 'n' ? '\n' : '\\');
      ++i;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

void ParseComment(Cursor cursor, ExpositionLine* out) {
  cursor.SkipBlanks();
  std::string_view keyword = cursor.Token();
  if (keyword != "HELP" && keyword != "TYPE") {
    out->kind = LineKind::kComment;
    return;
  }
  cursor.SkipBlanks();
  std::string_view name = cursor.Token();
  if (name.empty()) {  // "# HELP" and nothing else reads as a plain comment
    out->kind = LineKind::kComment;
    return;
  }
  if (!IsMetricName(name)) return SetInvalid(out, "invalid metric name '" + std::string(name) + "' in # " +
                                                      std::string(keyword));
  out->metric_name = std::string(name);
  cursor.SkipBlanks();
  if (keyword == "HELP") {
    out->kind = LineKind::kHelp;
    out->text = UnescapeHelp(cursor.Rest());
    return;
  }
  std::string_view type = cursor.Token();
  cursor.SkipBlanks();
  if (!IsKnownType(type) || !cursor.done()) {
    return SetInvalid(out, "unknown metric type '" + std::string(cursor.Rest().empty() ? type : cursor.Rest()) +
                               "' in # TYPE");
  }
  out->kind = LineKind::kType;
  out->text = std::string(type);
}

// Reads `"..."` with the escapes \\ \" \n into `value`.
bool ReadQuoted(Cursor& cursor, std::string* value, std::string* error) {
  if (cursor.peek() != '"') {
    *error = "label value must start with '\"'";
    return false;
  }
  cursor.advance();
  while (!cursor.done()) {
    char c = cursor.peek();
    cursor.advance();
    if (c == '"') return true;
    if (c != '\\') {
      value->push_back(c);
      continue;
    }
    char escaped = cursor.peek();
    if (escaped == '\\' || escaped == '"') {
      value->push_back(escaped);
    } else if (escaped == 'n') {
      value->push_back('\n');
    } else {
      *error = cursor.done() ? "unterminated label value" : "invalid escape sequence in label value";
      return false;
    }
    cursor.advance();
  }
  *error = "unterminated label value";
  return false;
}

bool ReadLabels(Cursor& cursor, ExpositionLine* out) {
  cursor.advance();  // '{'
  while (true) {
    cursor.SkipBlanks();
    if (cursor.peek() == '}') break;
    std::string_view name = cursor.TakeWhile(IsMetricNameChar);
    if (!IsLabelName(name)) {
      SetInvalid(out, cursor.done() ? "unterminated label set" : "invalid label name");
      return false;
    }
    for (const Label& label : out->labels) {
      if (label.name == name) {
        SetInvalid(out, "duplicate label '" + std::string(name) + "'");
        return false;
      }
    }
    cursor.SkipBlanks();
    if (cursor.peek() != '=') {
      SetInvalid(out, "expected '=' after label '" + std::string(name) + "'");
      return false;
    }
    cursor.advance();
    cursor.SkipBlanks();
    Label& label = out->labels.emplace_back();
    label.name = std::string(name);
    std::string error;
    if (!ReadQuoted(cursor, &label.value, &error)) {
      SetInvalid(out, error);
      return false;
    }
    cursor.SkipBlanks();
    if (cursor.peek() == ',') {
      cursor.advance();
      continue;
    }
    if (cursor.peek() != '}') {
      SetInvalid(out, cursor.done() ? "unterminated label set" : "expected ',' or '}' after a label value");
      return false;
    }
    break;
  }
  cursor.advance();  // '}'
  return true;
}

void ParseSample(Cursor cursor, ExpositionLine* out) {
  std::string_view name = cursor.TakeWhile(IsMetricNameChar);
  if (!IsMetricName(name)) return SetInvalid(out, "expected a metric name");
  out->metric_name = std::string(name);
  // Like Prometheus' own parser: blanks may precede the label set, and the value may
  // follow '}' directly; without labels a blank must separate name and value.
  size_t blanks = cursor.SkipBlanks();
  bool has_labels = cursor.peek() == '{';
  if (has_labels) {
    if (!ReadLabels(cursor, out)) return;
    cursor.SkipBlanks();
  }
  if (cursor.done()) return SetInvalid(out, "sample has no value");
  if (blanks == 0 && !has_labels) return SetInvalid(out, "expected a blank before the value");
  std::string_view value_text = cursor.Token();
  std::optional<double> value = ParseSampleValue(value_text);
  if (!value) return SetInvalid(out, "invalid sample value '" + std::string(value_text) + "'");
  cursor.SkipBlanks();
  if (!cursor.done()) {
    std::string_view timestamp = cursor.Token();
    std::optional<int64_t> ms = IsIntegerLiteral(timestamp) ? ParseInt64(timestamp) : std::nullopt;
    if (!ms) return SetInvalid(out, "invalid timestamp '" + std::string(timestamp) + "'");
    cursor.SkipBlanks();
    if (!cursor.done()) return SetInvalid(out, "unexpected text after the timestamp");
    out->timestamp_ms = *ms;
  }
  out->kind = LineKind::kSample;
  out->value_text = value_text;
  out->value = *value;
}

}  // namespace

bool IsMetricName(std::string_view name) {
  if (name.empty() || IsDigit(name[0])) return false;
  for (char c : name)
    if (!IsMetricNameChar(c)) return false;
  return true;
}

bool IsLabelName(std::string_view name) {
  if (name.empty() || IsDigit(name[0])) return false;
  for (char c : name)
    if (!IsAsciiLetter(c) && !IsDigit(c) && c != '_') return false;
  return true;
}

std::optional<double> ParseSampleValue(std::string_view text) {
  if (text.empty() || IsBlank(text.front()) || IsBlank(text.back())) return std::nullopt;
  // ParseDouble drops one leading '+'; a second sign after it is not a number.
  if (text.size() >= 2 && text[0] == '+' && (text[1] == '+' || text[1] == '-')) return std::nullopt;
  return ParseDouble(text);
}

void ParseExpositionLine(std::string_view line, ExpositionLine* out) {
  out->kind = LineKind::kBlank;
  out->metric_name.clear();
  out->text.clear();
  out->labels.clear();
  out->value_text = {};
  out->value = 0;
  out->timestamp_ms.reset();
  out->error.clear();
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  Cursor cursor(line);
  cursor.SkipBlanks();
  if (cursor.done()) return;
  if (cursor.peek() == '#') {
    cursor.advance();
    ParseComment(cursor, out);
    return;
  }
  ParseSample(cursor, out);
}

}  // namespace kraken::prometheus
