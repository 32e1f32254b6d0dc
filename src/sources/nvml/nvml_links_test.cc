// NVLink enumeration and counter growth over the sample window.
#include "sources/nvml/nvml_links.h"

#include <gtest/gtest.h>

#include "sources/nvml/nvml_test_util.h"

namespace gt {
namespace nvml_links_test {

using testing_nvml::bare_device;
/// One suite per file: gtest wants one fixture class per suite name.
class LinksMock : public testing_nvml::MockNvml {};
using testing_nvml::scenario_on;

TEST(NvLinkCounters, GrowthIsNullWhenUnknownOrBackwards) {
  EXPECT_EQ(counter_growth(5, 9), 4u);
  EXPECT_EQ(counter_growth(5, 5), 0u);
  EXPECT_FALSE(counter_growth(9, 5));
  EXPECT_FALSE(counter_growth(std::nullopt, 5));
  EXPECT_FALSE(counter_growth(5, std::nullopt));
}

// 4 links to 2 switches; link 2 down; link 1's replay counter grows 100/s,
// link 3's CRC flit counter runs backwards (a reset between the reads).
constexpr const char* kLinks = R"(, "nvlinks": {"count": 4,
    "template": {"active": true, "version": 6, "remote_device_type": "switch",
                 "remote_bus_id": ["00000000:05:00.0", "00000000:06:00.0"],
                 "errors": {"crc_flit": 0, "crc_data": 0, "replay": 0, "recovery": 0}},
    "links": {"1": {"errors": {"replay": {"base": 10, "per_s": 100}}},
              "2": {"active": false},
              "3": {"errors": {"crc_flit": {"base": 1000, "per_s": -1000}}}}})";

TEST_F(LinksMock, LinksAndCounterGrowthOverTheWindow) {
  NodeSnapshot s = collect(scenario_on(bare_device(kLinks)), 300);
  ASSERT_EQ(s.gpus.size(), 1u);
  ASSERT_TRUE(s.gpus[0].nvlinks);
  const std::vector<NvLink>& l = *s.gpus[0].nvlinks;
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].active, true);
  EXPECT_EQ(l[0].version, 6u);
  EXPECT_EQ(l[0].remote_device_type, "switch");
  EXPECT_EQ(l[0].remote_pci_bus_id, "0000:05:00.0");  // normalized
  EXPECT_EQ(l[1].remote_pci_bus_id, "0000:06:00.0");
  EXPECT_EQ(l[2].active, false);
  EXPECT_FALSE(l[2].remote_pci_bus_id);  // a down link has no known peer
  EXPECT_EQ(l[0].errors.crc_flit, 0u);
  EXPECT_EQ(l[0].errors_growth.replay, 0u);
  ASSERT_TRUE(l[1].errors_growth.replay);
  EXPECT_GE(*l[1].errors_growth.replay, 15u);  // ~30 over 0.3 s
  EXPECT_LE(*l[1].errors_growth.replay, 80u);
  EXPECT_GE(*l[1].errors.replay, 25u);
  EXPECT_FALSE(l[3].errors_growth.crc_flit);  // went backwards
  EXPECT_EQ(l[3].errors_growth.crc_data, 0u);
  EXPECT_TRUE(s.gpus[0].errors.empty()) << s.gpus[0].errors.front();
}

TEST_F(LinksMock, NoWindowMeansNoGrowth) {
  NodeSnapshot s = collect(scenario_on(bare_device(kLinks)), 0);
  ASSERT_TRUE(s.gpus[0].nvlinks);
  // The counter grows 100/s from the mock's start: read at once, it is 10
  // plus what a loaded machine's delay adds (11 was seen under load 18).
  ASSERT_TRUE((*s.gpus[0].nvlinks)[1].errors.replay);
  EXPECT_GE(*(*s.gpus[0].nvlinks)[1].errors.replay, 10u);
  EXPECT_LT(*(*s.gpus[0].nvlinks)[1].errors.replay, 110u);
  EXPECT_FALSE((*s.gpus[0].nvlinks)[1].errors_growth.replay);
  EXPECT_FALSE((*s.gpus[0].nvlinks)[0].errors_growth.crc_flit);
}

TEST_F(LinksMock, NoNvLinkIsNullWithoutErrors) {
  NodeSnapshot s = collect(scenario_on(bare_device()));
  EXPECT_FALSE(s.gpus[0].nvlinks);
  EXPECT_TRUE(s.gpus[0].errors.empty());
}

TEST_F(LinksMock, HangInLinkCounterIsNamed) {
  NodeSnapshot s;
  auto lib = load(scenario_on(
      bare_device(std::string(kLinks) + R"(, "hang_in": "nvmlDeviceGetNvLinkErrorCounter")")));
  ASSERT_TRUE(lib);
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(0);
  o.timeout = std::chrono::milliseconds(300);
  collect_nvml(lib, o, s);
  EXPECT_EQ(s.gpus[0].status, GpuStatus::kUnresponsive);
  EXPECT_EQ(s.gpus[0].stuck_in_call, "nvmlDeviceGetNvLinkErrorCounter");
}

}  // namespace nvml_links_test
}  // namespace gt
