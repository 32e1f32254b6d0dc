// Xid, SXid and fallen-off-bus lines (nvrm_events.h): every real fixture
// gives exactly its events, and each message form parses on its own.
#include "sources/kernel_log/nvrm_events.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>

#include "model/xid_catalog.h"
#include "sources/kernel_log/kernel_log_test_util.h"

namespace gt {
namespace nvrm_events_test {

// One expected line: kind, code (-1: none), bus, pid (0: none), name ("": none).
struct Want {
  std::string kind;
  int code;
  std::string bus;
  uint32_t pid;
  std::string name;
};

// The folded events a per-line list gives: one per (kind, code, bus) in
// order of first line, with the count and the first line's pid and name.
std::vector<std::pair<Want, uint64_t>> folded(const std::vector<Want>& lines) {
  std::vector<std::pair<Want, uint64_t>> out;
  for (const Want& w : lines) {
    auto same = [&](const auto& o) {
      return o.first.kind == w.kind && o.first.code == w.code && o.first.bus == w.bus;
    };
    auto it = std::find_if(out.begin(), out.end(), same);
    if (it == out.end())
      out.push_back({w, 1});
    else
      ++it->second;
  }
  return out;
}

void expect_events(const ParsedKernelLog& got, const std::vector<Want>& lines) {
  std::vector<std::pair<Want, uint64_t>> want = folded(lines);
  ASSERT_EQ(got.events.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const KernelLogEvent& e = got.events[i];
    const Want& w = want[i].first;
    SCOPED_TRACE("event " + std::to_string(i) + ": " + e.line);
    EXPECT_EQ(event_kind_name(e.kind), w.kind);
    EXPECT_EQ(e.code, w.code < 0 ? std::nullopt : std::optional<int>(w.code));
    EXPECT_EQ(e.pci_bus_id, w.bus);
    EXPECT_EQ(e.pid, w.pid ? std::optional<uint32_t>(w.pid) : std::nullopt);
    EXPECT_EQ(e.process_name, w.name.empty() ? std::nullopt : std::optional<std::string>(w.name));
    EXPECT_EQ(e.boot, LogBoot::kFile);
    EXPECT_EQ(e.count, want[i].second);
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
  ASSERT_EQ(got.events.size(), 1u);  // five lines, one GPU, one code
  const KernelLogEvent& e = got.events[0];
  EXPECT_EQ(e.count, 5u);
  EXPECT_EQ(e.detail,
            "Timeout after 6s of waiting for RPC response from GPU4 GSP! Expected function 103 "
            "(GSP_RM_ALLOC) (0x2081 0x4).");
  EXPECT_EQ(e.time_text, "Sun Feb 23 16:24:18 2025");
  EXPECT_EQ(e.time_unix_s, local_unix(2025, 2, 23, 16, 24, 18));
  EXPECT_FALSE(e.monotonic_s.has_value());
  EXPECT_EQ(e.last_time_text, "Sun Feb 23 16:30:13 2025");
  EXPECT_EQ(e.last_time_unix_s, local_unix(2025, 2, 23, 16, 30, 13));
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
  ASSERT_EQ(got.events.size(), 2u);
  EXPECT_EQ(got.events[1].detail, "Ch 00000008");  // the first Xid 43
}

TEST(KernelLogFixtures, DbeRowRemapContainedDetails) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("gpud-xid48-63-94-dbe-rowremap-contained.log");
  ASSERT_EQ(got.events.size(), 3u);  // 48, 63, and nine 94 lines
  EXPECT_EQ(got.events[0].detail.rfind("An uncorrectable double bit error (DBE)", 0), 0u);
  EXPECT_EQ(got.events[0].time_unix_s, 1731672123);  // 2024-11-15T12:02:03Z
  EXPECT_EQ(got.events[1].detail.rfind("Row Remapper: New row", 0), 0u);
  EXPECT_EQ(got.events[2].detail, "Contained: SM (0x1). RST: No, D-RST: No");
  // Nine distinct 94 details: the first eight kept, the ninth counted.
  const KernelLogEvent& e94 = got.events[2];
  EXPECT_EQ(e94.count, 9u);
  ASSERT_EQ(e94.distinct_details.size(), 8u);
  EXPECT_EQ(e94.distinct_details[0], e94.detail);
  EXPECT_EQ(e94.distinct_details[7], "Ch 0000000e");
  EXPECT_EQ(e94.distinct_details_dropped, 1u);
  EXPECT_EQ(got.lines, 41u);
}

TEST(KernelLogFixtures, NvLink5ExtendedFormKeepsUnitAndLink) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("issue-gpud1160-1174-nvlink5-xid144-149.log");
  ASSERT_EQ(got.events.size(), 4u);  // the two 149 lines of 0000:00:00 fold
  EXPECT_EQ(got.events[1].count, 2u);
  EXPECT_EQ(got.events[0].detail,
            "SAW_MVB Nonfatal XC0 i0 Link 0 (0x00000001 0x00000008 0x00000000 0x00000000 "
            "0x00000000 0x00000000)");
  EXPECT_EQ(got.events[2].detail.rfind("NETIR Fatal XC0 i0 Link -1 (", 0), 0u);
  EXPECT_FALSE(got.events[0].time_text.has_value());
}

TEST(KernelLogFixtures, Xid109CtimeDetail) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got = parse_fixture("issue-gpud46-xid13-109-dmesg-ctime.log");
  ASSERT_EQ(got.events.size(), 2u);  // three 13 lines fold, then the 109
  EXPECT_EQ(got.events[0].count, 3u);
  EXPECT_EQ(got.events[1].detail, "Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x58005");
  EXPECT_EQ(got.events[1].time_unix_s, local_unix(2024, 8, 30, 11, 43, 14));
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
  ASSERT_EQ(got.events.size(), 1u);  // two headers of one SXid on one switch fold
  const KernelLogEvent& e = got.events[0];
  EXPECT_EQ(e.count, 2u);
  EXPECT_EQ(e.detail, "Non-fatal, Link 00 Minion Link DLREQ interrupt");
  EXPECT_EQ(e.monotonic_s, 25.948274);
  EXPECT_NE(e.line.find("| [   25.950244] nvidia-nvswitch1: SXid"), std::string::npos);
  EXPECT_NE(e.line.find("Data {0x00000000,"), std::string::npos);
  EXPECT_EQ(e.distinct_details,
            (std::vector<std::string>{"Non-fatal, Link 00 Minion Link DLREQ interrupt",
                                      "Non-fatal, Link 01 Minion Link DLREQ interrupt"}));
  // The folded header's group lines are not kept (memory stays bounded).
  EXPECT_EQ(e.line.find("Severity 0 Engine instance 01"), std::string::npos);
}

