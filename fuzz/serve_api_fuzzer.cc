// libFuzzer target: request bodies through the real routes of `kraken serve` (the
// versioned API's POSTs and the legacy :7070 API), served by cpp-httplib from memory: no
// socket, the same parsing, routing and handlers. The first byte picks the route; from
// 0xf0 up the rest is a whole raw request (head and body), which also goes through the
// connection front's head parser. Built with `make fuzz`; seeds in fuzz/seeds/serve_api.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "server/request_head.h"
#include "server/server_context.h"

namespace {

using kraken::server::ServerContext;

// One request in, the answer discarded.
class MemoryStream final : public httplib::Stream {
 public:
  explicit MemoryStream(const std::string& request) : request_(request) {}
  bool is_readable() const override { return true; }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    size_t n = std::min(size, request_.size() - offset_);
    std::copy_n(request_.data() + offset_, n, ptr);
    offset_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char*, size_t size) override { return static_cast<ssize_t>(size); }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { ip = "127.0.0.1", port = 40000; }
  void get_local_ip_and_port(std::string& ip, int& port) const override { ip = "127.0.0.1", port = 7070; }
  socket_t socket() const override { return -1; }

 private:
  const std::string& request_;
  size_t offset_ = 0;
};

class InMemoryServer final : public httplib::Server {
 public:
  void Serve(const std::string& request) {
    MemoryStream stream(request);
    bool closed = false;
    process_request(stream, /*close_connection=*/true, closed, nullptr);
  }
};

std::string* g_fixture_dir = nullptr;  // removed when the fuzzer exits

struct ServeFixture {
  ServerContext ctx;
  InMemoryServer http;
  std::string dir;

  ServeFixture() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kraken-fuzz-serve-XXXXXX").string();
    dir = mkdtemp(pattern.data()) != nullptr ? pattern : "/tmp";
    g_fixture_dir = &dir;
    std::atexit([] { std::filesystem::remove_all(*g_fixture_dir); });
    ctx.options.db_path = dir + "/fuzz.db";
    ctx.store = std::make_unique<kraken::server::StorePool>(ctx.options.db_path);
    const char* data = std::getenv("KRAKEN_DATA_DIR");
    ctx.legacy = kraken::server::LegacyProfiles::LoadPredefined(data != nullptr ? data : "", {});
    AddLegacyRoutes(http, ctx);
    AddProfileRoutes(http, ctx);
    AddColocateRoutes(http, ctx);
    AddTemporalRoute(http, ctx);
    kraken::server::AddPackRoute(http);
  }
};

constexpr const char* kPostRoutes[] = {"/api/v1/pack", "/api/v1/temporal", "/register", "/profile"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ServeFixture* fixture = new ServeFixture();
  if (size == 0) return 0;
  std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] >= 0xf0) {
    (void)kraken::server::ParseRequestHead(rest);
    fixture->http.Serve(rest);
    return 0;
  }
  const char* route = kPostRoutes[data[0] % std::size(kPostRoutes)];
  fixture->http.Serve(std::string("POST ") + route + " HTTP/1.1\r\nHost: fuzz\r\nContent-Type: application/json\r\n" +
                      "Content-Length: " + std::to_string(rest.size()) + "\r\n\r\n" + rest);
  return 0;
}
