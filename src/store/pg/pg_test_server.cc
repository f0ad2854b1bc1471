#include "store/pg/pg_test_server.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>

namespace kraken::store::pg::testing {
namespace {

namespace fs = std::filesystem;

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    socklen_t length = sizeof(address);
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

// Runs `command` (a shell line) and returns its exit code and output.
int RunShell(const std::string& command, std::string* output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output->append(buffer, n);
  int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Under root: run as nobody (PostgreSQL refuses root), with a clean environment's HOME.
std::string AsServerUser() {
  if (::geteuid() != 0) return "";
  return "setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/ ";
}

Status GiveToServerUser(const std::string& dir) {
  if (::geteuid() != 0) return Status::Ok();
  struct passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) return Unavailable("no user 'nobody' to run PostgreSQL as (it refuses root)");
  // Every folder above must be searchable by that user.
  for (fs::path p = fs::path(dir); !p.empty() && p != p.root_path(); p = p.parent_path()) {
    struct stat st{};
    if (::stat(p.c_str(), &st) == 0 && (st.st_mode & S_IXOTH) == 0) ::chmod(p.c_str(), st.st_mode | S_IXOTH);
  }
  if (::chown(dir.c_str(), nobody->pw_uid, nobody->pw_gid) != 0)
    return IoError(dir + ": cannot give the folder to 'nobody'");
  return Status::Ok();
}

// A data folder initdb made once per machine, user and PostgreSQL build, that each server
// copies (0.1 s) instead of running initdb itself (1.3 s alone, several under a loaded test
// pass, which starts ~30 servers). initdb writes a staging folder that is renamed into place
// whole, so a concurrent test sees the template complete or not at all; the loser of a race
// drops its own copy.
Result<std::string> InitializedTemplate(const std::string& bin) {
  struct stat initdb{};
  if (::stat((bin + "/initdb").c_str(), &initdb) != 0) return IoError(bin + "/initdb: not found");
  std::string key = std::to_string(::geteuid()) + "-" + std::to_string(std::hash<std::string>{}(bin)) + "-" +
                    std::to_string(initdb.st_mtime);
  std::error_code ec;
  fs::path root = fs::temp_directory_path(ec) / ("kraken-pg-template-" + key);
  if (ec) return IoError("no temporary folder for PostgreSQL's template: " + ec.message());
  if (fs::exists(root / "data" / "PG_VERSION")) return (root / "data").string();
  fs::path staging = root.string() + ".tmp" + std::to_string(::getpid());
  fs::remove_all(staging, ec);
  fs::create_directories(staging, ec);
  if (ec) return IoError(staging.string() + ": " + ec.message());
  KRAKEN_RETURN_IF_ERROR(GiveToServerUser(staging.string()));
  std::string out;
  if (RunShell(AsServerUser() + bin + "/initdb -D " + staging.string() + "/data -U kraken -A trust -E UTF8 --no-sync",
               &out) != 0) {
    fs::remove_all(staging, ec);
    return IoError("initdb: " + out);
  }
  fs::rename(staging, root, ec);
  if (ec) fs::remove_all(staging, ec);  // another test's template is in place
  if (!fs::exists(root / "data" / "PG_VERSION")) return IoError(root.string() + ": no initialized data folder");
  return (root / "data").string();
}

}  // namespace

std::string FindPostgresBin() {
  std::string best;
  int best_version = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    int version = std::atoi(entry.path().filename().c_str());
    fs::path bin = entry.path() / "bin";
    if (version > best_version && fs::exists(bin / "initdb") && fs::exists(bin / "pg_ctl") &&
        fs::exists(bin / "postgres")) {
      best_version = version;
      best = bin.string();
    }
  }
  return best;
}

Status PgTestServer::Start(const std::string& bin, const std::string& dir) {
  bin_ = bin;
  dir_ = dir + "/pg";
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return IoError(dir_ + ": " + ec.message());
  KRAKEN_RETURN_IF_ERROR(GiveToServerUser(dir_));
  KRAKEN_ASSIGN_OR_RETURN(std::string initialized, InitializedTemplate(bin_));
  std::string out;
  // -a keeps the owner (the server's user under root) and the folder's 0700.
  if (RunShell("cp -a " + initialized + " " + dir_ + "/data", &out) != 0)
    return IoError("copying PostgreSQL's initialized data folder: " + out);
  port_ = FreePort();
  return Launch();
}


Status PgTestServer::Launch() {
  std::string as = AsServerUser();
  std::string out;
  std::string options = "-c listen_addresses=127.0.0.1 -c port=" + std::to_string(port_) +
                        " -c unix_socket_directories=" + dir_ + " -c fsync=off -c max_connections=120";
  if (RunShell(as + bin_ + "/pg_ctl -D " + dir_ + "/data -l " + dir_ + "/server.log -w -t 60 -o '" + options +
                   "' start",
               &out) != 0) {
    std::string log;
    RunShell("tail -5 " + dir_ + "/server.log", &log);
    return IoError("pg_ctl start: " + out + log);
  }
  running_ = true;
  return Status::Ok();
}

PgTestServer::~PgTestServer() {
  if (running_) (void)Stop();
}

Status PgTestServer::Stop() {
  std::string out;
  if (RunShell(AsServerUser() + bin_ + "/pg_ctl -D " + dir_ + "/data -m immediate -w stop", &out) != 0)
    return IoError("pg_ctl stop: " + out);
  running_ = false;
  return Status::Ok();
}

Status PgTestServer::Restart() { return running_ ? Status::Ok() : Launch(); }

std::string PgTestServer::url(const std::string& database) const {
  return "postgresql://kraken@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

}  // namespace kraken::store::pg::testing
