#include "serve/http_server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include "serve/connection_gate.h"

namespace gt {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kMetricsType = "text/plain; version=0.0.4; charset=utf-8";

constexpr const char* kIndex =
    "<html><head><title>gpu-triage</title></head><body><h1>gpu-triage</h1>"
    "<p><a href=\"/metrics\">/metrics</a>: Prometheus metrics</p>"
    "<p><a href=\"/healthz\">/healthz</a>: the report as JSON</p></body></html>\n";

constexpr const char* kIndexWithBundle =
    "<html><head><title>gpu-triage</title></head><body><h1>gpu-triage</h1>"
    "<p><a href=\"/metrics\">/metrics</a>: Prometheus metrics</p>"
    "<p><a href=\"/healthz\">/healthz</a>: the report as JSON</p>"
    "<p><a href=\"/bundle\">/bundle</a>: the node recorded now, redacted (gpu-triage "
    "bundle)</p></body></html>\n";

constexpr size_t kMaxBodyBytes = 64 * 1024;  // GET needs none; cpp-httplib answers 413 above

/// Seconds since the report was collected, rounded down (the HTTP Age header).
std::string age_header(const CachedReport& r) {
  auto age = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - r.finished);
  return std::to_string(std::max<long long>(0, age.count()));
}

/// Milliseconds left until `deadline`, for poll(); 0 when it has passed.
int ms_left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 60000));
}

/// Whether `fd` becomes ready for `events` before `deadline`.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, ms_left(deadline));
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return false;
    if (r == 0 && Clock::now() >= deadline) return false;
  }
}

void address_of(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  int r = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len)
               : ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  if (r != 0) return;
  char buf[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&a);
    ::inet_ntop(AF_INET, &v4->sin_addr, buf, sizeof buf);
    port = ntohs(v4->sin_port);
  } else if (a.ss_family == AF_INET6) {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, buf, sizeof buf);
    port = ntohs(v6->sin6_port);
  }
  ip = buf;
}

/// One request's view of a connection for cpp-httplib: first exactly the
/// header bytes the gate saw arrive (read in one go, so nothing after them
/// is consumed), then the socket itself, with deadlines on the whole body
/// read and the whole response write, and a cap on body bytes.
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(int fd, std::chrono::milliseconds io_timeout)
      : fd_(fd), io_timeout_(io_timeout), read_deadline_(Clock::now() + io_timeout) {}

  /// Reads the `bytes` of request line and headers (already in the socket).
  bool prefetch(size_t bytes) {
    head_.resize(bytes);
    size_t got = 0;
    while (got < bytes) {
      ssize_t n = ::recv(fd_, head_.data() + got, bytes - got, MSG_DONTWAIT);
      if (n > 0) {
        got += static_cast<size_t>(n);
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR) ||
                 !wait_for(fd_, POLLIN, read_deadline_)) {
        return false;
      }
    }
    return true;
  }
  /// Whether cpp-httplib read exactly the header bytes (and any body).
  bool head_consumed() const { return head_pos_ == head_.size(); }

  bool is_readable() const override {
    return head_pos_ < head_.size() || wait_for(fd_, POLLIN, read_deadline_);
  }
  bool is_writable() const override { return wait_for(fd_, POLLOUT, write_deadline()); }

  ssize_t read(char* ptr, size_t size) override {
    if (head_pos_ < head_.size()) {
      size_t n = std::min(size, head_.size() - head_pos_);
      std::memcpy(ptr, head_.data() + head_pos_, n);
      head_pos_ += n;
      return static_cast<ssize_t>(n);
    }
    if (body_read_ >= kMaxBodyBytes) return -1;
    size = std::min(size, kMaxBodyBytes - body_read_);
    while (true) {
      ssize_t n = ::recv(fd_, ptr, size, MSG_DONTWAIT);
      if (n >= 0) {
        body_read_ += static_cast<size_t>(n);
        return n;
      }
      if ((errno != EAGAIN && errno != EINTR) || !wait_for(fd_, POLLIN, read_deadline_)) return -1;
    }
  }

  ssize_t write(const char* ptr, size_t size) override {
    while (true) {
      ssize_t n = ::send(fd_, ptr, size, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n >= 0) return n;
      if ((errno != EAGAIN && errno != EINTR) || !wait_for(fd_, POLLOUT, write_deadline()))
        return -1;
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(fd_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(fd_, false, ip, port);
  }
  socket_t socket() const override { return fd_; }

 private:
  /// The whole response must be written within io_timeout of its first byte.
  Clock::time_point write_deadline() const {
    if (!write_deadline_) write_deadline_ = Clock::now() + io_timeout_;
    return *write_deadline_;
  }

  int fd_;
  std::chrono::milliseconds io_timeout_;
  Clock::time_point read_deadline_;
  mutable std::optional<Clock::time_point> write_deadline_;
  std::string head_;
  size_t head_pos_ = 0;
  size_t body_read_ = 0;
};

/// The status of the response this thread wrote last (cpp-httplib's logger
/// sees every response, on the thread that wrote it).
thread_local int t_last_status = 0;

/// Does what cpp-httplib's pool would, one connection at a time.
class InlineQueue : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

}  // namespace

