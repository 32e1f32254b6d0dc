// Strings from outside never reach a terminal raw (issues 31 and 32): a
// process named with escapes and line breaks, a remote nvidia-smi that
// retitles and clears the screen, file names that are not UTF-8. Every text
// renderer and the error printer are fed the same hostile text; what they
// print holds no control character but its own line breaks (and, with
// colour, its own SGR codes), is valid UTF-8, and shows the text escaped.
#include <gtest/gtest.h>

#include <iostream>
#include <regex>
#include <sstream>

#include "cli/usage.h"
#include "fleet/fleet_report.h"
#include "render/data_render.h"
#include "render/fleet_render.h"
#include "render/free_render.h"
#include "render/history_render.h"
#include "render/oneline_report.h"
#include "render/prometheus.h"
#include "render/table_report.h"
#include "render/test_snapshot.h"
#include "sources/smi_xml/smi_text.h"
#include "watch/log_render.h"
#include "watch/screen.h"
#include "watch/watch_model.h"

namespace gt {
namespace hostile_text_test {

// exec -a $'evil\e[31mRED\rOVERWRITE' ..., a line break that would start a
// fake table row, an OSC title and a screen clear, a byte that is not
// UTF-8 and a C1 CSI.
const std::string kEvil =
    "evil\x1b[31mRED\rOVERWRITE\n  0 FAKE ROW \x1b]0;pwned\x07\x1b[2J\xff\xc2\x9b"
    "6n";
// What any renderer shows for it (escaped, one line).
const std::string kShown =
    "evil\\e[31mRED\\rOVERWRITE\\n  0 FAKE ROW \\e]0;pwned\\x07\\e[2J\\xff\\xc2\\x9b6n";

/// Valid UTF-8 with no control character but '\n' (and, when `sgr`, ESC
/// starting an SGR code "\e[...m"), no C1 control and no line a hostile
/// string started.
void expect_terminal_safe(const std::string& out, bool sgr = false) {
  SCOPED_TRACE(out);
  for (size_t i = 0; i < out.size(); ++i) {
    const auto c = static_cast<unsigned char>(out[i]);
    if (c == '\x1b' && sgr) {
      static const std::regex kSgr("\x1b\\[[0-9;]*m");
      std::smatch m;
      const std::string rest = out.substr(i, 16);
      ASSERT_TRUE(std::regex_search(rest, m, kSgr, std::regex_constants::match_continuous))
          << "an escape that is not the renderer's colour at byte " << i;
      continue;
    }
    ASSERT_TRUE(c >= 0x20 || c == '\n') << "control byte " << int(c) << " at " << i;
    ASSERT_NE(c, 0x7F) << "DEL at " << i;
    if (c < 0x80) continue;
    const size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    ASSERT_NE(n, 0u) << "not UTF-8 at byte " << i;
    ASSERT_LE(i + n, out.size());
    for (size_t k = 1; k < n; ++k)
      ASSERT_EQ(static_cast<unsigned char>(out[i + k]) & 0xC0, 0x80) << "not UTF-8 at " << i;
    ASSERT_FALSE(c == 0xC2 && static_cast<unsigned char>(out[i + 1]) < 0xA0) << "C1 at " << i;
    i += n - 1;
  }
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    EXPECT_NE(line.rfind("  0 FAKE ROW", 0), 0u) << "a line break from outside was printed";
}

/// The test report with the hostile text in every string from outside.
Report hostile_report() {
  Report r = make_test_report();
  NodeSnapshot& s = r.snapshot;
  s.hostname = kEvil;
  s.driver_version = kEvil;
  s.kernel_module_version = kEvil;
  s.nvml.library_version = "565\x1b[2J";
  s.gpus[0].name = "NVIDIA " + kEvil;
  s.gpus[0].uuid = kEvil;
  s.gpus[0].serial = kEvil;
  GpuProcess& p = s.gpus[0].processes->front();
  p.cmdline = kEvil + " --model /m";
  p.name = kEvil;
  p.user = kEvil;
  p.owner->name = kEvil + ".service";
  Server& sv = s.servers->front();
  sv.kind = kEvil;
  sv.model = kEvil;
  sv.root_cmdline = kEvil;
  sv.owner_name = kEvil;
  sv.restart_policy = kEvil;
  s.servers->back().grouping_note = kEvil;
  s.disks[1].path = "/data/" + kEvil;
  s.disks[2].error = kEvil;
  s.pci_devices[0].driver = kEvil;
  s.warnings.push_back(kEvil);
  Incident in;
  in.timeline.push_back({1764399000, kEvil + " started", "/proc"});
  in.unread.push_back(kEvil);
  s.incident = in;
  r.findings[1].title = "server " + kEvil + " is idle";
  r.plan[1].text = "Stop " + kEvil;
  r.plan[1].commands = {"sudo systemctl stop " + kEvil};
  return r;
}

std::string table(const Report& r, bool wide, bool color = false) {
  std::ostringstream out;
  render_table(r, TableOptions{wide, color, 100}, out);
  return out.str();
}

TEST(HostileText, TriageTableShowsItEscapedAndKeepsItsRows) {
  const Report r = hostile_report();
  for (bool wide : {false, true}) {
    const std::string out = table(r, wide);
    expect_terminal_safe(out);
    EXPECT_NE(out.find(wide ? kShown + " --model /m" : "evil\\e[31mRED\\rOVERWRITE"),
              std::string::npos);
    EXPECT_NE(out.find("Stop evil\\e[31mRED"), std::string::npos);
    EXPECT_NE(out.find("systemctl stop evil\\e[31mRED"), std::string::npos);
  }
  expect_terminal_safe(table(r, false, true), true);
  // The process row is measured as shown: it fits the 100 columns.
  std::istringstream lines(table(r, false));
  bool row = false;
  for (std::string line; std::getline(lines, line);)
    if (line.find("3187") != std::string::npos && line.find("evil") != std::string::npos) {
      row = true;
      EXPECT_LE(line.size(), 100u) << line;
    }
  EXPECT_TRUE(row);
}

TEST(HostileText, OneLineOutput) {
  std::ostringstream out;
  render_oneline(hostile_report(), out);
  expect_terminal_safe(out.str());
  EXPECT_NE(out.str().find("driver=" + kShown), std::string::npos);
}

TEST(HostileText, FreePlanAndOutcome) {
  FreePlan p;
  p.gpus = {0};
  TreeTarget t;
  t.root = {4100, 200};
  t.root_cmdline = kEvil;
  t.noun = "process " + kEvil;
  t.signal = {{4100, 200}};
  t.holders = {{4100, 200}};
  t.gpus = {0};
  t.user = kEvil;
  t.stop.owner_text = "systemd unit " + kEvil;
  t.stop.stop = {"kill 4100   # SIGTERM to its wrapper '" + kEvil + "'"};
  t.restart_policy = kEvil;
  t.wrappers = {{4102, kEvil}};
  t.supervisor = ServerProcess{4000, kEvil};
  p.targets.push_back(t);
  p.refusals.push_back({4200, kEvil, kEvil});
  p.skipped.push_back(kEvil);
  p.warnings.push_back(kEvil);
  p.errors.push_back(kEvil);
  FreeResult res;
  res.actions = {"SIGTERM to PID 4100 (" + kEvil + ")"};
  res.failures = {kEvil};
  res.manual = {kEvil};
  res.remaining = {kEvil};
  res.gpus.push_back({0, 1u << 30, 0, 1.0, true});
  for (bool yes : {false, true}) {
    FreeOptions o;
    o.yes = yes;
    const std::string out = render_free_text(p, res, make_test_snapshot(), o);
    expect_terminal_safe(out);
    EXPECT_NE(out.find("root PID 4100: " + kShown + "\n"), std::string::npos) << out;
  }
}

TEST(HostileText, FleetHostLinesAndErrors) {
  Report ok = hostile_report();
  std::vector<HostReport> hosts = {
      host_report("n1" + kEvil, HostVia::kGpuTriage, ok),
      host_unknown("n2", HostVia::kSsh, "nvidia-smi: \x1b]0;pwned\x07\x1b[2J\r\nsecond line"),
      host_unknown("n3", HostVia::kSsh, std::string(5000, '\x9b'))};
  DriftReport drift;
  drift.hosts_compared = 2;
  drift.differing.push_back({"driver_version",
                             kEvil,
                             DriftValue{kEvil, {"n1" + kEvil}},
                             {DriftValue{kEvil, {kEvil}}},
                             {kEvil}});
  drift.not_compared.push_back({kEvil, kEvil});
  HostOwnPast past;
  past.host = kEvil;
  past.state = OwnPastState::kCompared;
  past.baseline_when = kEvil;
  FingerprintChange change;
  change.item = change.before = change.after = kEvil;
  past.changes = {change};
  drift.own_past = {past, {kEvil, OwnPastState::kNotKnown, kEvil}};
  FleetFinding f;
  f.id = "fleet.xid_correlated.31";
  f.title = kEvil;
  f.hosts = {kEvil};
  const std::string out = render_fleet(hosts, {f}, drift, false, false);
  expect_terminal_safe(out);
  EXPECT_NE(out.find("n2: UNKNOWN error=\"nvidia-smi: \\e]0;pwned\\x07\\e[2J\\r\\nsecond line\""),
            std::string::npos)
      << out;
  // A host that printed 5000 bytes of junk costs one short line.
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("n3:", 0) == 0) {
      EXPECT_LT(line.size(), 500u);
    }
}

TEST(HostileText, WatchScreenEveryViewAndItsLog) {
  WatchModel m;
  m.apply(hostile_report(), 1764585600000);
  DataFollowProgress d;
  d.new_bad = 1;
  d.last_bad = DataBadFile{kEvil, kEvil, 1764585600000};
  d.bad_files.push_back(*d.last_bad);
  for (ScreenView v : {ScreenView::kMain, ScreenView::kFindings, ScreenView::kServers,
                       ScreenView::kGpu, ScreenView::kHelp}) {
    ScreenContext c;
    c.view = v;
    c.width = 200;
    c.height = 60;
    c.events_source = kEvil;
    c.data = &d;
    c.data_dir = kEvil;
    std::string out;
    for (const ScreenLine& l : render_screen(m, c)) out += l.text + "\n";
    expect_terminal_safe(out);
    EXPECT_NE(out.find(kShown), std::string::npos) << out;
  }
  Change ch;
  ch.time_unix_ms = 1764585600000;
  ch.id = "gpu.xid.79";
  ch.pci_bus_id = kEvil;
  ch.server = kEvil;
  ch.path = kEvil;
  ch.text = kEvil;
  std::ostringstream log;
  render_change_line(ch, log);
  const std::string line = log.str();
  expect_terminal_safe(line);
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1);
}

