#include "report/json_report.h"

#include <gtest/gtest.h>

#include <sstream>

#include "render/golden.h"
#include "render/test_snapshot.h"

namespace gt {
namespace json_report_test {

TEST(JsonReport, MatchesGolden) {
  std::ostringstream out;
  render_json(make_test_report(), out);
  expect_golden("snapshot.json", out.str());
}

TEST(JsonReport, UnknownIsNullNeverZero) {
  nlohmann::ordered_json j = snapshot_to_json(make_test_snapshot());
  const auto& lost = j["gpus"][1];
  EXPECT_EQ(lost["status"], "lost");
  EXPECT_TRUE(lost["memory"]["used_bytes"].is_null());
  EXPECT_TRUE(lost["temperature"]["gpu_c"].is_null());
  EXPECT_TRUE(lost["processes"].is_null());
  const auto& g0 = j["gpus"][0];
  EXPECT_TRUE(g0["fan"]["speed_pct"].is_null());
  EXPECT_TRUE(g0["retired_pages"]["pending"].is_null());
  EXPECT_EQ(g0["memory"]["used_bytes"], 75800000000ull);
  EXPECT_EQ(g0["processes"][0]["owner"]["name"], "sglang.service");
  EXPECT_EQ(g0["processes"][1]["visible"], false);
  EXPECT_TRUE(g0["processes"][1]["cmdline"].is_null());
  EXPECT_EQ(g0["clocks_event_reasons"]["active_names"][0], "gpu_idle");
  EXPECT_EQ(g0["pstate"], "P1");
}

TEST(JsonReport, InvalidUtf8InACommandLineDoesNotThrow) {
  Report s = make_test_report();
  (*s.snapshot.gpus[0].processes)[0].cmdline = std::string("python3 \xff\xfe bad");
  std::ostringstream out;
  EXPECT_NO_THROW(render_json(s, out));
  EXPECT_NE(out.str().find("python3"), std::string::npos);
}

}  // namespace json_report_test
}  // namespace gt