/// cpp-httplib's Server with the connections handed to a ConnectionGate:
/// its accept loop calls process_and_close_socket() (virtual) for each
/// accepted socket, on the accept thread (InlineQueue), and that only
/// passes the socket on. Requests are answered by `threads` workers through
/// Server::process_request(), the same parser and routes as before.
class GatedServer : public httplib::Server {
 public:
  explicit GatedServer(const HttpServerOptions& o)
      : options_(o),
        gate_(GateLimits{o.header_timeout, o.max_header_bytes, o.max_waiting, o.max_ready}) {
    new_task_queue = [] { return new InlineQueue; };
    set_logger(
        [](const httplib::Request&, const httplib::Response& res) { t_last_status = res.status; });
    for (int i = 0; i < std::max(2, o.threads); ++i) workers_.emplace_back([this] { work(); });
  }
  ~GatedServer() override {
    gate_.stop();
    for (std::thread& t : workers_) t.join();
  }

  /// cpp-httplib 0.11 listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG,
  /// compiled into the library); listen() again on Linux raises it, so a
  /// burst of connections is queued by the kernel instead of dropped.
  void raise_backlog() {
    if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, 1024);
  }

  GateCounts gate_counts() const { return gate_.counts(); }

 private:
  bool process_and_close_socket(socket_t sock) override {
    gate_.add(sock, 0);
    return true;
  }

  void work() {
    while (std::optional<ReadyConnection> c = gate_.next()) serve(*c);
  }

  void serve(const ReadyConnection& c) {
    DeadlineStream strm(c.fd, options_.io_timeout);
    const bool last = c.served + 1 >= options_.keep_alive_max_count;
    bool closed_by_client = false;
    t_last_status = 0;
    bool ok =
        strm.prefetch(c.header_bytes) && process_request(strm, last, closed_by_client, nullptr);
    // An error (a malformed request, 413, 414...) ends the connection; a
    // missing page (404) does not.
    const bool error = t_last_status >= 400 && t_last_status != 404;
    if (ok && !last && !closed_by_client && !error && strm.head_consumed()) {
      gate_.add(c.fd, c.served + 1);  // the next request, under the header deadline again
      return;
    }
    ::shutdown(c.fd, SHUT_RDWR);
    ::close(c.fd);
  }

  const HttpServerOptions options_;
  ConnectionGate gate_;
  std::vector<std::thread> workers_;
};

Result<std::pair<std::string, int>> parse_listen_address(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos)
    return Error{ErrorKind::kMalformed, "'" + text + "' is not ADDR:PORT"};
  std::string host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  char* end = nullptr;
  long p = port.empty() ? -1 : std::strtol(port.c_str(), &end, 10);
  if (p < 0 || p > 65535 || (end != nullptr && *end != '\0'))
    return Error{ErrorKind::kMalformed, "'" + port + "' is not a port (0-65535)"};
  return std::make_pair(host, static_cast<int>(p));
}