TEST(KernelLogFixtures, Xid45CausedByPreviousXid) {
  REQUIRE_FIXTURES();
  ParsedKernelLog got =
      parse_fixture("issue-ogkm1150-xid45-caused-by-xid149-145-journal-590.48.01.log");
  ASSERT_EQ(got.events.size(), 4u);  // seven lines on four GPUs
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

TEST(KernelLogParse, FallenOffSplitOverSeparateRecords) {
  auto got = parse_kernel_log_text(
      "2025-01-06T10:00:00+0000 host kernel: NVRM: The NVIDIA GPU 0000:b3:00.0\n"
      "2025-01-06T10:00:00+0000 host kernel: NVRM: (PCI ID: 10de:26b5) installed in this "
      "system has\n"
      "2025-01-06T10:00:00+0000 host kernel: NVRM: fallen off the bus and is not responding to "
      "commands.\n",
      LogBoot::kPrevious);
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].kind, EventKind::kFallenOffBus);
  EXPECT_EQ(got.events[0].pci_bus_id, "0000:b3:00.0");
  EXPECT_EQ(got.events[0].time_unix_s, 1736157600);
}

TEST(KernelLogParse, UnrelatedTheNvidiaGpuMessageIsNotAnEvent) {
  auto got = parse_kernel_log_text(
      "[ 5.0] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1eb8)\n"
      "        NVRM: installed in this system is not supported by the\n"
      "        NVRM: NVIDIA 470.00 driver release.\n"
      "[ 6.0] NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.\n",
      LogBoot::kCurrent);
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].pci_bus_id, "0000:2b:00.0");
}

TEST(KernelLogParse, UnknownXidNumberIsKept) {
  auto got = parse_kernel_log_text("[ 1.0] NVRM: Xid (PCI:0000:01:00): 9999, something new",
                                   LogBoot::kFile);
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].code, 9999);
  EXPECT_EQ(got.events[0].detail, "something new");
  EXPECT_EQ(got.unparsed_nvidia_lines, 0u);
}

// Every bus form NVIDIA's driver prints in an Xid line keeps its bus id.
struct XidBusForm {
  const char* line;
  const char* bus;
  std::optional<uint32_t> instance;
};

class XidBusForms : public ::testing::TestWithParam<XidBusForm> {};

TEST_P(XidBusForms, KeepTheBusIdAndInstance) {
  const XidBusForm& f = GetParam();
  auto got = parse_kernel_log_text(f.line, LogBoot::kFile);
  ASSERT_EQ(got.events.size(), 1u) << f.line;
  EXPECT_EQ(got.unparsed_nvidia_lines, 0u);
  EXPECT_EQ(got.events[0].kind, EventKind::kXid);
  EXPECT_EQ(got.events[0].pci_bus_id, f.bus) << f.line;
  EXPECT_EQ(got.events[0].gpu_instance_id, f.instance) << f.line;
}

