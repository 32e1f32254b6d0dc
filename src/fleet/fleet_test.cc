#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

#include "fleet/fanout.h"
#include "fleet/fleet_report.h"
#include "fleet/remote.h"
#include "util/test_util.h"

namespace gt {
namespace {

using namespace std::chrono_literals;

TEST(Fleet, CollectHostsSplitsCommasDropsDuplicatesAndReadsAFile) {
  TempTree t;
  t.write("/hosts", "# rack 1\nn3\n\nn1  # again\nn4,n5\n");
  auto h = collect_hosts({"n1,n2", "n3"}, t.path("/hosts"));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(*h, (std::vector<std::string>{"n1", "n2", "n3", "n4", "n5"}));
  EXPECT_FALSE(collect_hosts({"-oProxyCommand=x"}, std::nullopt).ok());
  EXPECT_FALSE(collect_hosts({}, t.path("/missing")).ok());
  t.write("/empty", "# nothing\n");
  EXPECT_FALSE(collect_hosts({}, t.path("/empty")).ok());
}

TEST(Fleet, SshArgvIsBatchModeWithConnectTimeoutAndNoTty) {
  RemoteOptions o;
  o.ssh_command = "ssh -J jump";
  o.host_timeout = 30s;
  auto a = ssh_argv(o, "node1", "CMD");
  EXPECT_EQ(a, (std::vector<std::string>{"ssh", "-J", "jump", "-o", "BatchMode=yes", "-o",
                                         "ConnectTimeout=10", "-T", "--", "node1", "CMD"}));
  o.host_timeout = 2s;
  EXPECT_EQ(connect_timeout_s(o.host_timeout), 1);
}

TEST(Fleet, RemoteCommandIsOneShQuotedScript) {
  RemoteOptions o;
  o.paths = {"/", "/data dir"};
  std::string c = remote_command(o);
  EXPECT_TRUE(c.starts_with("sh -c '"));
  EXPECT_NE(c.find("nvidia-smi -q -x"), std::string::npos);
  EXPECT_NE(c.find("gpu-triage --json"), std::string::npos);
  EXPECT_NE(c.find("/data dir"), std::string::npos);
}

TEST(Fleet, ParseGatheredDecodesRecords) {
  // "aGVsbG8=" is "hello"; "YQBi" is "a\0b" (a cmdline with a NUL).
  Gathered g = parse_gathered(
      "motd noise\n@@gt-gather 1\n@@gt-out nvidia-smi 0 aGVsbG8=\n"
      "@@gt-file /proc/7/cmdline YQBi\n@@gt-link /sys/x/driver ../nvidia\n@@gt-end\n");
  EXPECT_TRUE(g.complete);
  EXPECT_FALSE(g.native);
  EXPECT_EQ(g.outs["nvidia-smi"].status, "0");
  EXPECT_EQ(g.outs["nvidia-smi"].text, "hello");
  EXPECT_EQ(g.files["/proc/7/cmdline"], std::string("a\0b", 3));
  EXPECT_EQ(g.links["/sys/x/driver"], "../nvidia");
  Gathered n =
      parse_gathered("@@gt-gather 1\n@@gt-native\n{\"a\": 1}\n@@gt-native-rc 1\n@@gt-end\n");
  EXPECT_TRUE(n.native);
  EXPECT_EQ(n.native_rc, 1);
  EXPECT_EQ(n.native_json, "{\"a\": 1}\n");
}

TEST(Fleet, ParseDf) {
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

TEST(Fleet, RunBoundedNeverExceedsTheFanout) {
  std::atomic<int> running{0}, peak{0}, done{0};
  run_bounded(40, 8, [&](size_t) {
    int now = ++running;
    int p = peak.load();
    while (now > p && !peak.compare_exchange_weak(p, now)) {
    }
    std::this_thread::sleep_for(5ms);
    --running;
    ++done;
  });
  EXPECT_EQ(done, 40);
  EXPECT_LE(peak, 8);
  EXPECT_GE(peak, 2);
  run_bounded(0, 8, [&](size_t) { FAIL(); });
}

TEST(Fleet, LinesSummaryJsonAndExitCode) {
  nlohmann::ordered_json ok = {
      {"verdict", "OK"},
      {"gpu_count", 8},
      {"pci_devices", nlohmann::ordered_json::array({1, 2, 3, 4, 5, 6, 7, 8})},
      {"driver_version", "590.48.01"},
      {"findings", nlohmann::ordered_json::array()}};
  nlohmann::ordered_json warn = ok;
  warn["verdict"] = "WARNING";
  warn["findings"] = {{{"id", "persistence.off"}, {"severity", "warning"}},
                      {{"id", "gpu.all_present"}, {"severity", "ok"}}};
  std::vector<HostReport> r = {host_report_from_json("n1", "gpu-triage", ok),
                               host_report_from_json("n2", "nvidia-smi", warn),
                               host_unknown("n3", "ssh", "ssh: Could not resolve hostname n3")};
  EXPECT_EQ(host_line(r[0]), "n1: OK gpus=8/8 critical=0 warning=0 driver=590.48.01");
  EXPECT_EQ(host_line(r[1]),
            "n2: WARNING gpus=8/8 critical=0 warning=1 driver=590.48.01 ids=persistence.off");
  EXPECT_EQ(host_line(r[2]), "n3: UNKNOWN error=\"ssh: Could not resolve hostname n3\"");
  std::ostringstream out;
  render_fleet_text(r, out);
  EXPECT_NE(out.str().find("summary: 3 hosts: 1 ok, 1 warning, 0 critical, 1 unknown\n"),
            std::string::npos);
  EXPECT_NE(out.str().find("most common findings: persistence.off (1 host)"), std::string::npos);
  EXPECT_EQ(fleet_exit_code(r, false), 3);  // UNKNOWN beats WARNING
  EXPECT_EQ(fleet_exit_code(r, true), 2);
  r.push_back(host_report_from_json("n4", "nvidia-smi", {{"verdict", "CRITICAL"}}));
  EXPECT_EQ(fleet_exit_code(r, false), 2);  // CRITICAL beats all
  auto j = fleet_to_json(r, false);
  ASSERT_EQ(j.size(), 4u);
  EXPECT_EQ(j[2]["exit_code"], 3);
  EXPECT_EQ(j[2]["error"], "ssh: Could not resolve hostname n3");
  EXPECT_TRUE(j[2]["report"].is_null());
}

}  // namespace
}  // namespace gt
