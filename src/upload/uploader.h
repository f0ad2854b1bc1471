// Sends spooled uploads to the central API (`kraken serve`'s POST /api/v1/profiles) with
// retries and backoff (docs/upload.md). An entry leaves the spool only when the server
// answered that it has it (201 stored, 200 stored before: the SHA-256 key is the same);
// a connection error, a timeout, 5xx, 408 or 429 leaves it for the next try; any other
// 4xx is a refusal for good (bad token, a file no importer reads) and moves it aside.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "upload/upload_spool.h"

namespace kraken::upload {

struct UploadTarget {
  std::string url;    // "http://kraken-api:8080" (scheme, host, port)
  std::string token;  // bearer token; "" = none
  int timeout_s = 30;
};

// The token of --token-file: its first line, trimmed. A missing or empty file is an error
// naming it.
Result<std::string> ReadUploadToken(const std::string& path);
// "http(s)://host[:port]" with nothing after it but an optional "/": else an error.
Status CheckUploadUrl(const std::string& url);

enum class SendOutcome { kStored, kDuplicate, kRetry, kRejected };

struct SendResult {
  SendOutcome outcome = SendOutcome::kRetry;
  std::string message;  // the server's answer or the connection error, one line
};

SendResult SendUpload(const UploadTarget& target, const SpoolEntry& entry, const std::string& body);

struct RetryPolicy {
  int64_t first_backoff_ms = 200;
  int64_t max_backoff_ms = 5'000;
  int64_t give_up_after_ms = 30'000;  // of one drain; what is left stays spooled
};

struct DrainReport {
  int stored = 0;
  int duplicates = 0;  // the server had them (an earlier try landed, its answer did not)
  int rejected = 0;
  int attempts = 0;
  int left = 0;        // still spooled when the drain ended
  std::string last_error;
};

// Sends every spooled entry, oldest first. A transient failure waits (doubling from
// first_backoff_ms up to max_backoff_ms) and tries the same entry again, until
// give_up_after_ms have passed since the drain began or `stop` says so.
DrainReport DrainSpool(UploadSpool& spool, const UploadTarget& target, const RetryPolicy& policy,
                       const std::function<bool()>& stop = {});

}  // namespace kraken::upload
