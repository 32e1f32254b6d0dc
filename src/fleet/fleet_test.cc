#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "fleet/fanout.h"
#include "fleet/fleet_report.h"
#include "fleet/remote.h"
#include "render/fleet_render.h"
#include "report/json_report.h"
#include "util/test_util.h"

namespace gt {
namespace fleet_test {

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

// NVIDIA's nvidia-smi (535.261.03, 550.163.01) on a machine without the
// driver prints this and exits 9 (run here on NVIDIA's own binary, see
// tests/nvidia/smi_missing_driver.sh). No GPU on the bus: nothing to judge,
// no modprobe; a GPU on the bus: the driver is not loaded.
constexpr const char* kSmiNoDriverB64 =
    "TlZJRElBLVNNSSBoYXMgZmFpbGVkIGJlY2F1c2UgaXQgY291bGRuJ3QgY29tbXVuaWNhdGUgd2l0aCB0aGUgTlZJRElBIG"
    "RyaXZlci4gTWFrZSBzdXJlIHRoYXQgdGhlIGxhdGVzdCBOVklESUEgZHJpdmVyIGlzIGluc3RhbGxlZCBhbmQgcnVubmlu"
    "Zy4KCg==";

TEST(Fleet, NvidiaSmiWithoutTheDriverAndNoGpuOnTheBusIsNoGpu) {
  Gathered g = parse_gathered(std::string("@@gt-gather 1\n@@gt-out nvidia-smi 9 ") +
                              kSmiNoDriverB64 + "\n@@gt-end\n");
  HostReport r = judge_gathered("cpu1", g, RemoteOptions{});
  EXPECT_EQ(host_verdict(r), Verdict::kUnknown);
  ASSERT_TRUE(r.report);
  EXPECT_EQ(r.report->findings.size(), 0u);
  std::string error = r.report->snapshot.nvml.error_message.value_or("");
  EXPECT_TRUE(
      error.starts_with("no NVIDIA GPU on this machine: nothing on the PCI bus, no nvidia "
                        "module, nvidia-smi installed (nvidia-smi: NVIDIA-SMI has failed"))
      << error;
}

TEST(Fleet, NvidiaSmiWithoutTheDriverAndAGpuOnTheBusIsDriverNotLoaded) {
  Gathered g =
      parse_gathered(std::string("@@gt-gather 1\n@@gt-out nvidia-smi 9 ") + kSmiNoDriverB64 +
                     "\n@@gt-file /sys/bus/pci/devices/0000:19:00.0/vendor MHgxMGRlCg==\n@@gt-file "
                     "/sys/bus/pci/devices/0000:19:00.0/device MHgyMzMwCg==\n@@gt-file "
                     "/sys/bus/pci/devices/0000:19:00.0/class MHgwMzAyMDAK\n@@gt-end\n");
  HostReport r = judge_gathered("gpu1", g, RemoteOptions{});
  EXPECT_EQ(host_verdict(r), Verdict::kCritical);
  ASSERT_TRUE(r.report);
  ASSERT_EQ(r.report->findings.size(), 1u);
  EXPECT_EQ(r.report->findings[0].id, "nvml.driver_not_loaded");
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

/// A healthy node as a remote gpu-triage reports it: 8 GPUs answering, 8
/// on the bus.
Report healthy_report() {
  Report r;
  r.snapshot.gpu_count = 8;
  r.snapshot.driver_version = "590.48.01";
  for (uint32_t i = 0; i < 8; ++i) {
    r.snapshot.gpus.emplace_back().index = i;
    r.snapshot.pci_devices.emplace_back().bus_id = "0000:1" + std::to_string(i) + ":00.0";
  }
  return r;
}

TEST(Fleet, LinesSummaryJsonAndExitCode) {
  Report ok = healthy_report();
  Report warn = ok;
  warn.findings.resize(2);
  warn.findings[0].id = "persistence.off";
  warn.findings[0].severity = Severity::kWarning;
  warn.findings[1].id = "gpu.all_present";
  warn.findings[1].severity = Severity::kOk;
  warn.verdict = Severity::kWarning;
  std::vector<HostReport> r = {
      host_report("n1", HostVia::kGpuTriage, ok), host_report("n2", HostVia::kNvidiaSmi, warn),
      host_unknown("n3", HostVia::kSsh, "ssh: Could not resolve hostname n3")};
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
  Report crit;
  crit.verdict = Severity::kCritical;
  r.push_back(host_report("n4", HostVia::kNvidiaSmi, crit));
  EXPECT_EQ(fleet_exit_code(r, false), 2);  // CRITICAL beats all
  auto j = fleet_to_json(r, false);
  ASSERT_EQ(j.size(), 4u);
  EXPECT_EQ(j[2]["exit_code"], 3);
  EXPECT_EQ(j[2]["error"], "ssh: Could not resolve hostname n3");
  EXPECT_TRUE(j[2]["report"].is_null());
  EXPECT_EQ(j[1]["report"], report_to_json(warn));
}

TEST(Fleet, ACaptureHasNoBusReading) {
  Report capture = healthy_report();
  capture.snapshot.source = Origin::kCapture;
  capture.snapshot.pci_devices.clear();
  EXPECT_EQ(host_line(host_report("a", HostVia::kCapture, capture)),
            "a: OK gpus=8/- critical=0 warning=0 driver=590.48.01");
}

// What a broken or hostile host may send back: numbers too big for their
// type, a report whose fields have the wrong types, JSON nested a million
// deep. Each gives an UNKNOWN or a partial line, never a throw or a crash.
class CannedRunner : public CommandRunner {
 public:
  explicit CannedRunner(std::string out) : out_(std::move(out)) {}
  CommandResult run(const std::vector<std::string>&, std::chrono::milliseconds) const override {
    CommandResult r;
    r.exit_code = 0;
    r.out = out_;
    return r;
  }

 private:
  std::string out_;
};

TEST(FleetHostile, AGatherCutShortWithNothingOnStderrEndsItsErrorCleanly) {
  CannedRunner runner("@@gt-gather 1\n@@gt-out hostname 0 bjE=\n");
  HostReport r = check_host("n1", RemoteOptions{}, runner);
  EXPECT_EQ(host_verdict(r), Verdict::kUnknown);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(*r.error, "the gather script stopped early");
}

TEST(FleetHostile, AnAnswerThatIsNoGatherSaysWhatCameBackNotAnExitStatus) {
  CannedRunner banner("Welcome to node n1!\nLast login: yesterday\n");
  HostReport r = check_host("n1", RemoteOptions{}, banner);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(
      *r.error,
      "no gather answer came back (ssh exited with 0; its output began: Welcome to node n1!)");
  CannedRunner silent("");
  r = check_host("n1", RemoteOptions{}, silent);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(*r.error,
            "no gather answer came back (ssh exited with 0; nothing on its standard output)");
  // A native answer cut before its exit status names no made-up exit.
  CannedRunner cut("@@gt-gather 1\n@@gt-native\n{\"schema\": \"gpu-tri\n");
  r = check_host("n1", RemoteOptions{}, cut);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->rfind("gpu-triage --json there gave no readable report (its answer ended "
                           "before its exit status, not JSON: ",
                           0),
            0u)
      << *r.error;
}

TEST(FleetHostile, AHugeExitCodeIsUnknown) {
  // Huge numbers in df: collect/gathered_test.cc.
  Gathered n = parse_gathered(
      "@@gt-gather 1\n@@gt-native\n{}\n@@gt-native-rc 99999999999999999999\n@@gt-end\n");
  EXPECT_FALSE(n.native_rc);
}

TEST(FleetHostile, AReportWithFieldsOfTheWrongTypeIsUnknownNamingTheKey) {
  CannedRunner runner(
      "@@gt-gather 1\n@@gt-native\n"
      R"({"schema": "gpu-triage/report", "schema_version": 2, "verdict": "OK",
          "exit_code": 0, "plan": [], "nvml": {}, "gpus": [],
          "gpu_count": 1e300, "findings": [3], "pci_devices": "x"})"
      "\n@@gt-native-rc 0\n@@gt-end\n");
  HostReport r = check_host("n1", RemoteOptions{}, runner);
  EXPECT_EQ(host_verdict(r), Verdict::kUnknown);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("report.findings[0]: expected an object, got an integer"),
            std::string::npos)
      << *r.error;
  EXPECT_EQ(host_line(r).rfind("n1: UNKNOWN error=", 0), 0u) << host_line(r);
}

