#include "app/upload_request.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>

#include "base/duration.h"
#include "base/json_writer.h"
#include "base/log.h"
#include "base/sha256.h"
#include "base/small_file.h"
#include "base/text.h"
#include "report/profile_export.h"

namespace kraken::app {
namespace {

ShipReport Drain(upload::UploadSpool& spool, const UploadSettings& settings, ShipReport report,
                 const std::function<bool()>& stop = {}) {
  upload::UploadTarget target;
  target.url = settings.url;
  if (!settings.token_file.empty()) {
    auto token = upload::ReadUploadToken(settings.token_file);
    if (!token.ok()) {
      report.warning = token.status().message() + "; uploads stay in " + spool.dir();
      return report;
    }
    target.token = *token;
  }
  report.sent = upload::DrainSpool(spool, target, settings.retry, stop);
  if (report.sent.left > 0 && report.warning.empty())
    report.warning = "the API did not take " + std::to_string(report.sent.left) + " upload(s) (" +
                     report.sent.last_error + "); they stay in " + spool.dir() + " for the next try";
  else if (report.sent.rejected > 0 && report.warning.empty())
    report.warning = "the API refused " + std::to_string(report.sent.rejected) + " upload(s) (" +
                     report.sent.last_error + "); moved to " + spool.dir() + "/rejected";
  return report;
}

}  // namespace

UploadSettings UploadSettingsFrom(const config::KrakenConfig& config) {
  UploadSettings s;
  s.url = config.upload_url;
  s.token_file = config.upload_token_file;
  s.spool_dir = config.upload_spool;
  s.spool_max_bytes = config.upload_spool_max_bytes;
  s.retry.give_up_after_ms = config.upload_retry_ns / 1'000'000;
  return s;
}

Result<UploadSettings> UploadSettingsOf(const std::string& url, const std::string& token_file,
                                        const std::string& spool_dir, const std::string& retry_for) {
  UploadSettings s;
  s.url = url;
  s.token_file = token_file;
  s.spool_dir = spool_dir;
  if (!retry_for.empty()) {
    std::optional<int64_t> ns = ParseDurationNs(retry_for);
    if (!ns || *ns < 0) return InvalidInput("upload_retry_for: '" + retry_for + "' is not a duration such as 30s");
    s.retry.give_up_after_ms = *ns / 1'000'000;
  }
  KRAKEN_RETURN_IF_ERROR(CheckUploadSettings(s));
  return s;
}

std::string DefaultUploadSpool() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && *state == '/')
    return std::string(state) + "/kraken/upload-spool";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/')
    return std::string(home) + "/.local/state/kraken/upload-spool";
  return "/tmp/kraken-upload-spool-" + std::to_string(::getuid());
}

Status CheckUploadSettings(const UploadSettings& settings) {
  if (!settings.enabled()) {
    if (!settings.token_file.empty()) return InvalidInput("--token-file is given without --upload-to");
    return Status::Ok();
  }
  KRAKEN_RETURN_IF_ERROR(upload::CheckUploadUrl(settings.url));
  if (!settings.token_file.empty()) KRAKEN_RETURN_IF_ERROR(upload::ReadUploadToken(settings.token_file).status());
  return Status::Ok();
}

std::string ShipReport::Summary() const {
  std::string line = "upload: ";
  if (queued) line += key.substr(0, 12) + " spooled; ";
  line += std::to_string(sent.stored) + " sent, " + std::to_string(sent.duplicates) + " already there, " +
          std::to_string(sent.left) + " waiting";
  if (sent.rejected > 0) line += ", " + std::to_string(sent.rejected) + " refused";
  if (sent.attempts > 0) line += " (" + std::to_string(sent.attempts) + " POSTs)";
  return line;
}

ShipReport ShipProfile(const Profile& profile, const std::string& name, const UploadSettings& settings) {
  ShipReport report;
  auto spool = upload::UploadSpool::Open(settings.spool_dir.empty() ? DefaultUploadSpool() : settings.spool_dir,
                                         settings.spool_max_bytes);
  if (!spool.ok()) {
    report.warning = spool.status().message() + "; the profile was not queued for upload";
    return report;
  }
  JsonWriter json;
  WriteProfileJson(profile, json);
  auto added = spool->Add(name, json.Take());
  if (added.ok()) {
    report.queued = true;
    report.key = added->key;
  } else {
    report.warning = added.status().message();
  }
  return Drain(*spool, settings, std::move(report));
}

