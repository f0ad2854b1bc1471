#include "server/http_util.h"

#include <ctime>
#include <limits>

#include "base/json_writer.h"
#include "base/number_input.h"
#include "base/text.h"
#include "server/http_hardening.h"
#include "server/response_compression.h"

namespace kraken::server {

void SendJson(httplib::Response& res, int status, std::string body) {
  res.status = status;
  const char* type = JsonTypeFor(body.size());
  res.set_content(std::move(body), type);
}

void SendError(httplib::Response& res, int status, std::string_view code, std::string_view message, bool legacy) {
  JsonWriter json(false);
  json.BeginObject();
  if (legacy) json.Field("ok", false);
  json.Key("error").BeginObject().Field("code", code).Field("message", message).EndObject();
  json.EndObject();
  SendJson(res, status, json.Take());
}

void SendStatus(httplib::Response& res, const Status& status, int bad_input_status) {
  switch (status.code()) {
    case StatusCode::kNotFound:
      SendError(res, 404, "not_found", status.message());
      return;
    case StatusCode::kInvalidInput:
    case StatusCode::kUnsupported:
      SendError(res, bad_input_status, bad_input_status == 422 ? "unprocessable" : "bad_request", status.message());
      return;
    case StatusCode::kUnavailable:
      // A service the server reads (Prometheus, PostgreSQL) is down or too slow: not a bug
      // in kraken, and worth retrying, which is what 503 + Retry-After tell a client.
      res.set_header("Retry-After", std::to_string(kUnavailableRetryAfterS));
      SendError(res, 503, "unavailable", status.message());
      return;
    default:
      SendError(res, 500, "internal", status.message());
  }
}

bool Authorized(const httplib::Request& req, const std::string& token) { return BearerTokenMatches(req, token); }

std::optional<int64_t> ParsePositiveId(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  for (char c : text)
    if (c < '0' || c > '9') return std::nullopt;
  auto value = ParseInt64(text);
  if (!value || *value <= 0) return std::nullopt;
  return value;
}

Result<int64_t> IntParam(const httplib::Request& req, const char* name, int64_t fallback, int64_t low,
                         int64_t high) {
  if (!req.has_param(name)) return fallback;
  std::string text = req.get_param_value(name);
  auto value = ParseInt64(Trim(text));
  if (!value || *value < low || *value > high)
    return InvalidInput(std::string(name) + " must be an integer from " + std::to_string(low) + " to " +
                        std::to_string(high) + ", got '" + text + "'");
  return *value;
}

Result<double> FiniteNumberParam(const httplib::Request& req, const char* name, double fallback) {
  if (!req.has_param(name)) return fallback;
  std::string text = req.get_param_value(name);
  auto value = ParseBoundedNumber(Trim(text), -std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
  if (!value) return InvalidInput(std::string(name) + " must be a finite number, got '" + text + "'");
  return *value;
}

Result<bool> BoolParam(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) return false;
  std::string text = req.get_param_value(name);
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  return InvalidInput(std::string(name) + " must be true or false, got '" + text + "'");
}

std::string Rfc3339Utc(int64_t time_ns) {
  std::time_t seconds = static_cast<std::time_t>(time_ns / 1'000'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace kraken::server
