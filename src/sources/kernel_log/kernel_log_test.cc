#include "sources/kernel_log/kernel_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "checks/xid_catalog.h"
#include "util/test_util.h"

namespace gt {
namespace {

const std::string kFixtures = GT_SOURCE_DIR "/tests/fixtures/real/kernel-log/";

std::string read_fixture(const std::string& name) {
  std::ifstream in(kFixtures + name, std::ios::binary);
  if (!in) ADD_FAILURE() << "fixture missing from tests/fixtures/real: " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The fixtures live in the repository: a missing one is a failure, never a skip.
#define REQUIRE_FIXTURES()                              \
  ASSERT_TRUE(std::filesystem::is_directory(kFixtures)) \
      << "kernel-log fixtures missing: " << kFixtures

ParsedKernelLog parse_fixture(const std::string& name) {
  return parse_kernel_log_text(read_fixture(name), "file");
}

int64_t local_unix(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d;
  tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = s, tm.tm_isdst = -1;
  return std::mktime(&tm);
}

// One expected event: kind, code (-1: none), bus, pid (0: none), name ("": none).
struct Want {
  std::string kind;
  int code;
  std::string bus;
  uint32_t pid;
  std::string name;
};

void expect_events(const ParsedKernelLog& got, const std::vector<Want>& want) {
  ASSERT_EQ(got.events.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const KernelLogEvent& e = got.events[i];
    SCOPED_TRACE("event " + std::to_string(i) + ": " + e.line);
    EXPECT_EQ(e.kind, want[i].kind);
    EXPECT_EQ(e.code, want[i].code < 0 ? std::nullopt : std::optional<int>(want[i].code));
    EXPECT_EQ(e.pci_bus_id, want[i].bus);
    EXPECT_EQ(e.pid, want[i].pid ? std::optional<uint32_t>(want[i].pid) : std::nullopt);
    EXPECT_EQ(e.process_name,
              want[i].name.empty() ? std::nullopt : std::optional<std::string>(want[i].name));
    EXPECT_EQ(e.boot, "file");
  }
}

// ---- the real fixtures ------------------------------------------------------

const std::map<std::string, std::vector<Want>>& fixture_expectations() {
  static const std::map<std::string, std::vector<Want>> m = [] {
    std::map<std::string, std::vector<Want>> x;
    const std::string b9b = "0000:9b:00.0";
    x["gpud-xe9680-xid119-gsp-rpc-timeout-dmesg-T.log"] = {
        {"xid", 119, b9b, 2024380, "nvidia-smi"},
        {"xid", 119, b9b, 2024380, "nvidia-smi"},
        {"xid", 119, b9b, 2024380, "nvidia-smi"},
        {"xid", 119, b9b, 1263500, "cache_mgr_main"},
        {"xid", 119, b9b, 1240590, "gpud"}};
    std::vector<Want> sm;  // 629 Xid 13 and 7 Xid 43, in the file's order
    const std::string b38 = "0000:38:00.0";
    const uint32_t pids43[] = {2815167, 2823801, 2839444, 2877200, 2886782, 2897677, 2924364};
    const int thirteens_before[] = {15, 9, 90, 155, 60, 60, 240};  // Xid 13 lines before each 43
    for (int k = 0; k < 7; ++k) {
      for (int i = 0; i < thirteens_before[k]; ++i) sm.push_back({"xid", 13, b38, 0, ""});
      sm.push_back({"xid", 43, b38, pids43[k], "pt_main_thread"});
    }
    x["gpud-xid13-43-sm-exception-dmesg-decode.log"] = sm;
    const std::string b19 = "0000:19:00.0";
    std::vector<Want> dbe = {
        {"xid", 48, b19, 0, ""}, {"xid", 63, b19, 0, ""}, {"xid", 94, b19, 0, ""}};
    for (int i = 0; i < 8; ++i) dbe.push_back({"xid", 94, b19, 1248209, "python3.10"});
    x["gpud-xid48-63-94-dbe-rowremap-contained.log"] = dbe;
    x["issue-gpud1160-1174-nvlink5-xid144-149.log"] = {{"xid", 144, "0000:01:00.0", 0, ""},
                                                       {"xid", 149, "0000:00:00.0", 0, ""},
                                                       {"xid", 149, "0000:00:00.0", 0, ""},
                                                       {"xid", 149, "0019:01:00.0", 0, ""},
                                                       {"xid", 145, "0018:01:00.0", 0, ""}};
    const std::string bcb = "0000:cb:00.0";
    x["issue-gpud46-xid13-109-dmesg-ctime.log"] = {{"xid", 13, bcb, 0, ""},
                                                   {"xid", 13, bcb, 0, ""},
                                                   {"xid", 13, bcb, 0, ""},
                                                   {"xid", 109, bcb, 1797828, "pt_main_thread"}};
    x["issue-nvsentinel155-fallen-off-bus-multiline-no-xid-570.158.01.log"] = {
        {"fallen-off-bus", -1, "0000:b3:00.0", 0, ""}};
    x["issue-nvtrust124-h100-nvswitch-sxid22013.log"] = {{"sxid", 22013, "0000:02:00.0", 0, ""},
                                                         {"sxid", 22013, "0000:02:00.0", 0, ""}};
    x["issue-ogkm1150-xid45-caused-by-xid149-145-journal-590.48.01.log"] = {
        {"xid", 45, "0000:dc:00.0", 1818990, "python3"},
        {"xid", 45, "0000:ed:00.0", 1818992, "python3"},
        {"xid", 45, "0000:ba:00.0", 1818989, "python3"},
        {"xid", 45, "0000:97:00.0", 1818987, "python3"},
        {"xid", 45, "0000:dc:00.0", 1818990, "python3"},
        {"xid", 45, "0000:ba:00.0", 1818989, "python3"},
        {"xid", 45, "0000:ed:00.0", 1818992, "python3"}};
    x["issue-ogkm1151-rtx5080-xid79-journal-595.71.05.log"] = {{"xid", 79, "0000:2b:00.0", 0, ""}};
    x["pastebin-xJaypMZt-legacy-fallen-off-bus-xid3-syslog.log"] = {
        {"fallen-off-bus", -1, "0000:01:00.0", 0, ""}, {"xid", 3, "0000:01:00.0", 0, ""}};
    return x;
  }();
  return m;
}

TEST(KernelLogFixtures, EveryFixtureFileHasExpectations) {
  REQUIRE_FIXTURES();
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kFixtures)) {
    std::string name = entry.path().filename().string();
    if (name == "SOURCES.md") continue;
    ++files;
    EXPECT_TRUE(fixture_expectations().count(name)) << "no expectations for fixture " << name;
  }
  EXPECT_EQ(files, static_cast<int>(fixture_expectations().size()));
}

TEST(KernelLogFixtures, EachFixtureYieldsExactlyTheExpectedEvents) {
  REQUIRE_FIXTURES();
  for (const auto& [name, want] : fixture_expectations()) {
    SCOPED_TRACE(name);
    ParsedKernelLog got = parse_fixture(name);
    expect_events(got, want);
    EXPECT_EQ(got.unparsed_nvidia_lines, 0u);
  }
}

TEST(KernelLogFixtures, Xid119DmesgTKeepsDetailAndWallTime) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("gpud-xe9680-xid119-gsp-rpc-timeout-dmesg-T.log");
  ASSERT_EQ(got.events.size(), 5u);
  const KernelLogEvent& e = got.events[0];
  EXPECT_EQ(e.detail,
            "Timeout after 6s of waiting for RPC response from GPU4 GSP! Expected function 103 "
            "(GSP_RM_ALLOC) (0x2081 0x4).");
  EXPECT_EQ(e.time_text, "Sun Feb 23 16:24:18 2025");
  EXPECT_EQ(e.time_unix_s, local_unix(2025, 2, 23, 16, 24, 18));
  EXPECT_FALSE(e.monotonic_s.has_value());
  EXPECT_EQ(got.events[4].time_text, "Sun Feb 23 16:30:13 2025");
  EXPECT_EQ(got.lines, 43u);
}

