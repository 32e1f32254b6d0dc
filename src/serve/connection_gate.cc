#include "serve/connection_gate.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace gt {
namespace {

constexpr const char* k431 =
    "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\n"
    "Connection: close\r\n\r\n";
constexpr const char* k503 =
    "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n"
    "Connection: close\r\n\r\n";

void close_socket(int fd) {
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

}  // namespace

size_t header_block_length(const char* data, size_t size) {
  // cpp-httplib ends the headers at the first line that is exactly "\r\n":
  // right at the start (an empty request line, answered 400), or after "\n".
  if (size >= 2 && data[0] == '\r' && data[1] == '\n') return 2;
  for (size_t i = 0; i + 2 < size; ++i)
    if (data[i] == '\n' && data[i + 1] == '\r' && data[i + 2] == '\n') return i + 3;
  return 0;
}

ConnectionGate::ConnectionGate(GateLimits limits) : limits_(limits) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  thread_ = std::thread([this] { loop(); });
}

ConnectionGate::~ConnectionGate() {
  stop();
  ::close(epoll_fd_);
  ::close(wake_fd_);
}

void ConnectionGate::add(int fd, int served) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_ || epoll_fd_ < 0) {
    close_socket(fd);
    return;
  }
  if (waiting_.size() >= limits_.max_waiting && !make_room()) {
    ++counts_.shed;  // every waiting connection holds a complete request: overloaded
    reject(fd, k503);
    return;
  }
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;  // edge: once per arrival, data stays unread
  ev.data.fd = fd;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    close_socket(fd);
    return;
  }
  Waiting w{Clock::now() + limits_.header_timeout, served, 0};
  waiting_[fd] = w;
  by_deadline_.insert({w.deadline, fd});
}

std::optional<ReadyConnection> ConnectionGate::next() {
  std::unique_lock<std::mutex> lock(mu_);
  ready_cv_.wait(lock, [&] { return stopping_ || !ready_.empty(); });
  if (stopping_) return std::nullopt;
  ReadyConnection c = ready_.front();
  ready_.pop_front();
  refill();
  return c;
}

void ConnectionGate::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      stopping_ = true;
      for (auto& [fd, w] : waiting_) close_socket(fd);
      for (const ReadyConnection& c : ready_) close_socket(c.fd);
      waiting_.clear();
      by_deadline_.clear();
      ready_.clear();
      complete_.clear();
    }
  }
  ready_cv_.notify_all();
  uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof one) < 0) {
    // The eventfd's counter is full: the thread is being woken anyway.
  }
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

GateCounts ConnectionGate::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

void ConnectionGate::loop() {
  std::vector<epoll_event> events(64);
  while (true) {
    int timeout_ms = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      timeout_ms = wait_ms(Clock::now());
    }
    int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), timeout_ms);
    for (int i = 0; i < n; ++i) {
      if (events[i].data.fd == wake_fd_) continue;  // stop(): seen at the top
      on_readable(events[i].data.fd, (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0);
    }
    expire(Clock::now());
  }
}

void ConnectionGate::on_readable(int fd, bool hung_up) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = waiting_.find(fd);
  if (it == waiting_.end() || it->second.complete > 0) return;  // gone, or queued already
  long r = peek(fd, hung_up);
  if (r > 0) {
    complete_request(fd, static_cast<size_t>(r));
  } else if (r == -1) {
    ++counts_.closed;
    forget(fd);
    close_socket(fd);
  } else if (r == -2) {
    ++counts_.too_large;
    forget(fd);
    reject(fd, k431);
  }
}

long ConnectionGate::peek(int fd, bool hung_up) {
  // One more byte than allowed: enough to tell "too large" from "complete".
  peek_buffer_.resize(limits_.max_header_bytes + 1);
  ssize_t n = ::recv(fd, peek_buffer_.data(), peek_buffer_.size(), MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
  if (n <= 0) return -1;  // closed or failed before its headers were complete
  const size_t seen = std::min(static_cast<size_t>(n), limits_.max_header_bytes);
  if (size_t len = header_block_length(peek_buffer_.data(), seen); len > 0)
    return static_cast<long>(len);
  if (static_cast<size_t>(n) > limits_.max_header_bytes) return -2;
  return hung_up ? -1 : 0;  // a client that hung up will send nothing more
}

bool ConnectionGate::make_room() {
  // Oldest first; a connection whose request turns out to be complete is
  // queued instead (its bytes may have arrived since its last event).
  for (auto it = by_deadline_.begin(); it != by_deadline_.end();) {
    int fd = it->second;
    ++it;  // forget() below erases the current element
    if (waiting_[fd].complete > 0) continue;
    long r = peek(fd, false);
    if (r > 0) {
      complete_request(fd, static_cast<size_t>(r));
      if (waiting_.size() < limits_.max_waiting) return true;
      continue;
    }
    forget(fd);
    if (r == -2) {
      ++counts_.too_large;
      reject(fd, k431);
    } else {
      ++(r == -1 ? counts_.closed : counts_.evicted);
      close_socket(fd);
    }
    return true;
  }
  return false;
}

void ConnectionGate::expire(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  while (!by_deadline_.empty() && by_deadline_.begin()->first <= now) {
    int fd = by_deadline_.begin()->second;
    forget(fd);
    close_socket(fd);
    ++counts_.timed_out;
  }
}

void ConnectionGate::forget(int fd) {
  auto it = waiting_.find(fd);
  if (it == waiting_.end()) return;
  by_deadline_.erase({it->second.deadline, fd});
  waiting_.erase(it);
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

void ConnectionGate::reject(int fd, const char* response) {
  if (::send(fd, response, std::strlen(response), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
    // Best effort: the connection is closed either way.
  }
  close_socket(fd);
}

void ConnectionGate::complete_request(int fd, size_t bytes) {
  auto it = waiting_.find(fd);
  if (ready_.size() >= limits_.max_ready) {
    it->second.complete = bytes;  // stays here, under its deadline, until a thread is free
    complete_.push_back(fd);
    return;
  }
  const int served = it->second.served;
  forget(fd);
  ready_.push_back(ReadyConnection{fd, bytes, served});
  ready_cv_.notify_one();
}

void ConnectionGate::refill() {
  while (ready_.size() < limits_.max_ready && !complete_.empty()) {
    int fd = complete_.front();
    complete_.pop_front();
    auto it = waiting_.find(fd);
    if (it == waiting_.end() || it->second.complete == 0) continue;  // expired (fd maybe reused)
    const ReadyConnection c{fd, it->second.complete, it->second.served};
    forget(fd);
    ready_.push_back(c);
    ready_cv_.notify_one();
  }
}

int ConnectionGate::wait_ms(Clock::time_point now) const {
  if (by_deadline_.empty()) return 1000;
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(by_deadline_.begin()->first - now);
  return static_cast<int>(std::clamp<int64_t>(left.count() + 1, 0, 1000));
}

}  // namespace gt
