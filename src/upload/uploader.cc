#include "upload/uploader.h"

#include <httplib.h>

#include <chrono>
#include <thread>

#include "base/small_file.h"
#include "base/text.h"

namespace kraken::upload {
namespace {

std::string OneLine(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text.size() > 300 ? text.substr(0, 300) + "..." : text;
}

std::string QueryEscape(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

}  // namespace

Result<std::string> ReadUploadToken(const std::string& path) {
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path, 64 * kKiB, "the token file"));
  std::string_view first = text;
  if (size_t newline = first.find('\n'); newline != std::string_view::npos) first = first.substr(0, newline);
  first = Trim(first);
  if (first.empty()) return InvalidInput(path + ": the token file is empty");
  return std::string(first);
}

Status CheckUploadUrl(const std::string& url) {
  std::string_view rest = url;
  if (StartsWith(rest, "http://")) {
    rest.remove_prefix(7);
  } else if (StartsWith(rest, "https://")) {
    rest.remove_prefix(8);
  } else {
    return InvalidInput("--upload-to '" + url + "': give http://HOST[:PORT] or https://HOST[:PORT]");
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.empty() || rest.find('/') != std::string_view::npos || rest.find('?') != std::string_view::npos)
    return InvalidInput("--upload-to '" + url + "': give the API's address only (http://HOST[:PORT]), no path");
  return Status::Ok();
}

SendResult SendUpload(const UploadTarget& target, const SpoolEntry& entry, const std::string& body) {
  std::string base = target.url;
  if (!base.empty() && base.back() == '/') base.pop_back();
  httplib::Client client(base);
  client.set_connection_timeout(target.timeout_s, 0);
  client.set_read_timeout(target.timeout_s, 0);
  client.set_write_timeout(target.timeout_s, 0);
  httplib::Headers headers = {{"Idempotency-Key", "sha256:" + entry.key}};
  if (!target.token.empty()) headers.emplace("Authorization", "Bearer " + target.token);
  auto answer = client.Post("/api/v1/profiles?name=" + QueryEscape(entry.name), headers, body,
                            "application/octet-stream");
  SendResult result;
  if (!answer) {
    result.message = "POST " + base + "/api/v1/profiles: " + httplib::to_string(answer.error());
    return result;  // kRetry: the API is down, restarting, or the network is
  }
  int status = answer->status;
  result.message = "POST " + base + "/api/v1/profiles: HTTP " + std::to_string(status) + " " + OneLine(answer->body);
  if (status == 201) result.outcome = SendOutcome::kStored;
  else if (status == 200) result.outcome = SendOutcome::kDuplicate;
  else if (status >= 500 || status == 408 || status == 429) result.outcome = SendOutcome::kRetry;
  else result.outcome = SendOutcome::kRejected;
  return result;
}

DrainReport DrainSpool(UploadSpool& spool, const UploadTarget& target, const RetryPolicy& policy,
                       const std::function<bool()>& stop) {
  DrainReport report;
  auto started = std::chrono::steady_clock::now();
  auto elapsed_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  };
  auto entries = spool.List();
  if (!entries.ok()) {
    report.last_error = entries.status().message();
    return report;
  }
  size_t next = 0;
  int64_t backoff_ms = policy.first_backoff_ms;
  while (next < entries->size()) {
    if (stop && stop()) break;
    const SpoolEntry& entry = (*entries)[next];
    auto body = spool.Read(entry);
    if (!body.ok()) {  // another drain (a second kraken) sent it meanwhile
      ++next;
      continue;
    }
    ++report.attempts;
    SendResult sent = SendUpload(target, entry, *body);
    if (sent.outcome == SendOutcome::kRetry) {
      report.last_error = sent.message;
      if (elapsed_ms() + backoff_ms > policy.give_up_after_ms) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
      backoff_ms = std::min(backoff_ms * 2, policy.max_backoff_ms);
      continue;
    }
    backoff_ms = policy.first_backoff_ms;
    if (sent.outcome == SendOutcome::kRejected) {
      report.last_error = sent.message;
      ++report.rejected;
      (void)spool.Reject(entry);
    } else {
      ++(sent.outcome == SendOutcome::kStored ? report.stored : report.duplicates);
      (void)spool.Remove(entry);
    }
    ++next;
  }
  report.left = static_cast<int>(entries->size() - next);
  return report;
}

}  // namespace kraken::upload