TEST(FleetHostile, DeeplyNestedNativeJsonIsUnknownNotAStackOverflow) {
  // Valid JSON: an object (so it would be kept) holding arrays 200,000 deep,
  // which printing the fleet JSON would recurse through.
  const std::string deep =
      "{\"verdict\": \"OK\", \"x\": " + std::string(200000, '[') + std::string(200000, ']') + "}";
  CannedRunner runner("@@gt-gather 1\n@@gt-native\n" + deep + "\n@@gt-native-rc 0\n@@gt-end\n");
  RemoteOptions o;
  HostReport r = check_host("n1", o, runner);
  EXPECT_EQ(host_verdict(r), Verdict::kUnknown);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("nested deeper than 64"), std::string::npos) << *r.error;
  std::ostringstream text;
  render_fleet_text({r}, text);
  EXPECT_FALSE(fleet_to_json({r}, false).dump().empty());
}

std::string base64(std::string_view in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += k[(v >> s) & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += i + 1 < in.size() ? k[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string fixture(const std::string& rel) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A hostile answer of every record kind, against bait files on this machine
// that the answer names: the judged report never holds a byte of them (the
// answer is data, never a path), and the JSON stays valid for text that is
// not UTF-8.
TEST(FleetHostile, TheGatherAnswerNeverReadsOutsideItsScratchTree) {
  TempTree bait;
  bait.write("/proc/driver/nvidia/version",
             "NVRM version: NVIDIA UNIX x86_64 Kernel Module  BAIT.1\n");
  bait.write("/sys/module/nvidia/version", "BAIT.2\n");
  bait.write("/info/information", "Model: \t BAIT-GPU\nGPU UUID: \t GPU-BAIT\n");
  const std::string smi =
      fixture("tests/fixtures/real/nvidia-smi-xml/telegraf-a10g-515.105.01.xml");
  ASSERT_FALSE(smi.empty());
  const std::string b = bait.dir();
  const std::string answer =
      "@@gt-gather 1\n"
      "@@gt-out nvidia-smi 0 " +
      base64(smi) + "\n" + "@@gt-out hostname 0 " + base64("n\xe9ud-\xff") + "\n" +
      "@@gt-out kernel-log dmesg " + base64("NVRM: Xid (PCI:0000:00:1e): 79, \xff\xfe\n") + "\n" +
      "@@gt-out df 0 " + base64("x\n/dev/x 1 1 1 1% /\xff\n") + "\n" +
      // files: climbing out, relative, through "." parts, onto a link
      "@@gt-file /../../../../../.." + b + "/proc/x " + base64("escaped") + "\n" +
      "@@gt-file proc/relative " + base64("relative") + "\n" + "@@gt-file /proc/./../../.." + b +
      "/y " + base64("dots") + "\n" + "@@gt-file /sys/bus/pci/devices/0000:00:1f.0/driver/new_id " +
      base64("w") + "\n" + "@@gt-file /sys/bus/pci/devices/0000:00:1e.0/vendor " +
      base64("0x10de\n") + "\n" + "@@gt-file /sys/bus/pci/devices/0000:00:1e.0/device " +
      base64("0x2237\n") + "\n" + "@@gt-file /sys/bus/pci/devices/0000:00:1e.0/class " +
      base64("0x030200\n") + "\n" +
      // links: a folder the module version is read from, a driver link
      // whose target is this machine's folder, one climbing out, and a
      // device that is not one path part
      "@@gt-link /proc/driver " + b + "/proc/driver\n" + "@@gt-link /sys/module/nvidia " + b +
      "/sys/module/nvidia\n" + "@@gt-link /proc/driver/nvidia/gpus/0000:00:1e.0 " + b + "/info\n" +
      "@@gt-link /sys/bus/pci/devices/0000:00:1e.0/driver " + b + "/info\n" +
      "@@gt-link /sys/bus/pci/devices/../../../proc/driver " + b + "/proc/driver\n" +
      "@@gt-link /sys/bus/pci/devices/a/b/driver " + b + "\n" +
      "@@gt-link /sys/bus/pci/devices/0000:00:1f.0/driver ..\n" + "@@gt-end\n";
  CannedRunner runner(answer);
  RemoteOptions o;
  o.paths = {"/"};
  HostReport r = check_host("n\xe9ud", o, runner);
  ASSERT_FALSE(r.error) << *r.error;
  const std::string text =
      fleet_to_json({r}, false).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  EXPECT_EQ(text.find("BAIT"), std::string::npos) << text;
  EXPECT_EQ(text.find("escaped"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(b + "/proc/x"));
  EXPECT_FALSE(std::filesystem::exists(b + "/y"));
  EXPECT_TRUE(nlohmann::json::accept(text));
  // The driver's name (the last part of the target) is all that is kept.
  EXPECT_NE(text.find("\"info\""), std::string::npos) << text;
}

TEST(FleetHostile, ParseGatheredKeepsLinksAsText) {
  Gathered g = parse_gathered("@@gt-link /sys/bus/pci/devices/x/driver /etc\n");
  EXPECT_EQ(g.links["/sys/bus/pci/devices/x/driver"], "/etc");
}

}  // namespace fleet_test
}  // namespace gt

namespace gt {
namespace fleet_test {

TEST(FleetVerdict, EachHasOneNameAndExitCodeInRankOrder) {
  std::set<std::string> names;
  for (Verdict v : kVerdicts) EXPECT_TRUE(names.insert(verdict_name(v)).second);
  EXPECT_EQ(names, (std::set<std::string>{"OK", "WARNING", "UNKNOWN", "CRITICAL"}));
  // Nagios: 0 1 3 2; Node Problem Detector: 0 ok, 1 problem, 2 unknown.
  const int nagios[] = {0, 1, 3, 2}, npd[] = {0, 1, 2, 1};
  for (size_t i = 0; i < std::size(kVerdicts); ++i) {
    EXPECT_EQ(static_cast<size_t>(kVerdicts[i]), i);  // the table is in rank order
    EXPECT_EQ(verdict_exit_code(kVerdicts[i], false), nagios[i]);
    EXPECT_EQ(verdict_exit_code(kVerdicts[i], true), npd[i]);
  }
  // An info-only report is OK; nothing checked is UNKNOWN, whatever the severity.
  Report r;
  r.verdict = Severity::kInfo;
  EXPECT_EQ(report_verdict(r), Verdict::kOk);
  r.could_not_check = true;
  r.verdict = Severity::kCritical;
  EXPECT_EQ(report_verdict(r), Verdict::kUnknown);
}

TEST(FleetVerdict, EachWayToAHostHasItsName) {
  std::set<std::string> names;
  for (HostVia v : {HostVia::kGpuTriage, HostVia::kNvidiaSmi, HostVia::kCapture, HostVia::kReport,
                    HostVia::kSsh})
    EXPECT_TRUE(names.insert(host_via_name(v)).second);
  EXPECT_EQ(names.size(), 5u);
}

}  // namespace fleet_test
}  // namespace gt
