// The front and the worker pool of a GuardedServer (guarded_server.h): one thread polls
// every connection that waits for a request, reads what arrives without blocking and
// enforces the deadlines; complete requests go to the workers (probes to a queue of their
// own), streams to threads of their own within their budget.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "server/guarded_server.h"
#include "server/guarded_stream.h"
#include "server/request_head.h"

namespace kraken::server {

class ConnectionFront {
 public:
  // Serves one request of a connection through `stream` (httplib's process_request):
  // false when the connection must close.
  using ServeFn = std::function<bool(httplib::Stream& stream, bool close_connection, bool& connection_closed)>;

  ConnectionFront(const ConnectionLimits& limits, ServeFn serve);
  ~ConnectionFront();

  // Takes a freshly accepted socket (called on the accept thread).
  void Admit(int fd);
  // Closes every connection and joins every thread; open streams end when their
  // handlers notice the server stopping.
  void Stop();

 private:
  using ConnectionPtr = std::unique_ptr<GuardedConnection>;
  enum class Step { kWait, kReady, kHeadTooLarge, kClose };

  // The front thread's own: they read, judge and hand on the waiting connections.
  void RunFront();
  void TakeIncoming(GuardClock::time_point now);
  void ExpireOverdue(GuardClock::time_point now);
  Step ReadMore(GuardedConnection& conn, GuardClock::time_point now);
  Step Examine(GuardedConnection& conn, GuardClock::time_point now);
  // Acts on `step`; what stays with the front goes to `still`.
  void Route(ConnectionPtr conn, Step step, std::vector<ConnectionPtr>& still);
  // These return the connection when it stays with the front (answered and draining).
  ConnectionPtr Dispatch(ConnectionPtr conn);
  ConnectionPtr Refuse(ConnectionPtr conn, int status, const std::string& message);
  ConnectionPtr StartDraining(ConnectionPtr conn);
  // Closes the connection that has waited longest, if it waited longer than `newcomer`.
  bool EvictLongestWaiting(const GuardedConnection& newcomer);
  void ReleaseBody(GuardedConnection& conn);
  bool RefusedBeforeBody(const RequestHead& head) const;
  void Close(ConnectionPtr conn);
  void Wake();

  void RunWorker(bool probes_only);
  void RunStream(ConnectionPtr conn);
  void Serve(ConnectionPtr conn, bool keep_alive);
  void ReturnToFront(ConnectionPtr conn);

  const ConnectionLimits limits_;
  const ServeFn serve_;
  int wake_pipe_[2] = {-1, -1};
  std::atomic<bool> stopping_{false};
  std::atomic<int> open_connections_{0};

  std::mutex incoming_mutex_;
  std::vector<ConnectionPtr> incoming_;  // accepted or returned, for the front
  std::vector<ConnectionPtr> waiting_;   // the front thread's own
  size_t reserved_body_bytes_ = 0;       // bodies the front is reading (front thread only)

  std::mutex queue_mutex_;
  std::condition_variable queue_ready_;
  std::deque<ConnectionPtr> probe_queue_, ordinary_queue_;

  std::mutex streams_mutex_;
  std::condition_variable streams_done_;
  int open_streams_ = 0;

  std::thread front_;
  std::vector<std::thread> workers_;
};

}  // namespace kraken::server