TEST(KernelLogFixtures, DmesgDecodeIsoStampIsUtc) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("gpud-xid13-43-sm-exception-dmesg-decode.log");
  ASSERT_FALSE(got.events.empty());
  const KernelLogEvent& e = got.events[0];
  EXPECT_EQ(e.time_text, "2025-01-21T02:21:33,498559+00:00");
  EXPECT_EQ(e.time_unix_s, 1737426093);
  EXPECT_EQ(e.detail, "Graphics SM Warp Exception on (GPC 8, TPC 5, SM 0): Out Of Range Address");
  EXPECT_EQ(got.events[15].detail, "Ch 00000008");
}

TEST(KernelLogFixtures, DbeRowRemapContainedDetails) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("gpud-xid48-63-94-dbe-rowremap-contained.log");
  ASSERT_EQ(got.events.size(), 11u);
  EXPECT_EQ(got.events[0].detail.rfind("An uncorrectable double bit error (DBE)", 0), 0u);
  EXPECT_EQ(got.events[0].time_unix_s, 1731672123);  // 2024-11-15T12:02:03Z
  EXPECT_EQ(got.events[1].detail.rfind("Row Remapper: New row", 0), 0u);
  EXPECT_EQ(got.events[2].detail, "Contained: SM (0x1). RST: No, D-RST: No");
  EXPECT_EQ(got.events[10].detail, "Ch 0000000f");
  EXPECT_EQ(got.lines, 41u);
}

