// POST /api/v1/profiles: a profile file as the raw body, streamed to a temporary file
// (never held whole in memory, refused past --max-body), imported with the registry's
// sniffing like `kraken import`, and saved in the store.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "base/json_writer.h"
#include "base/text.h"
#include "importers/builtin_importers.h"
#include "importers/registry.h"
#include "server/http_util.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

// A temporary file deleted with this object. The suffix keeps the upload's extensions
// (".json.gz"), which some importers' messages and the driver's gzip/tar checks read.
class TempFile {
 public:
  explicit TempFile(const std::string& suffix) {
    std::string pattern = (std::filesystem::temp_directory_path() / "kraken-upload-XXXXXX").string() + suffix;
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    fd_ = ::mkstemps(buffer.data(), static_cast<int>(suffix.size()));
    if (fd_ >= 0) path_ = buffer.data();
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

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
  std::string path_;
};

// Only the characters a file name suffix needs; anything else is dropped.
std::string SafeSuffix(const std::string& name) {
  std::string base(BaseName(name));
  size_t dot = base.find('.');
  std::string suffix;
  if (dot == std::string::npos) return suffix;
  for (char c : base.substr(dot))
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') suffix += c;
  return suffix.substr(0, 32);
}

bool AcceptedType(const std::string& type) {
  if (type.empty()) return true;
  for (const char* accepted : {"application/octet-stream", "application/json", "application/gzip",
                               "application/x-gzip", "application/x-tar", "text/plain", "text/csv"})
    if (StartsWith(type, accepted)) return true;
  return false;
}

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); !from.empty() && at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

void HandleUpload(ServerContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const httplib::ContentReader& reader) {
  // A refusal before the body is read leaves it in the socket: the connection must end.
  res.set_header("Connection", "close");
  if (!Authorized(req, ctx.options.token))
    return SendError(res, 401, "unauthorized", "this server needs 'Authorization: Bearer <token>' for writes");
  std::string type = req.get_header_value("Content-Type");
  if (req.is_multipart_form_data() || !AcceptedType(type))
    return SendError(res, 415, "unsupported_media_type",
                     "send the file as the raw body (application/octet-stream), not " + type);
  const int64_t limit = ctx.options.max_body_bytes;
  if (req.has_header("Content-Length")) {
    auto length = ParseInt64(req.get_header_value("Content-Length"));
    if (length && *length > limit)
      return SendError(res, 413, "payload_too_large",
                       "the body has " + std::to_string(*length) + " bytes, the limit is " + std::to_string(limit));
  }
  std::string name = req.has_param("name") ? std::string(BaseName(req.get_param_value("name"))) : "upload";
  if (name.empty()) name = "upload";
  TempFile file(SafeSuffix(name));
  if (!file.ok()) return SendError(res, 500, "internal", "cannot create a temporary file");
  int64_t received = 0;
  bool too_large = false, write_failed = false;
  bool complete = reader([&](const char* data, size_t size) {
    received += static_cast<int64_t>(size);
    if (received > limit) {
      too_large = true;
      return false;
    }
    if (!file.Write(data, size)) {
      write_failed = true;
      return false;
    }
    return true;
  });
  if (too_large)
    return SendError(res, 413, "payload_too_large", "the body is larger than the limit of " + std::to_string(limit) +
                                                        " bytes");
  if (write_failed) return SendError(res, 500, "internal", "the temporary file could not be written (disk full?)");
  if (!complete) return SendError(res, 400, "bad_request", "the body ended early");
  if (received == 0) return SendError(res, 400, "bad_request", "the body is empty: send the profile file");
  file.Close();
  res.headers.erase("Connection");

  auto imported = ImportFile(BuiltinImporters(), file.path());
  if (!imported.ok()) {
    std::string message = ReplaceAll(imported.status().message(), file.path(), name);
    return SendError(res, imported.status().code() == StatusCode::kIoError ? 500 : 422,
                     imported.status().code() == StatusCode::kIoError ? "internal" : "unprocessable", message);
  }
  if (imported->empty()) return SendError(res, 422, "unprocessable", name + ": no profile in the file");
  auto store = ctx.store->Acquire();
  if (!store.ok()) return SendStatus(res, store.status());
  std::vector<int64_t> ids;
  for (Profile& profile : *imported) {
    profile.metadata.source = ReplaceAll(profile.metadata.source, file.path(), name);
    auto id = (*store)->SaveProfile(profile);
    if (!id.ok()) return SendStatus(res, id.status());
    ids.push_back(*id);
  }
  const Profile& first = imported->front();
  JsonWriter json(false);
  json.BeginObject().Field("id", ids.front()).Key("ids").BeginArray();
  for (int64_t id : ids) json.Int(id);
  json.EndArray().Field("format", first.metadata.format).Field("source", first.metadata.source);
  json.Field("kernels", static_cast<int64_t>(first.kernels.size()));
  json.Field("memory_ops", static_cast<int64_t>(first.memory_ops.size())).EndObject();
  SendJson(res, 201, json.Take());
}

}  // namespace

void AddUploadRoute(httplib::Server& server, ServerContext& ctx) {
  server.Post("/api/v1/profiles",
              [&ctx](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
                HandleUpload(ctx, req, res, reader);
              });
}

}  // namespace kraken::server
