// Test support: a real PostgreSQL server from Debian's postgresql package, started on
// loopback in a temporary data folder (initdb, pg_ctl from /usr/lib/postgresql/*/bin) and
// stopped with the object. PostgreSQL refuses to run as root, so under root (CI) the data
// folder is given to `nobody` and initdb/pg_ctl run as that user through setpriv.
#pragma once

#include <string>

#include "base/status.h"

namespace kraken::store::pg::testing {

// The folder of initdb/pg_ctl/postgres (the newest /usr/lib/postgresql/N/bin), "" = none.
std::string FindPostgresBin();

class PgTestServer {
 public:
  PgTestServer() = default;
  ~PgTestServer();  // pg_ctl stop -m immediate
  PgTestServer(const PgTestServer&) = delete;
  PgTestServer& operator=(const PgTestServer&) = delete;

  // A fresh cluster in `dir`/data (initdb's, trust authentication, user "kraken", copied
  // from a template made once per machine), then starts on 127.0.0.1 at a free port with
  // its socket in `dir`. Errors carry the tools' output.
  Status Start(const std::string& bin, const std::string& dir);
  // pg_ctl stop -m immediate (as a crash would: clients see their connections drop), and
  // pg_ctl start again on the same port and data folder.
  Status Stop();
  Status Restart();
  // "postgresql://kraken@127.0.0.1:PORT/postgres"
  std::string url(const std::string& database = "postgres") const;
  int port() const { return port_; }

 private:
  Status Launch();  // pg_ctl start on port_

  std::string bin_, dir_;
  int port_ = 0;
  bool running_ = false;
};

}  // namespace kraken::store::pg::testing