TEST(KernelLogFixtures, NvLink5ExtendedFormKeepsUnitAndLink) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("issue-gpud1160-1174-nvlink5-xid144-149.log");
  ASSERT_EQ(got.events.size(), 5u);
  EXPECT_EQ(got.events[0].detail,
            "SAW_MVB Nonfatal XC0 i0 Link 0 (0x00000001 0x00000008 0x00000000 0x00000000 "
            "0x00000000 0x00000000)");
  EXPECT_EQ(got.events[3].detail.rfind("NETIR Fatal XC0 i0 Link -1 (", 0), 0u);
  EXPECT_FALSE(got.events[0].time_text.has_value());
}

TEST(KernelLogFixtures, Xid109CtimeDetail) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("issue-gpud46-xid13-109-dmesg-ctime.log");
  ASSERT_EQ(got.events.size(), 4u);
  EXPECT_EQ(got.events[3].detail, "Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x58005");
  EXPECT_EQ(got.events[3].time_unix_s, local_unix(2024, 8, 30, 11, 43, 14));
}

TEST(KernelLogFixtures, MultilineFallenOffBusWithoutXid) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got =
      parse_fixture("issue-nvsentinel155-fallen-off-bus-multiline-no-xid-570.158.01.log");
  ASSERT_EQ(got.events.size(), 1u);
  const KernelLogEvent& e = got.events[0];
  EXPECT_EQ(e.monotonic_s, 1843.308145);
  EXPECT_EQ(e.time_text, "1843.308145");
  EXPECT_EQ(e.detail,
            "The NVIDIA GPU 0000:b3:00.0 (PCI ID: 10de:26b5) installed in this system has fallen "
            "off the bus and is not responding to commands.");
  EXPECT_NE(e.line.find(" | NVRM: fallen off the bus"), std::string::npos);
}

TEST(KernelLogFixtures, SxidGroupLinesJoinTheirEvent) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("issue-nvtrust124-h100-nvswitch-sxid22013.log");
  ASSERT_EQ(got.events.size(), 2u);
  EXPECT_EQ(got.events[0].detail, "Non-fatal, Link 00 Minion Link DLREQ interrupt");
  EXPECT_EQ(got.events[0].monotonic_s, 25.948274);
  EXPECT_NE(got.events[0].line.find("| [   25.950244] nvidia-nvswitch1: SXid"), std::string::npos);
  EXPECT_NE(got.events[0].line.find("Data {0x00000000,"), std::string::npos);
  EXPECT_EQ(got.events[1].detail, "Non-fatal, Link 01 Minion Link DLREQ interrupt");
  EXPECT_NE(got.events[1].line.find("Severity 0 Engine instance 01"), std::string::npos);
}

TEST(KernelLogFixtures, Xid45CausedByPreviousXid) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got =
      parse_fixture("issue-ogkm1150-xid45-caused-by-xid149-145-journal-590.48.01.log");
  ASSERT_EQ(got.events.size(), 7u);
  EXPECT_EQ(got.events[0].detail, "Ch 00000001 caused by previous Xid 149");
  EXPECT_EQ(caused_by_xid(got.events[0].detail), 149);
  EXPECT_EQ(caused_by_xid(got.events[1].detail), 145);
  EXPECT_FALSE(got.events[0].time_text.has_value());
}

TEST(KernelLogFixtures, Xid79AndItsFallenOffLineAreOneEvent) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("issue-ogkm1151-rtx5080-xid79-journal-595.71.05.log");
  ASSERT_EQ(got.events.size(), 1u);
  const KernelLogEvent& e = got.events[0];
  EXPECT_EQ(e.detail, "GPU has fallen off the bus.");
  EXPECT_EQ(e.time_text, "May 18 19:02:39");
  EXPECT_NE(e.line.find(" | May 18 19:02:39 kernel: NVRM: GPU 0000:2b:00.0: GPU has fallen off"),
            std::string::npos);
}

