#include "serve/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

namespace gt {
namespace {

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
    HttpServerOptions o;
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

}  // namespace
}  // namespace gt
