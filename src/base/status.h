// Status and Result<T>: how kraken reports an error that ends the work on one input.
//
// A bad *record* inside an otherwise readable file is not an error: importers count it
// in ImportStats and go on. A Status is for what stops the input as a whole (truncated
// file, wrong format, unreadable path). Its message is one line meant for a person:
// "<file>: <position>: <what is wrong>".
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace kraken {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,   // the input is malformed or not of the expected format
  kNotFound,       // a file, device or id that does not exist
  kIoError,        // the operating system refused a read or write
  kUnsupported,    // well-formed input that kraken cannot handle yet
  kInternal,       // a bug in kraken
  kUnavailable,    // a service that did not answer in time or refused the connection (kubelet socket)
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message starts with `context: `, e.g. the file name.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidInput(std::string message) {
  return Status(StatusCode::kInvalidInput, std::move(message));
}
inline Status IoError(std::string message) { return Status(StatusCode::kIoError, std::move(message)); }
inline Status NotFound(std::string message) { return Status(StatusCode::kNotFound, std::move(message)); }
inline Status Unavailable(std::string message) {
  return Status(StatusCode::kUnavailable, std::move(message));
}
inline Status Unsupported(std::string message) {
  return Status(StatusCode::kUnsupported, std::move(message));
}

// Either a value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit on purpose, like StatusOr.
  Result(Status status) : data_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(data_).ok() && "a Result holding a Status must hold an error");
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(data_);
  }
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace kraken

#define KRAKEN_CONCAT_INNER_(a, b) a##b
#define KRAKEN_CONCAT_(a, b) KRAKEN_CONCAT_INNER_(a, b)

#define KRAKEN_RETURN_IF_ERROR(expr)          \
  do {                                        \
    ::kraken::Status kraken_status_ = (expr); \
    if (!kraken_status_.ok()) return kraken_status_; \
  } while (0)

#define KRAKEN_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#define KRAKEN_ASSIGN_OR_RETURN(lhs, expr) \
  KRAKEN_ASSIGN_OR_RETURN_IMPL_(KRAKEN_CONCAT_(kraken_result_, __LINE__), lhs, expr)