TEST(HostileText, History) {
  GpuHistory h;
  h.file = "/var/lib/" + kEvil;
  h.boots.push_back({kEvil, 1767225600, 1767225600});
  h.gpus.push_back({kEvil, {{kEvil, {kEvil}}}});
  const std::string out = render_history_text(h, "");
  expect_terminal_safe(out);
  EXPECT_NE(out.find("Record: /var/lib/" + kShown), std::string::npos);
  expect_terminal_safe(render_history_text(h, kEvil));
  expect_terminal_safe(render_history_cleared(kEvil, kEvil, 0));
}

TEST(HostileText, DataReport) {
  DirScan scan;
  scan.dirs = {"/job/" + kEvil};
  ScannedFile s;
  s.rel = "rows_0-4/data_1.ckpt";
  s.size_bytes = 3 << 20;
  s.mtime_unix_s = 1767225600;
  FileCheck c;
  c.problems.push_back({ProblemCode::kTruncated, "ends at " + kEvil});
  scan.record(s, std::move(c));
  scan.files.push_back(std::move(s));
  AnalysisOptions o{LayoutSpec{Layout::kSpecForge}, std::make_pair(int64_t{0}, int64_t{4})};
  o.now_unix_s = 1767229200;
  DataReport r = analyze(scan, o);
  r.dirs = scan.dirs;
  r.writers = {kEvil};
  r.how_to_resume = {"gpu-triage data " + kEvil};
  r.stale = {kEvil};
  r.stale_advice = kEvil;
  r.moved = {{kEvil, kEvil}};
  r.errors = {kEvil};
  r.manifest = ManifestDiff{{kEvil}, {kEvil}, {kEvil}, {kEvil}};
  std::ostringstream out;
  render_data_text(r, out);
  expect_terminal_safe(out.str());
  EXPECT_NE(out.str().find("/job/" + kShown + "/rows_0-4/data_1.ckpt: ends at " + kShown),
            std::string::npos)
      << out.str();
}