ShipReport ShipFile(const std::string& path, const UploadSettings& settings) {
  ShipReport report;
  auto spool = upload::UploadSpool::Open(settings.spool_dir.empty() ? DefaultUploadSpool() : settings.spool_dir,
                                         settings.spool_max_bytes);
  if (!spool.ok()) {
    report.warning = spool.status().message();
    return report;
  }
  auto body = ReadSmallFile(path, static_cast<size_t>(settings.spool_max_bytes), "the profile file");
  if (!body.ok()) {
    report.warning = body.status().message();
    return report;
  }
  auto added = spool->Add(std::string(BaseName(path)), *body);
  if (added.ok()) {
    report.queued = true;
    report.key = added->key;
  } else {
    report.warning = added.status().message();
  }
  return Drain(*spool, settings, std::move(report));
}

ShipReport DrainUploads(const UploadSettings& settings, const std::function<bool()>& stop) {
  ShipReport report;
  auto spool = upload::UploadSpool::Open(settings.spool_dir.empty() ? DefaultUploadSpool() : settings.spool_dir,
                                         settings.spool_max_bytes);
  if (!spool.ok()) {
    report.warning = spool.status().message();
    return report;
  }
  return Drain(*spool, settings, std::move(report), stop);
}

struct UploadWorker::State {
  UploadSettings settings;
  int64_t retry_every_ms = 0;
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  bool pending = false;
  int64_t drains = 0;
  std::thread thread;
};

UploadWorker::UploadWorker(UploadSettings settings, int64_t retry_every_ms) : state_(std::make_unique<State>()) {
  state_->settings = std::move(settings);
  state_->retry_every_ms = retry_every_ms;
  state_->pending = true;  // what an earlier run left is sent at start
  state_->thread = std::thread([this] { Run(); });
}

UploadWorker::~UploadWorker() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stop = true;
  }
  state_->wake.notify_all();
  state_->thread.join();
}

void UploadWorker::Ship(const Profile& profile, const std::string& name) {
  auto spool = upload::UploadSpool::Open(
      state_->settings.spool_dir.empty() ? DefaultUploadSpool() : state_->settings.spool_dir,
      state_->settings.spool_max_bytes);
  JsonWriter json;
  WriteProfileJson(profile, json);
  Status added = spool.ok() ? spool->Add(name, json.Take()).status() : spool.status();
  if (!added.ok()) Log(LogLevel::kWarn, "upload: %s", added.message().c_str());
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->pending = true;
  }
  state_->wake.notify_all();
}

int64_t UploadWorker::drains() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->drains;
}

void UploadWorker::Run() {
  std::unique_lock<std::mutex> lock(state_->mutex);
  while (!state_->stop) {
    state_->wake.wait_for(lock, std::chrono::milliseconds(state_->retry_every_ms),
                          [this] { return state_->stop || state_->pending; });
    if (state_->stop) break;
    state_->pending = false;
    lock.unlock();
    ShipReport report = DrainUploads(state_->settings, [this] {
      std::lock_guard<std::mutex> stop_lock(state_->mutex);
      return state_->stop;
    });
    lock.lock();
    ++state_->drains;
    // A stop can cut this drain short before it sent what it was woken for (the agent's
    // last window, shipped just before the stop): that is still pending for the last try,
    // which reports it; a warning here would say "not taken" of an upload about to be sent.
    const bool cut_by_stop = state_->stop && report.sent.left > 0;
    if (cut_by_stop) state_->pending = true;
    lock.unlock();
    if (report.sent.attempts > 0 || !report.warning.empty()) Log(LogLevel::kInfo, "%s", report.Summary().c_str());
    if (!report.warning.empty() && !cut_by_stop) Log(LogLevel::kWarn, "upload: %s", report.warning.c_str());
    lock.lock();
  }
  // Stopping with a window just shipped (the agent's last commit): one short last try, so
  // that a clean stop with the API up leaves nothing behind; else it waits in the spool.
  if (!state_->pending) return;
  lock.unlock();
  UploadSettings last = state_->settings;
  last.retry.give_up_after_ms = std::min<int64_t>(last.retry.give_up_after_ms, 5'000);
  ShipReport report = DrainUploads(last);
  Log(LogLevel::kInfo, "%s", report.Summary().c_str());
  if (!report.warning.empty()) Log(LogLevel::kWarn, "upload: %s", report.warning.c_str());
}

}  // namespace kraken::app
