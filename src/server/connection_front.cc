#include "server/connection_front.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/text.h"

namespace kraken::server {
namespace {

constexpr size_t kReadChunk = 16 * 1024;
// Bodies the front reads for all connections together; beyond it workers read them.
constexpr size_t kBufferedBodyBudget = size_t{64} << 20;
// How long a refused or finished connection is drained before it is closed (closing with
// unread bytes would reset it and could lose the answer).
constexpr auto kDrainTime = std::chrono::seconds(1);

bool PathListed(const std::vector<std::string>& paths, std::string_view path) {
  return std::any_of(paths.begin(), paths.end(), [&](const std::string& p) {
    return path == p || (!p.empty() && p.back() == '/' && StartsWith(path, p));
  });
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 408: return "Request Timeout";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

int MillisecondsLeft(GuardClock::time_point deadline, GuardClock::time_point now) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
  return static_cast<int>(std::clamp<int64_t>(left + 1, 0, 1 << 30));
}

}  // namespace

ConnectionFront::ConnectionFront(const ConnectionLimits& limits, ServeFn serve)
    : limits_(limits), serve_(std::move(serve)) {
  if (pipe2(wake_pipe_, O_NONBLOCK | O_CLOEXEC) != 0) wake_pipe_[0] = wake_pipe_[1] = -1;
  front_ = std::thread([this] { RunFront(); });
  for (int i = 0; i < std::max(1, limits_.workers); ++i) workers_.emplace_back([this] { RunWorker(false); });
  for (int i = 0; i < limits_.probe_workers; ++i) workers_.emplace_back([this] { RunWorker(true); });
}

ConnectionFront::~ConnectionFront() { Stop(); }

void ConnectionFront::Wake() {
  char byte = 1;
  (void)!::write(wake_pipe_[1], &byte, 1);
}

void ConnectionFront::Admit(int fd) {
  if (stopping_) {
    ::close(fd);
    return;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  // Small answers go out at once, not after the client's delayed ACK.
  int yes = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  auto conn = std::make_unique<GuardedConnection>();
  conn->fd = fd;
  conn->waiting_since = GuardClock::now();
  conn->deadline = conn->waiting_since + limits_.idle_timeout;
  ++open_connections_;
  {
    std::lock_guard<std::mutex> lock(incoming_mutex_);
    incoming_.push_back(std::move(conn));
  }
  Wake();
}

void ConnectionFront::Stop() {
  if (stopping_.exchange(true)) return;
  Wake();
  if (front_.joinable()) front_.join();
  // A worker that has just found `stopping_` false holds queue_mutex_ until it waits; taking
  // the lock once here puts the notification after its wait. Without it the notification
  // could fall between the two and the worker slept on: a server test hung in Stop's join
  // (CI, under the sanitizers).
  { std::lock_guard<std::mutex> lock(queue_mutex_); }
  queue_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
  {
    // Stream handlers end when they see their server stopping (or their client gone).
    std::unique_lock<std::mutex> lock(streams_mutex_);
    streams_done_.wait(lock, [&] { return open_streams_ == 0; });
  }
  for (auto* list : {&probe_queue_, &ordinary_queue_})
    for (ConnectionPtr& conn : *list) Close(std::move(conn));
  for (ConnectionPtr& conn : incoming_) Close(std::move(conn));
  probe_queue_.clear(), ordinary_queue_.clear(), incoming_.clear();
  for (int& fd : wake_pipe_)
    if (fd >= 0) ::close(fd), fd = -1;
}

void ConnectionFront::RunFront() {
  std::vector<pollfd> fds;
  while (!stopping_) {
    auto now = GuardClock::now();
    TakeIncoming(now);
    ExpireOverdue(now);
    fds.assign(1, pollfd{wake_pipe_[0], POLLIN, 0});
    int timeout = -1;
    for (const ConnectionPtr& conn : waiting_) {
      fds.push_back(pollfd{conn->fd, POLLIN, 0});
      int left = MillisecondsLeft(conn->deadline, now);
      timeout = timeout < 0 ? left : std::min(timeout, left);
    }
    int ready = poll(fds.data(), fds.size(), timeout);
    if (ready <= 0) continue;
    char drained[256];
    if (fds[0].revents != 0)
      while (::read(wake_pipe_[0], drained, sizeof(drained)) > 0) {
      }
    now = GuardClock::now();
    std::vector<ConnectionPtr> still;
    still.reserve(waiting_.size());
    for (size_t i = 0; i < waiting_.size(); ++i) {
      if (fds[i + 1].revents == 0) {
        still.push_back(std::move(waiting_[i]));
        continue;
      }
      Step step = ReadMore(*waiting_[i], now);
      Route(std::move(waiting_[i]), step, still);
    }
    waiting_ = std::move(still);
  }
  for (ConnectionPtr& conn : waiting_) Close(std::move(conn));
  waiting_.clear();
}

void ConnectionFront::Route(ConnectionPtr conn, Step step, std::vector<ConnectionPtr>& still) {
  switch (step) {
    case Step::kWait:
      still.push_back(std::move(conn));
      return;
    case Step::kReady:
      conn = Dispatch(std::move(conn));
      break;
    case Step::kHeadTooLarge:
      conn = Refuse(std::move(conn), 431,
                    "the request head is larger than " + std::to_string(limits_.max_head_bytes) + " bytes");
      break;
    case Step::kClose:
      Close(std::move(conn));
      return;
  }
  if (conn != nullptr) still.push_back(std::move(conn));
}

void ConnectionFront::TakeIncoming(GuardClock::time_point now) {
  std::vector<ConnectionPtr> taken;
  {
    std::lock_guard<std::mutex> lock(incoming_mutex_);
    taken.swap(incoming_);
  }
  for (ConnectionPtr& conn : taken) {
    if (open_connections_ > limits_.max_connections && !conn->draining && !EvictLongestWaiting(*conn)) {
      Close(std::move(conn));
      continue;
    }
    // A returned connection may hold the next (pipelined) request already.
    if (conn->draining || conn->Unconsumed().empty()) {
      waiting_.push_back(std::move(conn));
      continue;
    }
    Step step = Examine(*conn, now);
    Route(std::move(conn), step, waiting_);
  }
}

bool ConnectionFront::EvictLongestWaiting(const GuardedConnection& newcomer) {
  auto longest = waiting_.end();
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it)
    if (!(*it)->draining && (*it)->waiting_since < newcomer.waiting_since &&
        (longest == waiting_.end() || (*it)->waiting_since < (*longest)->waiting_since))
      longest = it;
  if (longest == waiting_.end()) return false;
  Close(std::move(*longest));
  waiting_.erase(longest);
  return true;
}

void ConnectionFront::ExpireOverdue(GuardClock::time_point now) {
  std::vector<ConnectionPtr> still;
  still.reserve(waiting_.size());
  for (ConnectionPtr& conn : waiting_) {
    if (conn->deadline > now) still.push_back(std::move(conn));
    else if (conn->draining || !conn->started) Close(std::move(conn));
    else if (auto refused = Refuse(std::move(conn), 408, "the request did not arrive within its deadline"))
      still.push_back(std::move(refused));
  }
  waiting_ = std::move(still);
}

ConnectionFront::Step ConnectionFront::ReadMore(GuardedConnection& conn, GuardClock::time_point now) {
  char sink[4096];
  if (conn.draining) {
    // Discards what the client still sends; a few reads per turn, the deadline ends it.
    for (int i = 0; i < 16; ++i) {
      ssize_t n = recv(conn.fd, sink, sizeof(sink), MSG_DONTWAIT);
      if (n > 0) continue;
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? Step::kWait : Step::kClose;
    }
    return Step::kWait;
  }
  bool end_of_input = false;
  // At most a few chunks per turn, so one fast client cannot keep the front to itself.
  for (int i = 0; i < 4; ++i) {
    size_t old_size = conn.buffer.size();
    conn.buffer.resize(old_size + kReadChunk);
    ssize_t n = recv(conn.fd, conn.buffer.data() + old_size, kReadChunk, MSG_DONTWAIT);
    conn.buffer.resize(old_size + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n == 0) end_of_input = true;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return Step::kClose;
    if (n < static_cast<ssize_t>(kReadChunk)) break;
    if (conn.need > 0 && conn.Unconsumed().size() >= conn.need) break;
  }
  Step step = Examine(conn, now);
  // A client may send its request and close its end at once: it still gets the answer.
  return end_of_input && step == Step::kWait ? Step::kClose : step;
}

ConnectionFront::Step ConnectionFront::Examine(GuardedConnection& conn, GuardClock::time_point now) {
  std::string_view data = conn.Unconsumed();
  if (data.empty()) return Step::kWait;
  if (!conn.started) {
    conn.started = true;
    conn.request_started = now;
    conn.deadline = now + limits_.head_timeout;
  }
  if (conn.need == 0) {
    std::optional<RequestHead> head = ParseRequestHead(data.substr(0, limits_.max_head_bytes));
    if (!head) return data.size() >= limits_.max_head_bytes ? Step::kHeadTooLarge : Step::kWait;
    if (PathListed(limits_.stream_paths, head->path)) conn.kind = RequestKind::kStream;
    else if (PathListed(limits_.probe_paths, head->path)) conn.kind = RequestKind::kProbe;
    size_t length = head->content_length.value_or(0);
    size_t allowance_bytes = head->chunked ? limits_.max_body_bytes : length;
    conn.read_deadline =
        conn.request_started + limits_.request_timeout + std::chrono::seconds(allowance_bytes >> 20);
    conn.need = head->head_bytes;
    // Small bodies are read here too; with "Expect: 100-continue" the client waits for
    // httplib's interim answer before it sends the body.
    if (length > 0 && !head->chunked && !head->expect_continue && length <= limits_.buffered_body_bytes &&
        reserved_body_bytes_ + length <= kBufferedBodyBudget && !RefusedBeforeBody(*head)) {
      conn.need += length;
      conn.reserved_body = length;
      reserved_body_bytes_ += length;
      conn.deadline = conn.read_deadline;
    }
  }
  return data.size() >= conn.need ? Step::kReady : Step::kWait;
}

bool ConnectionFront::RefusedBeforeBody(const RequestHead& head) const {
  if (!limits_.refused_before_body) return false;
  httplib::Request request;
  request.method = head.method;
  request.path = head.path;
  for (const auto& [name, value] : head.headers) request.headers.emplace(name, value);
  return limits_.refused_before_body(request);
}

void ConnectionFront::ReleaseBody(GuardedConnection& conn) {
  if (conn.reserved_body == 0) return;  // (only the front thread ever holds a reservation)
  reserved_body_bytes_ -= conn.reserved_body;
  conn.reserved_body = 0;
}

ConnectionFront::ConnectionPtr ConnectionFront::Dispatch(ConnectionPtr conn) {
  ReleaseBody(*conn);
  if (conn->kind == RequestKind::kStream) {
    {
      std::lock_guard<std::mutex> lock(streams_mutex_);
      if (open_streams_ >= limits_.max_streams)
        return Refuse(std::move(conn), 503,
                      "already " + std::to_string(limits_.max_streams) + " streams open; retry later");
      ++open_streams_;
    }
    std::thread([this, stream = std::move(conn)]() mutable { RunStream(std::move(stream)); }).detach();
    return nullptr;
  }
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    (conn->kind == RequestKind::kProbe ? probe_queue_ : ordinary_queue_).push_back(std::move(conn));
  }
  queue_ready_.notify_all();
  return nullptr;
}

