#include "server/guarded_server.h"

#include <sys/socket.h>

#include "server/connection_front.h"

namespace kraken::server {
namespace {

// cpp-httplib's accept loop hands each socket to its task queue; this one passes it on to
// the front at once (through GuardedServer::process_and_close_socket) and stops the
// front with the loop.
class FrontQueue final : public httplib::TaskQueue {
 public:
  FrontQueue(std::unique_ptr<ConnectionFront> front, ConnectionFront** slot)
      : front_(std::move(front)), slot_(slot) {
    *slot_ = front_.get();
  }
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {
    front_->Stop();
    *slot_ = nullptr;
  }

 private:
  std::unique_ptr<ConnectionFront> front_;
  ConnectionFront** slot_;
};

}  // namespace

GuardedServer::GuardedServer(ConnectionLimits limits) : limits_(std::move(limits)) {
  new_task_queue = [this]() -> httplib::TaskQueue* {
    // cpp-httplib listens with a backlog of 5: a burst of connections (a scrape storm, or
    // an attack) would wait for SYN retransmits, seconds, before the front even sees them.
    // Listening again on the bound socket only raises the backlog.
    ::listen(svr_sock_, SOMAXCONN);
    auto front = std::make_unique<ConnectionFront>(
        limits_, [this](httplib::Stream& stream, bool close_connection, bool& connection_closed) {
          return process_request(stream, close_connection, connection_closed, nullptr);
        });
    return new FrontQueue(std::move(front), &front_);
  };
}

GuardedServer::~GuardedServer() = default;

bool GuardedServer::CloseCurrentConnectionAfterAnswer() {
  GuardedConnection* current = CurrentGuardedConnection();
  if (current == nullptr) return false;
  current->close_after_answer = true;
  return true;
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  // Only ever called from FrontQueue::enqueue, on the accept thread, while front_ is set.
  front_->Admit(sock);
  return true;
}

}  // namespace kraken::server
