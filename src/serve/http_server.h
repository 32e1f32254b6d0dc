// The HTTP side of `gpu-triage serve` (cpp-httplib, Debian's
// libcpp-httplib-dev): GET /metrics (Prometheus text), GET /healthz (the
// JSON report), GET / (a page naming both).
//
// Requests run on a fixed pool of threads; a scrape only reads the cache,
// so a client that sends its headers slowly holds one thread and no lock,
// and every other client is served by the rest of the pool.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "serve/report_cache.h"
#include "util/result.h"

namespace httplib {
class Server;
}

namespace gt {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 9835;  ///< 0 picks a free port (tests)
  /// Longest a scrape waits for a collection; a Prometheus scrape also
  /// bounds it by its X-Prometheus-Scrape-Timeout-Seconds header minus 0.5 s.
  std::chrono::milliseconds scrape_timeout{10000};
  int threads = 16;                    ///< request threads
  std::chrono::seconds io_timeout{5};  ///< per read/write on a connection
};

/// "host:port", "[v6]:port" or ":port" (all addresses). Port 0-65535.
Result<std::pair<std::string, int>> parse_listen_address(const std::string& text);

/// How long a scrape may wait: `configured`, or less when Prometheus's
/// scrape timeout header (seconds, e.g. "10") asks for less. Never below 0.
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

  ReportCache& cache_;
  HttpServerOptions options_;
  std::unique_ptr<httplib::Server> server_;
};

}  // namespace gt
