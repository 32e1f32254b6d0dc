#include "serve/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "serve/connection_gate.h"

namespace gt {
namespace http_server_test {

using namespace std::chrono_literals;

TEST(HttpServer, ParsesListenAddresses) {
  auto a = parse_listen_address("127.0.0.1:9835");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->first, "127.0.0.1");
  EXPECT_EQ(a->second, 9835);
  auto b = parse_listen_address("[::1]:0");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->first, "::1");
  EXPECT_EQ(b->second, 0);
  auto c = parse_listen_address(":9835");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->first, "0.0.0.0");
  EXPECT_FALSE(parse_listen_address("9835"));
  EXPECT_FALSE(parse_listen_address("host:99999"));
  EXPECT_FALSE(parse_listen_address("host:12x"));
}

TEST(HttpServer, ScrapeWaitFollowsPrometheusTimeoutHeader) {
  EXPECT_EQ(scrape_wait(10s, ""), 10s);
  EXPECT_EQ(scrape_wait(10s, "3"), 2500ms);
  EXPECT_EQ(scrape_wait(10s, "30"), 10s);
  EXPECT_EQ(scrape_wait(10s, "0.2"), 0ms);
  EXPECT_EQ(scrape_wait(10s, "junk"), 10s);
}

TEST(HttpServer, ScrapeWaitIgnoresHeadersOutOfRange) {
  // "1e300" used to reach static_cast<long long>(1e303): undefined behaviour.
  for (const char* h : {"1e300", "inf", "-inf", "nan", "-1", "0", "3601", "1e9", "10x", "0x"})
    EXPECT_EQ(scrape_wait(10s, h), 10s) << h;
  EXPECT_EQ(scrape_wait(10s, "3600"), 10s);
  EXPECT_EQ(scrape_wait(10s, " 3 "), 2500ms);
  EXPECT_EQ(scrape_wait(10s, "1e-300"), 0ms);
}

TEST(ConnectionGate, HeaderBlockEndsAtTheFirstBlankLine) {
  auto len = [](const std::string& s) { return header_block_length(s.data(), s.size()); };
  EXPECT_EQ(len("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 27u);
  EXPECT_EQ(len("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics"), 27u);
  EXPECT_EQ(len("GET / HTTP/1.1\r\nHost: x\r\n"), 0u);
  EXPECT_EQ(len("GET / HTTP/1.1\nX: y\n\r\n"), 22u);
  EXPECT_EQ(len("\r\n"), 2u);
  EXPECT_EQ(len(""), 0u);
}

class ServerFixture : public ::testing::Test {
 protected:
  void start(std::chrono::milliseconds delay) {
    cache_ = std::make_unique<ReportCache>(
        [delay] {
          std::this_thread::sleep_for(delay);
          auto r = std::make_shared<CachedReport>();
          r->metrics =
              "# HELP gpu_triage_gpus GPUs\n# TYPE gpu_triage_gpus gauge\ngpu_triage_gpus 8\n";
          r->json = "{\"verdict\": \"OK\"}\n";
          r->verdict = "OK";
          r->hostname = "n1";
          r->finished = std::chrono::steady_clock::now();
          return ReportCache::Collected{r, false};
        },
        ReportCacheOptions{10s, 60s, 16});
    HttpServerOptions o = options_;
    o.port = 0;
    o.scrape_timeout = 2s;
    server_ = std::make_unique<HttpServer>(*cache_, o);
    auto port = server_->bind();
    ASSERT_TRUE(port);
    port_ = *port;
    thread_ = std::thread([this] { server_->run(); });
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
  }
  HttpServerOptions options_;
  std::unique_ptr<ReportCache> cache_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  int port_ = 0;
};

TEST_F(ServerFixture, MetricsHealthzAndNotFound) {
  start(0ms);
  httplib::Client cli("127.0.0.1", port_);
  auto m = cli.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  EXPECT_EQ(m->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(m->body.find("gpu_triage_gpus 8\n"), std::string::npos);
  EXPECT_NE(m->body.find("gpu_triage_collections_total{Hostname=\"n1\"} 1\n"), std::string::npos);
  EXPECT_NE(m->body.find("gpu_triage_report_age_seconds{Hostname=\"n1\"} "), std::string::npos);
  auto h = cli.Get("/healthz");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  EXPECT_EQ(h->body, "{\"verdict\": \"OK\"}\n");
  EXPECT_EQ(h->get_header_value("X-GPU-Triage-Verdict"), "OK");
  auto n = cli.Get("/nope");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->status, 404);
}

TEST_F(ServerFixture, BeforeTheFirstCollectionHealthzIs503AndMetricsSaySo) {
  start(1500ms);
  cache_->refresh();
  httplib::Client cli("127.0.0.1", port_);
  httplib::Headers hdr = {{"X-Prometheus-Scrape-Timeout-Seconds", "0.6"}};
  auto t0 = std::chrono::steady_clock::now();
  auto m = cli.Get("/metrics", hdr);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  EXPECT_NE(m->body.find("gpu_triage_collection_in_progress 1\n"), std::string::npos);
  EXPECT_EQ(m->body.find("gpu_triage_gpus"), std::string::npos);
}

// A raw loopback connection to the server under test.
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }
  bool send(const std::string& s) {
    return ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
  }
  /// Everything the server sends until it closes, or until `limit` passes.
  std::string read_until_closed(std::chrono::milliseconds limit) {
    std::string out;
    auto deadline = std::chrono::steady_clock::now() + limit;
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }
  bool closed() const { return closed_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool closed_ = false;
};

TEST_F(ServerFixture, SlowHeadersAreCutAtTheHeaderDeadline) {
  options_.header_timeout = 600ms;
  start(0ms);
  RawClient slow(port_);
  ASSERT_TRUE(slow.connected());
  ASSERT_TRUE(slow.send("GET /metrics HTTP/1.1\r\nHo"));  // and then nothing more
  auto t0 = std::chrono::steady_clock::now();
  slow.read_until_closed(3s);
  EXPECT_TRUE(slow.closed());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1500ms);
}