INSTANTIATE_TEST_SUITE_P(
    KernelLogParse, XidBusForms,
    ::testing::Values(
        // PCI:DDDD:BB:DD, the usual form.
        XidBusForm{"[ 1.0] NVRM: Xid (PCI:0000:19:00): 48, pid='<unknown>', name=<unknown>, DBE",
                   "0000:19:00.0", std::nullopt},
        // With the function.
        XidBusForm{"[ 1.0] NVRM: Xid (PCI:0000:19:00.0): 48, pid=1, name=a, DBE", "0000:19:00.0",
                   std::nullopt},
        // A non-zero domain (multi-segment hosts, Grace-Hopper).
        XidBusForm{"[ 1.0] NVRM: Xid (PCI:0001:ab:00): 79, GPU has fallen off the bus.",
                   "0001:ab:00.0", std::nullopt},
        // An eight-digit domain.
        XidBusForm{"[ 1.0] NVRM: Xid (PCI:00000009:01:00.0): 31, pid=2, name=b, MMU Fault",
                   "0009:01:00.0", std::nullopt},
        // MIG: the GPU instance after the bus id (Xid 94/95 on an A100/H100).
        XidBusForm{"[ 1.0] NVRM: Xid (PCI:0000:3b:00 GPU-I:05): 94, pid=7, name=python, "
                   "Contained: CE User Channel (0x2).",
                   "0000:3b:00.0", 5u},
        XidBusForm{"[ 1.0] NVRM: Xid (PCI:0001:AB:00 GPU-I:13): 95, pid=7, name=p, Uncontained",
                   "0001:ab:00.0", 13u},
        // Upper-case hex digits, lower-case prefix.
        XidBusForm{"[ 1.0] NVRM: Xid (pci:0000:3B:00): 13, pid=1, name=c, Graphics Exception",
                   "0000:3b:00.0", std::nullopt},
        XidBusForm{"[ 1.0] NVRM: Xid (PCI:000A:C1:1F.7 gpu-i:2): 43, pid=1, name=c, reset",
                   "000a:c1:1f.7", 2u},
        // The legacy form without "PCI:".
        XidBusForm{"[ 1.0] NVRM: Xid (0000:01:00): 3, C 00000005", "0000:01:00.0", std::nullopt}));

TEST(KernelLogParse, MigInstancesOfOneGpuAreSeparateEvents) {
  auto got = parse_kernel_log_text(
      "[ 1.0] NVRM: Xid (PCI:0000:3b:00 GPU-I:01): 94, pid=7, name=a, Contained\n"
      "[ 2.0] NVRM: Xid (PCI:0000:3b:00 GPU-I:02): 94, pid=8, name=b, Contained\n"
      "[ 3.0] NVRM: Xid (PCI:0000:3b:00 GPU-I:01): 94, pid=7, name=a, Contained\n",
      LogBoot::kFile);
  ASSERT_EQ(got.events.size(), 2u);
  EXPECT_EQ(got.events[0].gpu_instance_id, 1u);
  EXPECT_EQ(got.events[0].count, 2u);
  EXPECT_EQ(got.events[1].gpu_instance_id, 2u);
  EXPECT_EQ(got.events[1].count, 1u);
}

TEST(KernelLogParse, BareXidCodeAtEndOfLine) {
  auto got = parse_kernel_log_text("NVRM: Xid (PCI:0000:2b:00): 79", LogBoot::kFile);
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
      LogBoot::kFile);
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
      LogBoot::kFile);
  ASSERT_EQ(got.events.size(), 2u);
  EXPECT_EQ(got.events[1].kind, EventKind::kFallenOffBus);
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
  auto got = parse_kernel_log_text(text, LogBoot::kFile);
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
      LogBoot::kFile);
  EXPECT_TRUE(got.events.empty());
  EXPECT_EQ(got.unparsed_nvidia_lines, 0u);
  EXPECT_EQ(got.lines, 4u);
}

TEST(KernelLogParse, SxidSingleLineForm) {
  auto got = parse_kernel_log_text(
      "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted "
      "PRIV error (First)",
      LogBoot::kFile);
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].kind, EventKind::kSxid);
  EXPECT_EQ(got.events[0].code, 12028);
  EXPECT_EQ(got.events[0].pci_bus_id, "0000:05:00.0");
  EXPECT_EQ(got.events[0].detail, "Non-fatal, Link 32 egress non-posted PRIV error (First)");
}

}  // namespace nvrm_events_test
}  // namespace gt