TEST(KernelLogFixtures, LegacySyslogFallenOffAndUnknownXid3) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("pastebin-xJaypMZt-legacy-fallen-off-bus-xid3-syslog.log");
  ASSERT_EQ(got.events.size(), 2u);
  EXPECT_EQ(got.events[0].monotonic_s, 269.516977);
  EXPECT_EQ(got.events[0].time_text, "Jan 18 11:38:05");
  EXPECT_EQ(got.events[1].detail, "C 00000005 SC 00000007 M 00001ffc Data ffffffff");
  EXPECT_EQ(find_xid(3), nullptr);  // unknown to the catalogue, still reported
}

// ---- line forms in isolation ----------------------------------------------------

const char kXid79[] =
    "NVRM: Xid (PCI:0000:3B:00): 79, pid=1234, name=python3, GPU has fallen off the bus.";

TEST(KernelLogParse, KmsgRecord) {
  auto got = parse_kernel_log_text(std::string("4,1234,5678901,-;") + kXid79 + "\n", "current");
  ASSERT_EQ(got.events.size(), 1u);
  const KernelLogEvent& e = got.events[0];
  EXPECT_EQ(e.kind, "xid");
  EXPECT_EQ(e.code, 79);
  EXPECT_EQ(e.pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(e.pid, 1234u);
  EXPECT_EQ(e.process_name, "python3");
  EXPECT_EQ(e.detail, "GPU has fallen off the bus.");
  EXPECT_EQ(e.monotonic_s, 5.678901);
  EXPECT_EQ(e.time_text, "5.678901");
  EXPECT_EQ(e.boot, "current");
}

TEST(KernelLogParse, KmsgDictionaryLinesAreSkipped) {
  auto got = parse_kernel_log_text(
      std::string("4,1,2,-;") + kXid79 + "\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n",
      "current");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].line.find("SUBSYSTEM"), std::string::npos);
}

TEST(KernelLogParse, KmsgMultilineRecordWithEscapedNewlines) {
  auto got = parse_kernel_log_text(
      "4,100,1843308145,-;NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: (PCI ID: 10de:26b5) "
      "installed in this system has\\x0aNVRM: fallen off the bus and is not responding to "
      "commands.\n",
      "current");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].kind, "fallen-off-bus");
  EXPECT_EQ(got.events[0].pci_bus_id, "0000:b3:00.0");
  EXPECT_EQ(got.events[0].monotonic_s, 1843.308145);
}

TEST(KernelLogParse, FallenOffSplitOverSeparateRecords) {
  auto got = parse_kernel_log_text(
      "2025-01-06T10:00:00+0000 host kernel: NVRM: The NVIDIA GPU 0000:b3:00.0\n"
      "2025-01-06T10:00:00+0000 host kernel: NVRM: (PCI ID: 10de:26b5) installed in this "
      "system has\n"
      "2025-01-06T10:00:00+0000 host kernel: NVRM: fallen off the bus and is not responding to "
      "commands.\n",
      "previous");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].kind, "fallen-off-bus");
  EXPECT_EQ(got.events[0].pci_bus_id, "0000:b3:00.0");
  EXPECT_EQ(got.events[0].time_unix_s, 1736157600);
}

TEST(KernelLogParse, UnrelatedTheNvidiaGpuMessageIsNotAnEvent) {
  auto got = parse_kernel_log_text(
      "[ 5.0] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1eb8)\n"
      "        NVRM: installed in this system is not supported by the\n"
      "        NVRM: NVIDIA 470.00 driver release.\n"
      "[ 6.0] NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.\n",
      "current");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].pci_bus_id, "0000:2b:00.0");
}

TEST(KernelLogParse, DmesgRaw) {
  auto got = parse_kernel_log_text(std::string("[ 1234.567890] ") + kXid79, "current");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].monotonic_s, 1234.56789);
  EXPECT_EQ(got.events[0].time_text, "1234.567890");
  EXPECT_FALSE(got.events[0].time_unix_s.has_value());
}

TEST(KernelLogParse, DmesgCtime) {
  auto got = parse_kernel_log_text(std::string("[Mon Jan  6 10:00:00 2025] ") + kXid79, "current");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].time_text, "Mon Jan  6 10:00:00 2025");
  EXPECT_EQ(got.events[0].time_unix_s, local_unix(2025, 1, 6, 10, 0, 0));
}