TEST_F(ServerFixture, SlowClientsHoldNoThread) {
  options_.threads = 2;
  options_.header_timeout = 10s;
  start(0ms);
  // Many more slow clients than request threads, each mid-header.
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 20; ++i) {
    slow.push_back(std::make_unique<RawClient>(port_));
    ASSERT_TRUE(slow.back()->send("GET /metrics HTTP/1.1\r\n"));
  }
  httplib::Client cli("127.0.0.1", port_);
  cli.set_read_timeout(2, 0);
  auto t0 = std::chrono::steady_clock::now();
  auto m = cli.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  // Their requests still work once complete.
  ASSERT_TRUE(slow[0]->send("Host: x\r\nConnection: close\r\n\r\n"));
  EXPECT_NE(slow[0]->read_until_closed(2s).find("gpu_triage_gpus 8\n"), std::string::npos);
}

TEST_F(ServerFixture, OversizedHeadersGet431) {
  options_.max_header_bytes = 1024;
  start(0ms);
  RawClient c(port_);
  ASSERT_TRUE(c.send("GET /metrics HTTP/1.1\r\nX-Junk: " + std::string(2000, 'a')));
  std::string got = c.read_until_closed(2s);
  EXPECT_TRUE(c.closed());
  EXPECT_TRUE(got.empty() || got.starts_with("HTTP/1.1 431")) << got;
}

TEST_F(ServerFixture, WaitingConnectionsAreBoundedOldestFirst) {
  options_.max_waiting = 4;
  options_.header_timeout = 10s;
  start(0ms);
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 6; ++i) {
    idle.push_back(std::make_unique<RawClient>(port_));
    std::this_thread::sleep_for(20ms);  // accepted in this order
  }
  idle[0]->read_until_closed(1s);
  idle[1]->read_until_closed(1s);
  EXPECT_TRUE(idle[0]->closed());
  EXPECT_TRUE(idle[1]->closed());
  idle[5]->read_until_closed(200ms);
  EXPECT_FALSE(idle[5]->closed());
}

TEST_F(ServerFixture, KeepAliveAndPipelinedRequestsAreAnswered) {
  start(0ms);
  RawClient c(port_);
  ASSERT_TRUE(
      c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n"
             "Connection: close\r\n\r\n"));
  std::string got = c.read_until_closed(3s);
  EXPECT_TRUE(c.closed());
  EXPECT_NE(got.find("<h1>gpu-triage</h1>"), std::string::npos) << got;
  EXPECT_NE(got.find("gpu_triage_gpus 8\n"), std::string::npos) << got;
}

TEST_F(ServerFixture, GarbageIsAnsweredOrClosedAndTheServerStaysUp) {
  start(0ms);
  for (const std::string& junk :
       {std::string("\r\n\r\n"), std::string("GARBAGE\r\n\r\n"),
        std::string(100, '\0') + "\r\n\r\n",
        std::string("GET /metrics HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n"
                    "Connection: close\r\n\r\n"),
        std::string("GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Seconds: 1e300\r\n"
                    "Connection: close\r\n\r\n")}) {
    RawClient c(port_);
    ASSERT_TRUE(c.send(junk));
    c.read_until_closed(3s);
    EXPECT_TRUE(c.closed()) << junk;
  }
  httplib::Client cli("127.0.0.1", port_);
  auto m = cli.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
}

}  // namespace http_server_test
}  // namespace gt
