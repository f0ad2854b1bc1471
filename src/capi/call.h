// How every C API function ends: the document copied into memory the caller frees with
// kraken_free, or the status and message kept for kraken_last_error on this thread. No
// exception ever leaves a call.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "kraken/kraken.h"

namespace kraken::capi {

// What one call produced: a document, or a status and its message.
class Outcome {
 public:
  Outcome(std::string document) : document_(std::move(document)) {}  // NOLINT: implicit on purpose
  Outcome(const Status& status);                                        // NOLINT
  Outcome(Result<std::string> result);                                  // NOLINT
  // The call itself is wrong (KRAKEN_ERROR_INVALID_ARGUMENT).
  static Outcome BadArgument(std::string message);

  kraken_status code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string& document() { return document_; }

 private:
  Outcome() = default;
  kraken_status code_ = KRAKEN_OK;
  std::string message_;
  std::string document_;
};

// Runs `body`; on success hands its document to *out (NULL on failure). `out` NULL is
// itself a bad argument.
kraken_status Deliver(char** out, const std::function<Outcome()>& body);
// Runs `body`, which produces no document.
kraken_status Perform(const std::function<Outcome()>& body);

// The C array of inputs as strings; a NULL array (with a count) or element is an error.
Outcome ReadInputs(const char* const* inputs, size_t count, std::vector<std::string>* out);

}  // namespace kraken::capi