TEST(KernelLogParse, JournalShortIsoWithOffset) {
  for (const char* stamp : {"2025-01-06T10:00:00+0100", "2025-01-06T10:00:00+01:00"}) {
    auto got =
        parse_kernel_log_text(std::string(stamp) + " gpu-node-7 kernel: " + kXid79, "previous");
    ASSERT_EQ(got.events.size(), 1u) << stamp;
    EXPECT_EQ(got.events[0].time_unix_s, 1736154000) << stamp;  // 09:00:00Z
    EXPECT_EQ(got.events[0].time_text, stamp);
    EXPECT_EQ(got.events[0].boot, "previous");
  }
}

TEST(KernelLogParse, JournalShortPreciseAndSyslogRfc3164) {
  for (const char* prefix :
       {"Jan 06 10:00:00.123456 host kernel: ", "Jan  6 10:00:00 host kernel: "}) {
    auto got = parse_kernel_log_text(std::string(prefix) + kXid79, "file");
    ASSERT_EQ(got.events.size(), 1u) << prefix;
    ASSERT_TRUE(got.events[0].time_unix_s.has_value());
    time_t t = static_cast<time_t>(*got.events[0].time_unix_s);
    std::tm tm{};
    localtime_r(&t, &tm);
    EXPECT_EQ(tm.tm_mon, 0);
    EXPECT_EQ(tm.tm_mday, 6);
    EXPECT_EQ(tm.tm_hour, 10);
    EXPECT_LE(t, std::time(nullptr) + 86400);  // year inferred, never in the future
  }
}

TEST(KernelLogParse, SyslogRfc3339WithMonotonicAfterKernel) {
  auto got = parse_kernel_log_text(
      std::string("2025-01-06T10:00:00.123456+00:00 host kernel: [ 12.500000] ") + kXid79, "file");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].time_unix_s, 1736157600);
  EXPECT_EQ(got.events[0].monotonic_s, 12.5);
  EXPECT_EQ(got.events[0].time_text, "2025-01-06T10:00:00.123456+00:00");
}

TEST(KernelLogParse, LegacyBusWithoutPciPrefixAndUppercaseHex) {
  auto got =
      parse_kernel_log_text("NVRM: Xid (0000:AF:00): 31, Ch 00000010, engmask 00000101", "file");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].pci_bus_id, "0000:af:00.0");
  EXPECT_EQ(got.events[0].code, 31);
  EXPECT_FALSE(got.events[0].pid.has_value());
  EXPECT_EQ(got.events[0].detail, "Ch 00000010, engmask 00000101");
}

TEST(KernelLogParse, UnknownXidNumberIsKept) {
  auto got =
      parse_kernel_log_text("[ 1.0] NVRM: Xid (PCI:0000:01:00): 9999, something new", "file");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].code, 9999);
  EXPECT_EQ(got.events[0].detail, "something new");
  EXPECT_EQ(got.unparsed_nvidia_lines, 0u);
}

TEST(KernelLogParse, BareXidCodeAtEndOfLine) {
  auto got = parse_kernel_log_text("NVRM: Xid (PCI:0000:2b:00): 79", "file");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].code, 79);
  EXPECT_EQ(got.events[0].detail, "");
}

TEST(KernelLogParse, ContinuationLineIsJoined) {
  auto got = parse_kernel_log_text(
      "[ 10.000000] NVRM: Xid (PCI:0000:3b:00): 119, pid=7, name=a b, Timeout\n"
      "              more context for the same record\n"
      "[ 11.000000] unrelated: line\n"
      "              continuation of the unrelated line\n",
      "file");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].line,
            "[ 10.000000] NVRM: Xid (PCI:0000:3b:00): 119, pid=7, name=a b, Timeout | more context "
            "for the same record");
  EXPECT_EQ(got.events[0].process_name, "a b");
  EXPECT_EQ(got.lines, 4u);
}

TEST(KernelLogParse, FallenOffNextToXid79OfAnotherGpuIsKept) {
  auto got = parse_kernel_log_text(
      "[ 1.0] NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.\n"
      "[ 1.0] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n",
      "file");
  ASSERT_EQ(got.events.size(), 2u);
  EXPECT_EQ(got.events[1].kind, "fallen-off-bus");
  EXPECT_EQ(got.events[1].pci_bus_id, "0000:3b:00.0");
}