ConnectionFront::ConnectionPtr ConnectionFront::Refuse(ConnectionPtr conn, int status, const std::string& message) {
  std::string body = limits_.refusal_body ? limits_.refusal_body(status, message) : message + "\n";
  std::string answer = "HTTP/1.1 " + std::to_string(status) + " " + ReasonPhrase(status) +
                       "\r\nContent-Type: " + limits_.refusal_content_type +
                       "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n" +
                       (status == 503 ? "Retry-After: 5\r\n" : "") + "\r\n" + body;
  // A small answer into an empty send buffer: one non-blocking send is enough.
  (void)send(conn->fd, answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  return StartDraining(std::move(conn));
}

ConnectionFront::ConnectionPtr ConnectionFront::StartDraining(ConnectionPtr conn) {
  ReleaseBody(*conn);
  shutdown(conn->fd, SHUT_WR);
  conn->draining = true;
  conn->buffer.clear();
  conn->consumed = 0;
  conn->deadline = GuardClock::now() + kDrainTime;
  return conn;
}

void ConnectionFront::Close(ConnectionPtr conn) {
  if (conn == nullptr) return;
  ::close(conn->fd);
  --open_connections_;
}

void ConnectionFront::RunWorker(bool probes_only) {
  for (;;) {
    ConnectionPtr conn;
    {
      std::unique_lock<std::mutex> lock(queue_mutex_);
      queue_ready_.wait(lock, [&] {
        return stopping_ || !probe_queue_.empty() || (!probes_only && !ordinary_queue_.empty());
      });
      if (stopping_) return;
      auto& queue = !probe_queue_.empty() ? probe_queue_ : ordinary_queue_;
      conn = std::move(queue.front());
      queue.pop_front();
    }
    Serve(std::move(conn), /*keep_alive=*/true);
  }
}

void ConnectionFront::RunStream(ConnectionPtr conn) {
  Serve(std::move(conn), /*keep_alive=*/false);
  std::lock_guard<std::mutex> lock(streams_mutex_);
  --open_streams_;
  streams_done_.notify_all();
}

void ConnectionFront::Serve(ConnectionPtr conn, bool keep_alive) {
  GuardedStream stream(*conn, limits_.write_timeout);
  bool last = !keep_alive || conn->served + 1 >= limits_.keep_alive_max_requests;
  bool connection_closed = false;
  CurrentGuardedConnection() = conn.get();
  bool ok = serve_(stream, last, connection_closed);
  CurrentGuardedConnection() = nullptr;
  ++conn->served;
  if (stream.failed() || stopping_) return Close(std::move(conn));
  if (!ok || connection_closed || last || conn->close_after_answer) conn = StartDraining(std::move(conn));
  else conn->ResetForNextRequest(GuardClock::now()), conn->deadline = GuardClock::now() + limits_.idle_timeout;
  {
    std::lock_guard<std::mutex> lock(incoming_mutex_);
    incoming_.push_back(std::move(conn));
  }
  Wake();
}

}  // namespace kraken::server
