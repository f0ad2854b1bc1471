#include "server/http_hardening.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>

#include "base/text.h"
#include "server/guarded_server.h"

namespace kraken::server {
namespace {

bool PathMatches(const std::vector<std::string>& paths, const std::string& path) {
  return std::any_of(paths.begin(), paths.end(), [&](const std::string& p) {
    if (!p.empty() && p.back() == '/') return StartsWith(path, p) || path + "/" == p;
    return path == p || path == p + "/";
  });
}

bool IsWriteMethod(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

// Chunked, or any transfer coding httplib would read until the socket closes.
bool IsChunked(const httplib::Request& req) { return req.has_header("Transfer-Encoding"); }

// The first refusal the request earns, as (status, code, message); status 0: none.
struct Refusal {
  int status = 0;
  std::string code, message;
};

Refusal CheckAccess(const HttpHardening& h, const httplib::Request& req) {
  if (!IsWriteMethod(req.method)) return {};
  if (!h.token.empty() && !BearerTokenMatches(req, h.token))
    return {401, "unauthorized", "this server needs 'Authorization: Bearer <token>' for " + req.method + " requests"};
  if (h.token.empty() && !h.allow_open_writes && !IsLoopbackHost(h.host) && PathMatches(h.store_write_paths, req.path))
    return {403, "forbidden",
            "writes are refused: the server listens on " + h.host +
                " without a token (start it with --token, or --allow-open-writes to accept them anyway)"};
  return {};
}

Refusal CheckBody(const HttpHardening& h, const httplib::Request& req) {
  std::string encoding = req.get_header_value("Content-Encoding");
  if (!encoding.empty() && encoding != "identity")
    return {415, "unsupported_media_type",
            "Content-Encoding '" + encoding + "' is not accepted: send the body uncompressed"};
  bool streaming = PathMatches(h.streaming_body_paths, req.path);
  if (IsChunked(req)) {
    if (streaming && h.max_body_bytes > 0) return {};
    return {411, "length_required", "a chunked body is not accepted on " + req.path + ": send Content-Length"};
  }
  if (req.has_header("Content-Length")) {
    auto length = ParseInt64(Trim(req.get_header_value("Content-Length")));
    if (!length || *length < 0) return {400, "bad_request", "Content-Length is not a byte count"};
    if (*length > h.max_body_bytes)
      return {413, "payload_too_large",
              "the body has " + std::to_string(*length) + " bytes, the limit is " + std::to_string(h.max_body_bytes)};
    return {};
  }
  // Without a length httplib reads a POST body until the client closes the socket.
  if (IsWriteMethod(req.method) && !streaming)
    return {411, "length_required", req.method + " " + req.path + " needs a Content-Length header"};
  return {};
}

Refusal FirstRefusal(const HttpHardening& h, const httplib::Request& req) {
  Refusal refusal = CheckAccess(h, req);
  return refusal.status != 0 ? refusal : CheckBody(h, req);
}

// The port of a socket address, and its address as text ("127.0.0.1", "::1").
int PortAndAddress(const sockaddr_storage& a, std::string* address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    if (address != nullptr) inet_ntop(AF_INET, &v4.sin_addr, text, sizeof(text));
    if (address != nullptr) *address = text;
    return ntohs(v4.sin_port);
  }
  if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    if (address != nullptr) inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof(text));
    if (address != nullptr) *address = text;
    return ntohs(v6.sin6_port);
  }
  return -1;
}

// The request's connection socket, found by its two ends: cpp-httplib 0.11 gives handlers
// no handle on it. -1 when none matches. Only refusals pay for the scan.
int FindConnectionSocket(const httplib::Request& req) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int found = -1;
  while (dirent* entry = readdir(dir)) {
    auto fd = ParseInt64(entry->d_name);
    if (!fd || *fd == dirfd(dir)) continue;
    sockaddr_storage local{}, peer{};
    socklen_t local_size = sizeof(local), peer_size = sizeof(peer);
    if (getsockname(static_cast<int>(*fd), reinterpret_cast<sockaddr*>(&local), &local_size) != 0 ||
        getpeername(static_cast<int>(*fd), reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0)
      continue;
    std::string peer_address;
    if (PortAndAddress(local, nullptr) == req.local_port && PortAndAddress(peer, &peer_address) == req.remote_port &&
        peer_address == req.remote_addr) {
      found = static_cast<int>(*fd);
      break;
    }
  }
  closedir(dir);
  return found;
}

