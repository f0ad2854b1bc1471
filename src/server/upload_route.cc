// POST /api/v1/profiles: a profile file as the raw body, streamed to a temporary file
// (never held whole in memory, refused past --max-body), imported with the registry's
// sniffing like `kraken import`, and saved in the store. Idempotent: the body's SHA-256
// keys the upload, and the same body again answers 200 with the ids stored the first
// time (docs/upload.md); an Idempotency-Key header, when sent, must be that digest.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "base/json_writer.h"
#include "base/sha256.h"
#include "base/text.h"
#include "base/text_replace.h"
#include "importers/builtin_importers.h"
#include "importers/registry.h"
#include "server/http_util.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

// The upload's file name with only the characters a path needs (others become '_').
std::string SafeFileName(const std::string& name) {
  std::string safe;
  for (char c : std::string(BaseName(name)))
    safe += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '_';
  if (safe.empty() || safe[0] == '.') safe.insert(safe.begin(), 'u');
  return safe.substr(0, 200);
}

// The body lands in a private temporary folder under the upload's own file name, so that
// everything importers derive from the name (the profile's source, a Helios sequence's
// series names, ".gz" and ".tar" checks) is what a `kraken import` of that file gives.
// The folder and file are deleted with this object.
class TempUpload {
 public:
  explicit TempUpload(const std::string& name) {
    std::string pattern = (std::filesystem::temp_directory_path() / "kraken-upload-XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (::mkdtemp(buffer.data()) == nullptr) return;
    dir_ = buffer.data();
    path_ = dir_ + "/" + SafeFileName(name);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  }
  ~TempUpload() {
    Close();
    if (!path_.empty()) ::unlink(path_.c_str());
    if (!dir_.empty()) ::rmdir(dir_.c_str());
  }
  TempUpload(const TempUpload&) = delete;
  TempUpload& operator=(const TempUpload&) = delete;

  bool ok() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  bool Write(const char* data, size_t size) {
    while (size > 0) {
      ssize_t n = ::write(fd_, data, size);
      if (n <= 0) return false;
      data += n;
      size -= static_cast<size_t>(n);
    }
    return true;
  }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  std::string dir_;
  std::string path_;
};

bool AcceptedType(const std::string& type) {
  if (type.empty()) return true;
  for (const char* accepted : {"application/octet-stream", "application/json", "application/gzip",
                               "application/x-gzip", "application/x-tar", "text/plain", "text/csv"})
    if (StartsWith(type, accepted)) return true;
  return false;
}

// 200 for a body stored before: its ids, and what the first upload stored.
void SendStoredUpload(httplib::Response& res, ProfileStore& store, const std::vector<int64_t>& ids,
                      const std::string& key) {
  auto info = store.GetProfileInfo(ids.front());
  if (!info.ok()) return SendStatus(res, info.status());
  JsonWriter json(false);
  json.BeginObject().Field("id", ids.front()).Key("ids").BeginArray();
  for (int64_t id : ids) json.Int(id);
  json.EndArray().Field("format", info->format).Field("source", info->source);
  json.Field("kernels", info->kernels).Field("memory_ops", info->memory_ops);
  json.Field("sha256", key).Field("duplicate", true).EndObject();
  SendJson(res, 200, json.Take());
}

// 201 for a body stored now: its ids, and what the first profile of the file holds.
void SendCreatedUpload(httplib::Response& res, const std::vector<int64_t>& ids, const Profile& first,
                       const std::string& key) {
  JsonWriter json(false);
  json.BeginObject().Field("id", ids.front()).Key("ids").BeginArray();
  for (int64_t id : ids) json.Int(id);
  json.EndArray().Field("format", first.metadata.format).Field("source", first.metadata.source);
  json.Field("kernels", static_cast<int64_t>(first.kernels.size()));
  json.Field("memory_ops", static_cast<int64_t>(first.memory_ops.size()));
  json.Field("sha256", key).Field("duplicate", false).EndObject();
  SendJson(res, 201, json.Take());
}

// The checks that need no body: true when the request was refused (the answer is sent).
bool RefusedBeforeBody(const ServerContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!Authorized(req, ctx.options.token)) {
    SendError(res, 401, "unauthorized", "this server needs 'Authorization: Bearer <token>' for writes");
    return true;
  }
  std::string type = req.get_header_value("Content-Type");
  if (req.is_multipart_form_data() || !AcceptedType(type)) {
    SendError(res, 415, "unsupported_media_type",
              "send the file as the raw body (application/octet-stream), not " + type);
    return true;
  }
  const int64_t limit = ctx.options.max_body_bytes;
  if (req.has_header("Content-Length")) {
    auto length = ParseInt64(req.get_header_value("Content-Length"));
    if (length && *length > limit) {
      SendError(res, 413, "payload_too_large",
                "the body has " + std::to_string(*length) + " bytes, the limit is " + std::to_string(limit));
      return true;
    }
  }
  return false;
}