TEST(HostileText, PrometheusLabelValuesAreUtf8WithoutControls) {
  Report r = hostile_report();
  r.snapshot.disks[0].path = "/caf\xe9";
  const std::string out = render_prometheus(r, {"test", std::nullopt});
  expect_terminal_safe(out);
  EXPECT_NE(out.find("Hostname=\"evil\\\\e[31mRED"), std::string::npos);
  EXPECT_NE(out.find("path=\"/caf\\\\xe9\""), std::string::npos);
}

TEST(HostileText, ErrorsOnStderr) {
  std::ostringstream err;
  std::streambuf* saved = std::cerr.rdbuf(err.rdbuf());
  print_error("gpu-triage", "--path: cannot read " + kEvil);
  usage_error("gpu-triage", "unknown option '--" + kEvil + "'");
  command_error("gpu-triage history", kEvil, 1, false);
  std::cerr.rdbuf(saved);
  expect_terminal_safe(err.str());
  EXPECT_NE(err.str().find("gpu-triage: --path: cannot read " + kShown + "\n"), std::string::npos);
}

TEST(HostileText, ACaptureOfBinaryJunkIsQuotedShort) {
  std::string junk = "\x89PNG";
  for (int i = 0; i < 400; ++i) junk += static_cast<char>(0x80 + (i * 7) % 128);
  NodeSnapshot snap;
  Status s = fill_snapshot_from_smi_output(junk, snap);
  ASSERT_FALSE(s);
  expect_terminal_safe(s.error().message);
  EXPECT_LT(s.error().message.size(), 200u) << s.error().message;
  NodeSnapshot osc;
  Status t = fill_snapshot_from_smi_output("\x1b]0;pwned\x07\x1b[2J", osc);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("\"\\e]0;pwned\\x07\\e[2J\""), std::string::npos);
}

}  // namespace hostile_text_test
}  // namespace gt