TEST(KernelLogParse, GarbageBinaryAndTruncatedLinesNeverCrash) {
  std::string text = "\x01\x02\xff\xfe garbage\n";
  text += std::string("NUL\0inside NVRM: Xid", 20) + "\n";
  text += "NVRM: Xid (PCI:0000:19:0\n";          // truncated inside the bus
  text += "NVRM: Xid (PCI:0000:19:00): \n";      // truncated before the code
  text += "NVRM: Xid (PCI:0000:19:00): 4x8,\n";  // not a number
  text += "nvidia-nvswitch0: SXid (PCI:0000:05:00.0\n";
  text += "4,1,2\n";   // half a kmsg header
  text += "[ 12.3\n";  // half a dmesg stamp
  text += "[Mon Foo 99 99:99:99 2025] NVRM: Xid (PCI:0000:01:00): 13, x\n";
  text += "9999-99-99T99:99:99 NVRM: Xid (PCI:zzzz:01:00): 13, y\n";
  text += std::string(100000, 'N') + "\n";
  auto got = parse_kernel_log_text(text, "file");
  EXPECT_EQ(got.unparsed_nvidia_lines, 5u);  // NUL line, 3 truncated Xids, 1 SXid
  ASSERT_EQ(got.events.size(), 2u);          // the last two: odd stamps/bus, but an Xid
  EXPECT_FALSE(got.events[0].time_unix_s.has_value());
  EXPECT_FALSE(got.events[1].pci_bus_id.has_value());
}

TEST(KernelLogParse, NonNvidiaLinesAreIgnored) {
  auto got = parse_kernel_log_text(
      "[ 1.0] usb 1-1: new high-speed USB device\n"
      "[ 2.0] nfs: server x not responding, xid 0x1234\n"
      "[ 3.0] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07\n"
      "[ 4.0] NVRM: GPU at PCI:0000:9b:00: GPU-509665ad-b600-ac93-3616-d754b23d636d\n",
      "file");
  EXPECT_TRUE(got.events.empty());
  EXPECT_EQ(got.unparsed_nvidia_lines, 0u);
  EXPECT_EQ(got.lines, 4u);
}

TEST(KernelLogParse, SxidSingleLineForm) {
  auto got = parse_kernel_log_text(
      "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted "
      "PRIV error (First)",
      "file");
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].kind, "sxid");
  EXPECT_EQ(got.events[0].code, 12028);
  EXPECT_EQ(got.events[0].pci_bus_id, "0000:05:00.0");
  EXPECT_EQ(got.events[0].detail, "Non-fatal, Link 32 egress non-posted PRIV error (First)");
}

TEST(KernelLogParse, LargeLogParsesQuickly) {
  std::string chunk =
      "[ 1.0] usb 1-1: new high-speed USB device number 2 using xhci_hcd and some more text\n"
      "kern  :warn  : 2025-01-21T02:21:33,498559+00:00 NVRM: Xid (PCI:0000:38:00): 13, "
      "pid='<unknown>', name=<unknown>, Graphics SM Warp Exception\n";
  std::string text;
  while (text.size() < (20u << 20)) text += chunk;
  auto start = std::chrono::steady_clock::now();
  auto got = parse_kernel_log_text(text, "file");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(got.events.size(), got.lines / 2);
  EXPECT_LT(took, std::chrono::seconds(4)) << "20 MiB should parse in well under a second";
}

// ---- read_kernel_log --------------------------------------------------------------

class FakeRunner : public CommandRunner {
 public:
  explicit FakeRunner(CommandResult r) : result_(std::move(r)) {}
  CommandResult run(const std::vector<std::string>& argv,
                    std::chrono::milliseconds timeout) const override {
    argv_ = argv;
    timeout_ = timeout;
    return result_;
  }
  mutable std::vector<std::string> argv_;
  mutable std::chrono::milliseconds timeout_{0};

 private:
  CommandResult result_;
};

const KernelLog::Source* find_source(const KernelLog& log, const std::string& name) {
  for (const auto& s : log.sources)
    if (s.name == name) return &s;
  return nullptr;
}

constexpr int64_t kBtime = 1736150000;

void write_kmsg_tree(const TempTree& t) {
  t.write("/proc/stat", "cpu  1 2 3\nbtime " + std::to_string(kBtime) + "\nprocesses 5\n");
  t.write("/dev/kmsg",
          "6,0,1000000,-;Linux version 6.1.0\n"
          "4,17,1843308145,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has "
          "fallen off the bus.\n"
          " SUBSYSTEM=pci\n"
          "4,18,1843400000,-;nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 22013, Non-fatal, Link 1 "
          "x\n");
}

