// Where `gpu-triage serve`'s connections wait for their request headers,
// without holding a thread.
//
// cpp-httplib 0.11 reads a request on one of its pool threads with a
// timeout per recv() only: a client that sends a header byte every few
// seconds holds that thread for as long as it likes, and 16 such clients
// hold them all. Here every accepted connection is put on one epoll thread
// instead, which peeks at what has arrived (MSG_PEEK, nothing consumed)
// until the blank line that ends the headers is there. Only then does the
// connection go to a request thread, which reads exactly those bytes and
// never waits for the client to send more of its headers.
//
// Limits, each enforced without a thread per connection:
// - header deadline: the request line and headers must all arrive within
//   `header_timeout` of the connection being accepted (or of the previous
//   response, on a kept-alive connection); after it the connection is
//   closed;
// - header size: `max_header_bytes`; more without the blank line gets 431;
// - connections waiting: `max_waiting`; one more closes the one that has
//   waited longest without a complete request (a slow client: a scraper
//   sends its headers at once), or is itself answered 503 when every
//   waiting connection holds a complete request;
// - requests ready: `max_ready` complete requests queued for the threads;
//   beyond that a complete request stays in the gate (under its deadline)
//   until a thread is free: back-pressure, not an error.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

namespace gt {

struct GateLimits {
  std::chrono::milliseconds header_timeout{5000};
  size_t max_header_bytes = 8192;
  size_t max_waiting = 256;
  size_t max_ready = 256;
};

/// A connection whose request line and headers have all arrived.
struct ReadyConnection {
  int fd = -1;
  size_t header_bytes = 0;  ///< up to and including the blank line
  int served = 0;           ///< requests already answered on this connection
};

/// What the gate has turned away, for tests and logs.
struct GateCounts {
  uint64_t timed_out = 0;  ///< deadline passed before the request was complete (or served)
  uint64_t evicted = 0;    ///< closed to make room for a newer connection
  uint64_t too_large = 0;  ///< headers over max_header_bytes (431)
  uint64_t shed = 0;       ///< no room at all (503)
  uint64_t closed = 0;     ///< the client closed or failed before its headers
};

/// Searches `data` for the end of an HTTP header block as cpp-httplib finds
/// it (a line that is exactly "\r\n" after a newline); returns the length up
/// to and including it, or 0 when it is not there.
size_t header_block_length(const char* data, size_t size);

class ConnectionGate {
 public:
  explicit ConnectionGate(GateLimits limits);
  /// Stops the epoll thread and closes every connection it still holds.
  ~ConnectionGate();
  ConnectionGate(const ConnectionGate&) = delete;
  ConnectionGate& operator=(const ConnectionGate&) = delete;

  /// Takes ownership of a connected socket; `served` requests were already
  /// answered on it. Never blocks on the client.
  void add(int fd, int served);

  /// The next connection with a complete request; blocks. nullopt once
  /// stop() was called.
  std::optional<ReadyConnection> next();

  /// Closes what is waiting and wakes every next(); add() closes from now on.
  void stop();

  GateCounts counts() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Waiting {
    Clock::time_point deadline;
    int served = 0;
    size_t complete = 0;  ///< header bytes once all arrived, while no room in ready_
  };

  void loop();
  void on_readable(int fd, bool hung_up);
  /// Peeks at fd's bytes: >0 the header length, 0 not yet, -1 to close
  /// (EOF, error), -2 too large.
  long peek(int fd, bool hung_up);  // mu_ held
  bool make_room();                 // mu_ held
  void expire(Clock::time_point now);
  void forget(int fd);                          // mu_ held
  void reject(int fd, const char* response);    // mu_ held
  void complete_request(int fd, size_t bytes);  // mu_ held
  void refill();                                // mu_ held
  int wait_ms(Clock::time_point now) const;     // mu_ held

  const GateLimits limits_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: stop() wakes the epoll thread
  mutable std::mutex mu_;
  std::condition_variable ready_cv_;
  std::map<int, Waiting> waiting_;                           // by fd
  std::set<std::pair<Clock::time_point, int>> by_deadline_;  // oldest first
  std::deque<ReadyConnection> ready_;
  std::deque<int> complete_;  // waiting_ entries with a complete request, oldest first
  GateCounts counts_;
  bool stopping_ = false;
  std::vector<char> peek_buffer_;  // the epoll thread's, under mu_
  std::thread thread_;
};

}  // namespace gt
