// `gpu-triage serve` under arbitrary bytes on its socket: one real server
// (our routes, cpp-httplib's request parsing, the scrape-timeout header)
// listens on 127.0.0.1 with a fixed report; each input is sent on a fresh
// connection, the write side is closed and the answer read until the server
// closes or 2 s pass. Loopback only.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "fuzz_target.h"
#include "serve/http_server.h"
#include "serve/report_cache.h"

namespace http_request_fuzz {

int g_port = 0;

gt::ReportCache::Collected fixed_report() {
  auto r = std::make_shared<gt::CachedReport>();
  r->metrics = "# HELP gpu_triage_gpus GPUs\n# TYPE gpu_triage_gpus gauge\ngpu_triage_gpus 8\n";
  r->json = "{\"verdict\": \"OK\"}\n";
  r->verdict = "OK";
  r->hostname = "fuzz";
  r->finished = std::chrono::steady_clock::now();
  return gt::ReportCache::Collected{r, false};
}

void start_server() {
  using namespace std::chrono_literals;
  // Never freed: the server thread lives as long as the process.
  auto* cache = new gt::ReportCache(fixed_report, gt::ReportCacheOptions{3600s, 60s, 16});
  gt::HttpServerOptions o;
  o.port = 0;
  o.scrape_timeout = 1s;
  o.io_timeout = std::chrono::seconds(2);
  auto* server = new gt::HttpServer(*cache, o);
  auto port = server->bind();
  if (!port) {
    std::fprintf(stderr, "http_request_fuzz: cannot bind 127.0.0.1\n");
    std::abort();
  }
  g_port = *port;
  std::thread([server] { server->run(); }).detach();
}

int connect_loopback() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(g_port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void send_all(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) return;  // the server may close early on garbage: fine
    data += n;
    size -= size_t(n);
  }
}

void drain(int fd) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    if (recv(fd, buf, sizeof buf, 0) <= 0) return;
  }
}

GT_FUZZ_INITIALIZE(http_request) {
  start_server();
  return 0;
}

GT_FUZZ_TARGET(http_request) {
  int fd = connect_loopback();
  if (fd < 0) std::abort();  // the server must keep accepting
  send_all(fd, data, size);
  shutdown(fd, SHUT_WR);
  drain(fd);
  close(fd);
  return 0;
}

}  // namespace http_request_fuzz