TEST(KernelLogRead, KmsgFileInAFixtureTree) {
  TempTree t;
  write_kmsg_tree(t);
  KernelLog log = read_kernel_log(t.root(), {});
  const KernelLog::Source* src = find_source(log, "/dev/kmsg");
  ASSERT_NE(src, nullptr);
  EXPECT_TRUE(src->read);
  EXPECT_FALSE(src->error.has_value());
  EXPECT_EQ(src->boot, "current");
  EXPECT_EQ(src->lines, 4u);
  EXPECT_EQ(find_source(log, "journalctl -k -b -1"), nullptr);  // only for root "/"
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].code, 79);
  EXPECT_EQ(log.events[0].boot, "current");
  EXPECT_EQ(log.events[0].time_unix_s, kBtime + 1843);
  EXPECT_EQ(log.events[1].kind, "sxid");
}

TEST(KernelLogRead, KmsgAbsentIsNotFound) {
  TempTree t;
  t.write("/proc/stat", "btime 1\n");
  KernelLog log = read_kernel_log(t.root(), {});
  const KernelLog::Source* src = find_source(log, "/dev/kmsg");
  ASSERT_NE(src, nullptr);
  EXPECT_FALSE(src->read);
  EXPECT_EQ(src->error, "not found");
}

TEST(KernelLogRead, KmsgUnreadableIsAnError) {
  TempTree t;
  std::filesystem::create_directories(t.path("/dev/kmsg"));
  KernelLog log = read_kernel_log(t.root(), {});
  const KernelLog::Source* src = find_source(log, "/dev/kmsg");
  ASSERT_NE(src, nullptr);
  EXPECT_FALSE(src->read);
  ASSERT_TRUE(src->error.has_value());
  EXPECT_NE(src->error->find("Is a directory"), std::string::npos) << *src->error;
}

TEST(KernelLogRead, KmsgPermissionDeniedNamesCapSyslog) {
  TempTree t;
  write_kmsg_tree(t);
  ::chmod(t.path("/dev/kmsg").c_str(), 0);
  ::chmod(t.path("/dev").c_str(), 0755);
  EXPECT_EXIT(
      {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) std::_Exit(2);
        KernelLog log = read_kernel_log(t.root(), {});
        const KernelLog::Source* src = find_source(log, "/dev/kmsg");
        bool ok =
            src && !src->read && src->error == "permission denied (run as root or with CAP_SYSLOG)";
        std::_Exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(KernelLogRead, MissingJournalReportsJournalctlsMessage) {
  CommandResult r;
  r.exit_code = 1;
  r.err = "No journal files were found.\n-- No entries --\n";
  FakeRunner fake(r);
  KernelLogOptions o;
  o.runner = &fake;
  o.command_timeout = std::chrono::milliseconds(1234);
  KernelLog log = read_kernel_log(FsRoot("/"), o);
  const KernelLog::Source* src = find_source(log, "journalctl -k -b -1");
  ASSERT_NE(src, nullptr);
  EXPECT_FALSE(src->read);
  EXPECT_EQ(src->boot, "previous");
  EXPECT_EQ(src->error, "No journal files were found.");
  EXPECT_EQ(fake.argv_, (std::vector<std::string>{"journalctl", "-k", "-b", "-1", "-o", "short-iso",
                                                  "--no-pager", "-q"}));
  EXPECT_EQ(fake.timeout_, std::chrono::milliseconds(1234));
}

TEST(KernelLogRead, JournalTimeoutAndSpawnErrorAreReported) {
  CommandResult timed_out;
  timed_out.timed_out = true;
  FakeRunner slow(timed_out);
  KernelLogOptions o;
  o.runner = &slow;
  o.command_timeout = std::chrono::milliseconds(3000);
  KernelLog log = read_kernel_log(FsRoot("/"), o);
  EXPECT_EQ(find_source(log, "journalctl -k -b -1")->error, "timed out after 3000 ms");
  CommandResult missing;
  missing.spawn_error = "cannot run journalctl: No such file or directory";
  FakeRunner absent(missing);
  o.runner = &absent;
  log = read_kernel_log(FsRoot("/"), o);
  EXPECT_EQ(find_source(log, "journalctl -k -b -1")->error,
            "cannot run journalctl: No such file or directory");
}

TEST(KernelLogRead, JournalPreviousBootEvents) {
  CommandResult r;
  r.exit_code = 0;
  r.out =
      "2025-01-06T10:00:00+0000 node kernel: Linux version 6.1.0\n"
      "2025-01-06T10:05:00+0000 node kernel: NVRM: Xid (PCI:0000:19:00): 48, pid='<unknown>', "
      "name=<unknown>, An uncorrectable double bit error (DBE) has been detected\n";
  FakeRunner fake(r);
  KernelLogOptions o;
  o.runner = &fake;
  KernelLog log = read_kernel_log(FsRoot("/"), o);
  const KernelLog::Source* src = find_source(log, "journalctl -k -b -1");
  ASSERT_NE(src, nullptr);
  EXPECT_TRUE(src->read);
  EXPECT_EQ(src->lines, 2u);
  std::vector<KernelLogEvent> previous;
  for (const auto& e : log.events)
    if (e.boot == "previous") previous.push_back(e);
  ASSERT_EQ(previous.size(), 1u);
  EXPECT_EQ(previous[0].code, 48);
  EXPECT_EQ(previous[0].pci_bus_id, "0000:19:00.0");
  EXPECT_EQ(previous[0].time_unix_s, 1736157900);
}

TEST(KernelLogRead, KernLogSplitsByBootTimeWithoutKmsg) {
  TempTree t;
  t.write("/proc/stat", "btime " + std::to_string(kBtime) + "\n");
  t.write("/var/log/kern.log",
          "2025-01-06T07:00:00+00:00 node kernel: NVRM: Xid (PCI:0000:19:00): 79, GPU has fallen "
          "off the bus.\n"
          "2025-01-06T09:00:00+00:00 node kernel: NVRM: Xid (PCI:0000:19:00): 13, pid=5, name=a, "
          "x\n");
  KernelLog log = read_kernel_log(t.root(), {});
  const KernelLog::Source* src = find_source(log, "/var/log/kern.log");
  ASSERT_NE(src, nullptr);
  EXPECT_TRUE(src->read);
  EXPECT_EQ(find_source(log, "/var/log/kern.log.1"), nullptr);  // absent: not tried
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].code, 79);
  EXPECT_EQ(log.events[0].boot, "previous");  // 07:00Z is before btime (07:53:20Z)
  EXPECT_EQ(log.events[1].code, 13);
  EXPECT_EQ(log.events[1].boot, "current");
}

