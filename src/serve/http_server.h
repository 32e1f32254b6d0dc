// The HTTP side of `gpu-triage serve` (cpp-httplib, Debian's
// libcpp-httplib-dev 0.11): GET /metrics (Prometheus text), GET /healthz
// (the JSON report), GET / (a page naming both), and with
// serve --allow-bundle GET /bundle (a bundle of the node, built then).
//
// cpp-httplib parses requests and writes responses; the connections are
// ours. Accepted sockets wait in a ConnectionGate (one epoll thread, no
// thread per connection) until their headers have all arrived, within a
// deadline and a size limit; only then does one of a fixed pool of request
// threads read and answer the request, through a stream with its own read
// and write deadlines. A slow client therefore holds a socket slot, never a
// thread, and the slots are bounded too (docs/design.md, "Serving metrics").
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "serve/report_cache.h"
#include "util/result.h"

namespace gt {

class GatedServer;

/// What GET /bundle sends: an archive and the name to save it under.
struct BundleDownload {
  std::string file_name;  ///< "gpu-triage-bundle-HOST-TIME.tar.zst", no folder
  std::string bytes;
};

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 9835;  ///< 0 picks a free port (tests)
  /// Longest a scrape waits for a collection; a Prometheus scrape also
  /// bounds it by its X-Prometheus-Scrape-Timeout-Seconds header minus 0.5 s.
  std::chrono::milliseconds scrape_timeout{10000};
  int threads = 16;                    ///< request threads
  std::chrono::seconds io_timeout{5};  ///< reading a body, writing a response; keep-alive idle
  /// The request line and headers must all arrive within this of the
  /// connection being accepted (or the previous response); then it is closed.
  std::chrono::milliseconds header_timeout{5000};
  size_t max_header_bytes = 8192;  ///< request line and headers; more is 431
  size_t max_waiting = 256;        ///< connections waiting for headers; more closes the oldest
  size_t max_ready = 256;          ///< complete requests queued for a thread; more is 503
  int keep_alive_max_count = 100;  ///< requests on one connection
  /// GET /bundle builds one bundle with this (serve --allow-bundle); unset,
  /// there is no /bundle (404). One at a time: a second while one is being
  /// built is 429.
  std::function<Result<BundleDownload>()> bundle;
  // So at most max_waiting + max_ready + threads sockets (528) are open:
  // well under a service's usual soft limit of 1024 descriptors, which the
  // collection needs too (it opens /proc and /sys files).
};

/// "host:port", "[v6]:port" or ":port" (all addresses). Port 0-65535.
Result<std::pair<std::string, int>> parse_listen_address(const std::string& text);

/// The largest X-Prometheus-Scrape-Timeout-Seconds taken into account.
constexpr double kMaxScrapeTimeoutHeaderS = 3600;

/// How long a scrape may wait: `configured`, or less when Prometheus's
/// scrape timeout header (seconds, e.g. "10") asks for less. Never below 0.
/// A header that is not a finite number of seconds in (0, 3600] ("1e300",
/// "inf", "nan", "-1", "10x") is ignored.
std::chrono::milliseconds scrape_wait(std::chrono::milliseconds configured,
                                      const std::string& prometheus_timeout_header);

class HttpServer {
 public:
  HttpServer(ReportCache& cache, HttpServerOptions options);
  ~HttpServer();

  /// Binds the listening socket; returns the port (the chosen one for 0).
  Result<int> bind();
  /// Serves until stop(). Returns false when the server failed.
  bool run();
  /// Makes run() return; safe from another thread.
  void stop();

 private:
  void add_routes();
  void add_bundle_route();

  ReportCache& cache_;
  HttpServerOptions options_;
  std::unique_ptr<GatedServer> server_;
  std::atomic<bool> bundle_busy_{false};
};

}  // namespace gt