// After a refusal's answer is out: FIN, then drain what the client still sends for up to
// a second or 1 MiB (closing with unread data would reset the connection and could lose
// the answer), then cpp-httplib's next read sees the end and it closes the socket.
void CloseAfterAnswer(int fd) {
  shutdown(fd, SHUT_WR);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  char buffer[16384];
  for (size_t drained = 0; drained < (size_t{1} << 20);) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd wait{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&wait, 1, static_cast<int>(left.count())) <= 0) break;
    ssize_t n = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n <= 0) break;
    drained += static_cast<size_t>(n);
  }
  shutdown(fd, SHUT_RD);
}

void ExclusivePortOptions(socket_t sock) {
  int yes = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  in_addr v4{};
  std::string text(host);
  return inet_pton(AF_INET, text.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

bool BearerTokenMatches(const httplib::Request& req, const std::string& token) {
  if (token.empty()) return true;
  std::string header = req.get_header_value("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (!StartsWith(header, kBearer)) return false;
  std::string_view given = std::string_view(header).substr(kBearer.size());
  // Compares every byte whatever the first difference, so the time says nothing about it.
  unsigned char diff = given.size() == token.size() ? 0 : 1;
  for (size_t i = 0; i < token.size(); ++i)
    diff |= static_cast<unsigned char>(token[i] ^ (i < given.size() ? given[i] : 0));
  return diff == 0;
}

void ApplyHttpHardening(httplib::Server& server, HttpHardening hardening) {
  SetExclusivePortOptions(server);
  // Bodies over the limit are refused before reading; this bounds what slips past anyway.
  server.set_payload_max_length(static_cast<size_t>(std::max<int64_t>(hardening.max_body_bytes, 0)));
  auto shared = std::make_shared<const HttpHardening>(std::move(hardening));
  // A guarded server's front would otherwise wait for the body of a request refused anyway.
  if (auto* guarded = dynamic_cast<GuardedServer*>(&server))
    guarded->SetRefusedBeforeBody([shared](const httplib::Request& head) { return FirstRefusal(*shared, head).status != 0; });
  server.set_pre_routing_handler([shared](const httplib::Request& req, httplib::Response& res) {
    const HttpHardening& h = *shared;
    Refusal refusal = FirstRefusal(h, req);
    if (refusal.status == 0) return httplib::Server::HandlerResponse::Unhandled;
    h.send_error(req, res, refusal.status, refusal.code, refusal.message);
    // The body, if any, is still in the socket: the connection cannot carry another request.
    res.set_header("Connection", "close");
    return httplib::Server::HandlerResponse::Handled;
  });
  // cpp-httplib only announces "Connection: close" and would read the unread body as the
  // next request; the logger runs once the answer is written, so the socket ends there.
  server.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    if (res.get_header_value("Connection") != "close") return;
    if (GuardedServer::CloseCurrentConnectionAfterAnswer()) return;
    int fd = FindConnectionSocket(req);
    if (fd >= 0) CloseAfterAnswer(fd);
  });
}

void SetExclusivePortOptions(httplib::Server& server) { server.set_socket_options(ExclusivePortOptions); }

std::string ListenFailureReason(const std::string& host, int port) {
  std::string where = "cannot listen on " + host + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || found == nullptr)
    return where + ": cannot resolve the address";
  int sock = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  int error = 0;
  if (sock >= 0) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (bind(sock, found->ai_addr, found->ai_addrlen) != 0) error = errno;
    close(sock);
  }
  freeaddrinfo(found);
  if (error == EADDRINUSE) return where + ": the port is already in use by another process";
  if (error == EACCES) return where + ": permission denied (a privileged port?)";
  if (error == EADDRNOTAVAIL) return where + ": the address is not one of this machine's";
  return where;
}

}  // namespace kraken::server
