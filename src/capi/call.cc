#include "capi/call.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

namespace kraken::capi {
namespace {

// The last call's outcome on this thread (kraken_last_error, kraken_last_error_code).
thread_local std::string t_last_error;
thread_local kraken_status t_last_code = KRAKEN_OK;

kraken_status CodeOf(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return KRAKEN_OK;
    case StatusCode::kInvalidInput: return KRAKEN_ERROR_INVALID_INPUT;
    case StatusCode::kNotFound: return KRAKEN_ERROR_NOT_FOUND;
    case StatusCode::kIoError: return KRAKEN_ERROR_IO;
    case StatusCode::kUnsupported: return KRAKEN_ERROR_UNSUPPORTED;
    case StatusCode::kUnavailable: return KRAKEN_ERROR_UNAVAILABLE;
    case StatusCode::kInternal: return KRAKEN_ERROR_INTERNAL;
  }
  return KRAKEN_ERROR_INTERNAL;
}

// One line, like the CLI's "kraken: error: ..." line.
std::string OneLine(std::string message) {
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  return message;
}

kraken_status Record(kraken_status code, const std::string& message) {
  t_last_code = code;
  t_last_error = code == KRAKEN_OK ? std::string() : OneLine(message);
  return code;
}

// Runs the body with every exception turned into KRAKEN_ERROR_INTERNAL.
Outcome Guarded(const std::function<Outcome()>& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kInternal, "out of memory");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, std::string("unexpected error: ") + e.what());
  } catch (...) {
    return Status(StatusCode::kInternal, "unexpected error");
  }
}

}  // namespace

Outcome::Outcome(const Status& status) : code_(CodeOf(status.code())), message_(status.message()) {}

Outcome::Outcome(Result<std::string> result) {
  if (result.ok()) {
    document_ = std::move(result).value();
  } else {
    code_ = CodeOf(result.status().code());
    message_ = result.status().message();
  }
}

Outcome Outcome::BadArgument(std::string message) {
  Outcome outcome;
  outcome.code_ = KRAKEN_ERROR_INVALID_ARGUMENT;
  outcome.message_ = std::move(message);
  return outcome;
}

kraken_status Deliver(char** out, const std::function<Outcome()>& body) {
  if (out == nullptr) return Record(KRAKEN_ERROR_INVALID_ARGUMENT, "the out pointer is NULL");
  *out = nullptr;
  Outcome outcome = Guarded(body);
  if (outcome.code() != KRAKEN_OK) return Record(outcome.code(), outcome.message());
  const std::string& document = outcome.document();
  char* copy = static_cast<char*>(std::malloc(document.size() + 1));
  if (copy == nullptr) return Record(KRAKEN_ERROR_INTERNAL, "out of memory");
  std::memcpy(copy, document.c_str(), document.size() + 1);
  *out = copy;
  return Record(KRAKEN_OK, "");
}

kraken_status Perform(const std::function<Outcome()>& body) {
  Outcome outcome = Guarded(body);
  return Record(outcome.code(), outcome.message());
}

Outcome ReadInputs(const char* const* inputs, size_t count, std::vector<std::string>* out) {
  if (inputs == nullptr && count > 0) return Outcome::BadArgument("the inputs array is NULL");
  for (size_t i = 0; i < count; ++i) {
    if (inputs[i] == nullptr) return Outcome::BadArgument("inputs[" + std::to_string(i) + "] is NULL");
    out->emplace_back(inputs[i]);
  }
  return Status::Ok();
}

}  // namespace kraken::capi

extern "C" {

const char* kraken_last_error(void) { return kraken::capi::t_last_error.c_str(); }
kraken_status kraken_last_error_code(void) { return kraken::capi::t_last_code; }
void kraken_free(char* document) { std::free(document); }

}  // extern "C"