TEST(KernelLogRead, KernLogCurrentBootEventsAreNotDoubledWithKmsg) {
  TempTree t;
  write_kmsg_tree(t);
  t.write("/var/log/kern.log.1",
          "2025-01-06T07:00:00+00:00 node kernel: NVRM: Xid (PCI:0000:19:00): 48, x\n");
  t.write("/var/log/kern.log",
          "2025-01-06T09:04:03+00:00 node kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, "
          "name=python3, GPU has fallen off the bus.\n");
  KernelLog log = read_kernel_log(t.root(), {});
  ASSERT_EQ(log.events.size(), 3u);
  EXPECT_EQ(log.events[0].code, 48);
  EXPECT_EQ(log.events[0].boot, "previous");
  EXPECT_EQ(log.events[1].code, 79);
  EXPECT_EQ(log.events[1].line.rfind("4,17,", 0), 0u);  // the kmsg copy, not kern.log's
  EXPECT_EQ(log.events[2].kind, "sxid");
  EXPECT_EQ(log.sources.size(), 3u);
}

TEST(KernelLogRead, FileOptionReadsOnlyThatFile) {
  TempTree t;
  write_kmsg_tree(t);
  t.write("/saved/dmesg.txt", "[ 5.0] NVRM: Xid (PCI:0000:01:00): 13, pid=1, name=a, x\n");
  KernelLogOptions o;
  o.file = t.path("/saved/dmesg.txt");
  KernelLog log = read_kernel_log(t.root(), o);
  ASSERT_EQ(log.sources.size(), 1u);
  EXPECT_EQ(log.sources[0].name, *o.file);
  EXPECT_EQ(log.sources[0].boot, "file");
  EXPECT_TRUE(log.sources[0].read);
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].boot, "file");
  EXPECT_EQ(log.events[0].code, 13);
}

TEST(KernelLogRead, FileOptionMissingFile) {
  KernelLogOptions o;
  o.file = "/nonexistent/gt-kernel.log";
  KernelLog log = read_kernel_log(FsRoot("/"), o);
  ASSERT_EQ(log.sources.size(), 1u);
  EXPECT_FALSE(log.sources[0].read);
  EXPECT_EQ(log.sources[0].error,
            "cannot open /nonexistent/gt-kernel.log: No such file or directory");
  EXPECT_TRUE(log.events.empty());
}

}  // namespace
}  // namespace gt