std::chrono::milliseconds scrape_wait(std::chrono::milliseconds configured,
                                      const std::string& header) {
  if (header.empty()) return configured;
  char* end = nullptr;
  double s = std::strtod(header.c_str(), &end);
  if (end == header.c_str() || std::strspn(end, " \t") != std::strlen(end)) return configured;
  // Checked before the multiplication and the cast: 1e300 * 1000 as a
  // long long is undefined behaviour.
  if (!std::isfinite(s) || !(s > 0) || s > kMaxScrapeTimeoutHeaderS) return configured;
  auto asked = std::chrono::milliseconds(std::llround(s * 1000) - 500);
  return std::clamp(asked, std::chrono::milliseconds(0), configured);
}

HttpServer::HttpServer(ReportCache& cache, HttpServerOptions options)
    : cache_(cache),
      options_(std::move(options)),
      server_(std::make_unique<GatedServer>(options_)) {
  // Used by cpp-httplib for the Keep-Alive header it writes, and for bodies.
  server_->set_keep_alive_timeout(
      std::chrono::duration_cast<std::chrono::seconds>(options_.header_timeout).count());
  server_->set_keep_alive_max_count(
      static_cast<size_t>(std::max(1, options_.keep_alive_max_count)));
  server_->set_payload_max_length(kMaxBodyBytes);
  add_routes();
}

HttpServer::~HttpServer() = default;

void HttpServer::add_routes() {
  server_->Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    auto wait = scrape_wait(options_.scrape_timeout,
                            req.get_header_value("X-Prometheus-Scrape-Timeout-Seconds"));
    std::shared_ptr<const CachedReport> r = cache_.get(wait);
    MetricSet serve;
    add_serve_metrics(cache_.stats(Clock::now()), r ? r->hostname : std::nullopt, serve);
    std::ostringstream body;
    if (r) body << r->metrics;
    serve.write(body);
    if (r) res.set_header("Age", age_header(*r));
    res.set_content(body.str(), kMetricsType);
  });
  server_->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    std::shared_ptr<const CachedReport> r = cache_.get(options_.scrape_timeout);
    if (!r) {
      res.status = 503;
      res.set_header("Retry-After", "1");
      res.set_content("{\"status\": \"collecting\"}\n", "application/json");
      return;
    }
    res.set_header("Age", age_header(*r));
    res.set_header("X-GPU-Triage-Verdict", r->verdict);
    res.set_content(r->json, "application/json");
  });
  server_->Get("/", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(options_.bundle ? kIndexWithBundle : kIndex, "text/html; charset=utf-8");
  });
  if (options_.bundle) add_bundle_route();
}

void HttpServer::add_bundle_route() {
  server_->Get("/bundle", [this](const httplib::Request&, httplib::Response& res) {
    // A bundle runs the triage and nvidia-smi: one at a time.
    if (bundle_busy_.exchange(true)) {
      res.status = 429;
      res.set_header("Retry-After", "10");
      res.set_content("a bundle is being built; try again when it is done\n", "text/plain");
      return;
    }
    Result<BundleDownload> b = options_.bundle();
    bundle_busy_ = false;
    if (!b) {
      res.status = 500;
      res.set_content(b.error().message + "\n", "text/plain; charset=utf-8");
      return;
    }
    const bool gzip =
        b->file_name.size() > 3 && b->file_name.compare(b->file_name.size() - 3, 3, ".gz") == 0;
    res.set_header("Content-Disposition", "attachment; filename=\"" + b->file_name + "\"");
    res.set_content(b->bytes, gzip ? "application/gzip" : "application/zstd");
  });
}

Result<int> HttpServer::bind() {
  int port = options_.port;
  bool ok = false;
  if (port == 0) {
    port = server_->bind_to_any_port(options_.host);
    ok = port > 0;
  } else {
    ok = server_->bind_to_port(options_.host, port);
  }
  if (!ok)
    return Error{ErrorKind::kIo, "cannot listen on " + options_.host + ":" +
                                     std::to_string(options_.port) +
                                     " (address in use, or not an address of this host)"};
  server_->raise_backlog();
  return port;
}

bool HttpServer::run() { return server_->listen_after_bind(); }

void HttpServer::stop() { server_->stop(); }

}  // namespace gt
