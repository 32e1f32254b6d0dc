#include "serve/http_server.h"

#include <httplib.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace gt {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kMetricsType = "text/plain; version=0.0.4; charset=utf-8";

constexpr const char* kIndex =
    "<html><head><title>gpu-triage</title></head><body><h1>gpu-triage</h1>"
    "<p><a href=\"/metrics\">/metrics</a>: Prometheus metrics</p>"
    "<p><a href=\"/healthz\">/healthz</a>: the report as JSON</p></body></html>\n";

/// Seconds since the report was collected, rounded down (the HTTP Age header).
std::string age_header(const CachedReport& r) {
  auto age = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - r.finished);
  return std::to_string(std::max<long long>(0, age.count()));
}

}  // namespace

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
  if (end == header.c_str() || !(s > 0)) return configured;
  auto asked = std::chrono::milliseconds(static_cast<long long>(s * 1000) - 500);
  return std::clamp(asked, std::chrono::milliseconds(0), configured);
}

HttpServer::HttpServer(ReportCache& cache, HttpServerOptions options)
    : cache_(cache), options_(std::move(options)), server_(std::make_unique<httplib::Server>()) {
  const int threads = std::max(2, options_.threads);
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->set_read_timeout(options_.io_timeout);
  server_->set_write_timeout(options_.io_timeout);
  server_->set_keep_alive_timeout(options_.io_timeout.count());
  server_->set_keep_alive_max_count(100);
  server_->set_payload_max_length(64 * 1024);
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
  server_->Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(kIndex, "text/html; charset=utf-8");
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
  return port;
}

bool HttpServer::run() { return server_->listen_after_bind(); }

void HttpServer::stop() { server_->stop(); }

}  // namespace gt
