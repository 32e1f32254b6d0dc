#include "collect/gathered.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace gt {
namespace gathered_test {

using namespace std::chrono_literals;

std::string fixture(const std::string& rel) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// An answer of a healthy A10G node: nvidia-smi's XML, its name, one Xid in
/// its kernel log and df of /.
Gathered a10g_answer() {
  Gathered g;
  g.outs["nvidia-smi"] = {
      "0", fixture("tests/fixtures/real/nvidia-smi-xml/telegraf-a10g-515.105.01.xml")};
  g.outs["hostname"] = {"0", "n1"};
  g.outs["kernel-log"] = {"dmesg", "NVRM: Xid (PCI:0000:00:1e): 79, GPU has fallen off the bus.\n"};
  g.outs["df"] = {"0",
                  "Filesystem 1024-blocks Used Available Capacity Mounted on\n"
                  "/dev/sda1 1000 900 100 90% /\n"};
  g.complete = true;
  return g;
}

TEST(Gathered, IsCollectedThroughThePipelineNotJudged) {
  Result<Report> r = collect_gathered(a10g_answer(), GatheredInputs{});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const NodeSnapshot& s = r->snapshot;
  EXPECT_EQ(s.source, Origin::kGathered);
  EXPECT_EQ(s.hostname, "n1");
  EXPECT_EQ(s.nvml.library_path, "nvidia-smi (over ssh)");
  EXPECT_FALSE(s.gpus.empty());
  ASSERT_TRUE(s.kernel_log);
  EXPECT_EQ(s.kernel_log->events.size(), 1u);
  EXPECT_EQ(s.kernel_log->sources.at(0).name, "dmesg (over ssh)");
  ASSERT_EQ(s.disks.size(), 1u);
  EXPECT_EQ(s.disks[0].total_bytes, 1024000u);
  // Collected, not judged: the Xid is an event, not yet a finding.
  EXPECT_TRUE(r->findings.empty());
  EXPECT_EQ(r->verdict, Severity::kOk);
}

TEST(Gathered, CollectsOnlyTheStagesAsked) {
  GatheredInputs in;
  in.stages = without(kAllStages, Stage::kKernelLog);
  Result<Report> r = collect_gathered(a10g_answer(), in);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->snapshot.kernel_log);
  EXPECT_EQ(r->snapshot.disks.size(), 1u);
}

TEST(Gathered, AKilledNvidiaSmiNamesItsDeadline) {
  Gathered g = a10g_answer();
  g.outs["nvidia-smi"] = {"124", ""};
  GatheredInputs in;
  in.smi_deadline = 18500ms;
  Result<Report> r = collect_gathered(g, in);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->snapshot.nvml.init_error, NvmlInitError::kTimeout);
  EXPECT_EQ(r->snapshot.nvml.error_message,
            "nvidia-smi -q -x did not finish within 18 s (killed): the driver is probably wedged");
}

TEST(Gathered, NoOrUnreadableNvidiaSmiAnswerIsAnError) {
  Gathered g = a10g_answer();
  g.outs.erase("nvidia-smi");
  Result<Report> none = collect_gathered(g, GatheredInputs{});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(none.error().message, "no nvidia-smi output came back");
  g.outs["nvidia-smi"] = {"0", "Segmentation fault\n"};
  Result<Report> junk = collect_gathered(g, GatheredInputs{});
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.error().kind, ErrorKind::kMalformed);
  EXPECT_TRUE(junk.error().message.starts_with("nvidia-smi output unreadable: neither "))
      << junk.error().message;
}

TEST(Gathered, ParseDf) {
  auto d = parse_df({"/", "/data", "/home"},
                    "Filesystem 1024-blocks Used Available Capacity Mounted on\n"
                    "/dev/sda1 1000 900 100 90% /\n/dev/sdb 2000 0 2000 0% /data\n"
                    "/dev/sda1 1000 900 100 90% /\n",
                    "Filesystem Inodes IUsed IFree IUse% Mounted on\n"
                    "/dev/sda1 50 10 40 20% /\n/dev/sdb 0 0 0 - /data\n/dev/sda1 50 10 40 20% /\n");
  ASSERT_EQ(d.size(), 2u);  // /home is on / again
  EXPECT_EQ(d[0].total_bytes, 1024000u);
  EXPECT_EQ(d[0].available_bytes, 102400u);
  EXPECT_EQ(d[0].inodes_available, 40u);
  EXPECT_FALSE(d[1].inodes_total);  // no inode limit
}

// Sizes no 64-bit count holds are unread (an error, so disk.unreadable
// says it), never null without a word (a host judged OK, its disk unchecked).
TEST(GatheredHostile, HugeNumbersInDfAreUnreadNamingTheLine) {
  auto d = parse_df({"/", "/data", "/home"},
                    "Filesystem 1024-blocks Used Available Capacity Mounted on\n"
                    "/dev/sda1 99999999999999999999999 1 2 90% /\n"
                    "/dev/sdb 18446744073709551615 0 18446744073709551615 0% /data\n",
                    "");
  ASSERT_EQ(d.size(), 3u);
  // digits that fit no uint64
  EXPECT_EQ(d[0].error,
            "df's line for / gives no size in range: /dev/sda1 "
            "99999999999999999999999 1 2 90% /");
  // fits, but not once in bytes
  EXPECT_EQ(d[1].error,
            "df's line for /data gives no size in range: /dev/sdb "
            "18446744073709551615 0 18446744073709551615 0% /data");
  EXPECT_FALSE(d[1].total_bytes);
  EXPECT_FALSE(d[1].available_bytes);
  EXPECT_EQ(d[2].error,
            "df gave no line for /home: /dev/sdb 18446744073709551615 0 "
            "18446744073709551615 0% /data");
}

}  // namespace gathered_test
}  // namespace gt
