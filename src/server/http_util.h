// Small pieces every route shares: JSON responses, the one error shape, the bearer token
// check and the parsing of ids and query parameters.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace kraken::server {

inline constexpr const char* kJsonType = "application/json";

void SendJson(httplib::Response& res, int status, std::string body);

// {"error":{"code":..,"message":..}}; legacy endpoints add "ok":false for their clients.
void SendError(httplib::Response& res, int status, std::string_view code, std::string_view message,
               bool legacy = false);

// Seconds a 503 "unavailable" answer asks the client to wait (Retry-After), as the
// connection front does for a full stream budget.
inline constexpr int kUnavailableRetryAfterS = 5;

// A failed Status as an HTTP error: NotFound 404, InvalidInput/Unsupported 400 (or
// `bad_input_status`, e.g. 422 for uploads), Unavailable 503 with Retry-After, the rest 500.
void SendStatus(httplib::Response& res, const Status& status, int bad_input_status = 400);

// True when no token is configured or the request carries "Authorization: Bearer <token>".
bool Authorized(const httplib::Request& req, const std::string& token);

// "12" -> 12 (positive ids only); anything else -> nullopt.
std::optional<int64_t> ParsePositiveId(std::string_view text);

// The query parameter as an integer within [low, high]; absent -> fallback.
Result<int64_t> IntParam(const httplib::Request& req, const char* name, int64_t fallback, int64_t low,
                         int64_t high);

// The query parameter as a finite number (ParseBoundedNumber: "nan", "inf" and 1e999 never
// pass); absent -> fallback. Its range is the app layer's to check, so that a setting has
// one rule and one message on every front end.
Result<double> FiniteNumberParam(const httplib::Request& req, const char* name, double fallback);

// "true"/"1" or "false"/"0"; absent -> false.
Result<bool> BoolParam(const httplib::Request& req, const char* name);

// "2026-11-22T16:40:00Z" for a Unix-epoch time in ns.
std::string Rfc3339Utc(int64_t time_ns);

}  // namespace kraken::server