// Streams the body into `file` and `digest`; false when it was refused (the answer is sent).
bool ReceiveBody(const httplib::ContentReader& reader, int64_t limit, TempUpload& file, Sha256Stream& digest,
                 httplib::Response& res) {
  int64_t received = 0;
  bool too_large = false, write_failed = false;
  bool complete = reader([&](const char* data, size_t size) {
    received += static_cast<int64_t>(size);
    if (received > limit) {
      too_large = true;
      return false;
    }
    digest.Update(std::string_view(data, size));
    if (!file.Write(data, size)) {
      write_failed = true;
      return false;
    }
    return true;
  });
  if (too_large) {
    SendError(res, 413, "payload_too_large",
              "the body is larger than the limit of " + std::to_string(limit) + " bytes");
    return false;
  }
  if (write_failed) {
    SendError(res, 500, "internal", "the temporary file could not be written (disk full?)");
    return false;
  }
  if (!complete) {
    SendError(res, 400, "bad_request", "the body ended early");
    return false;
  }
  if (received == 0) {
    SendError(res, 400, "bad_request", "the body is empty: send the profile file");
    return false;
  }
  return true;
}

// An Idempotency-Key header, when sent, must be the body's digest; false when it is not
// (the answer is sent).
bool IdempotencyKeyMatches(const httplib::Request& req, const std::string& key, httplib::Response& res) {
  std::string claimed = ToLower(Trim(req.get_header_value("Idempotency-Key")));
  if (StartsWith(claimed, "sha256:")) claimed = claimed.substr(7);
  if (!claimed.empty() && claimed != key) {
    SendError(res, 400, "bad_request",
              "Idempotency-Key " + claimed + " is not the body's SHA-256 " + key + " (the body changed?)");
    return false;
  }
  return true;
}

// A body stored before is answered from the store, without importing it again (the
// save after the import checks once more: two uploads of one body may both get there).
// True when answered (stored before, or the store failed).
bool AnsweredFromStore(ServerContext& ctx, const std::string& key, httplib::Response& res) {
  auto store = ctx.store->Acquire();
  if (!store.ok()) {
    SendStatus(res, store.status());
    return true;
  }
  auto known = (*store)->FindUpload(key);
  if (!known.ok()) {
    SendStatus(res, known.status());
    return true;
  }
  if (!known->empty()) {
    SendStoredUpload(res, **store, *known, key);
    return true;
  }
  return false;
}

// Imports the received file like `kraken import` and saves its profiles under the key;
// messages and sources name the upload, not the temporary path.
void ImportAndSave(ServerContext& ctx, const TempUpload& file, const std::string& name, const std::string& key,
                   httplib::Response& res) {
  auto imported = ImportFile(BuiltinImporters(), file.path());
  if (!imported.ok()) {
    std::string message = ReplaceAll(imported.status().message(), file.path(), name);
    return SendError(res, imported.status().code() == StatusCode::kIoError ? 500 : 422,
                     imported.status().code() == StatusCode::kIoError ? "internal" : "unprocessable", message);
  }
  if (imported->empty()) return SendError(res, 422, "unprocessable", name + ": no profile in the file");
  auto store = ctx.store->Acquire();
  if (!store.ok()) return SendStatus(res, store.status());
  for (Profile& profile : *imported) profile.metadata.source = ReplaceAll(profile.metadata.source, file.path(), name);
  auto saved = (*store)->SaveUpload(*imported, key);
  if (!saved.ok()) return SendStatus(res, saved.status());
  if (saved->duplicate) return SendStoredUpload(res, **store, saved->ids, key);
  SendCreatedUpload(res, saved->ids, imported->front(), key);
}

void HandleUpload(ServerContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const httplib::ContentReader& reader) {
  // A refusal before the body is read leaves it in the socket: the connection must end.
  res.set_header("Connection", "close");
  if (RefusedBeforeBody(ctx, req, res)) return;
  std::string name = req.has_param("name") ? SafeFileName(req.get_param_value("name")) : "upload";
  TempUpload file(name);
  if (!file.ok()) return SendError(res, 500, "internal", "cannot create a temporary file");
  Sha256Stream digest;
  if (!ReceiveBody(reader, ctx.options.max_body_bytes, file, digest, res)) return;
  file.Close();
  res.headers.erase("Connection");
  const std::string key = digest.HexDigest();
  if (!IdempotencyKeyMatches(req, key, res)) return;
  if (AnsweredFromStore(ctx, key, res)) return;
  ImportAndSave(ctx, file, name, key, res);
}

}  // namespace

void AddUploadRoute(httplib::Server& server, ServerContext& ctx) {
  server.Post("/api/v1/profiles",
              [&ctx](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
                HandleUpload(ctx, req, res, reader);
              });
}

}  // namespace kraken::server
