// `gpu-triage bundle`: evidence before action (issue 37). One archive of
// the node as the triage saw it: the report (JSON and text), the NVML
// answers, copies of exactly the /proc, /sys, /etc and log files the
// collectors read (the fixture-tree layout, so `--root` replays them),
// `nvidia-smi -q -x`, optionally nvidia-bug-report.sh, and a manifest.
// Bounded (each collector's deadline, the archive's --max-size, a disk
// margin), redacted by default (util/redact.h), written atomically.
//
//   gpu-triage bundle [-o FILE] [--max-size SIZE] [--no-redact] [--with-bug-report]
//                     [collection options of gpu-triage: --timeout, --root, --nvml-lib, ...]
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "bundle/bundle_file.h"
#include "bundle/child_collectors.h"
#include "bundle/tree_copy.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/run_triage.h"
#include "cli/usage.h"
#include "model/exit_code.h"
#include "render/bundle_manifest.h"
#include "render/json_report.h"
#include "render/table_report.h"
#include "util/duration.h"
#include "util/redact.h"
#include "util/size_arg.h"

namespace gt {
namespace {

constexpr const char* kBundleProg = "gpu-triage bundle";
/// Bytes kept of one file the collectors opened (a kernel log, kern.log).
constexpr uint64_t kFileCapBytes = 16ull << 20;

struct BundleArgs {
  std::string file;  ///< empty: gpu-triage-bundle-HOST-STAMP.tar.zst here
  std::string max_size = "64MiB";
  std::string min_free = "256MiB";
  std::string smi_timeout = "30s";
  std::string bug_report_timeout = "5m";
  bool no_redact = false;
  bool with_bug_report = false;
  std::vector<std::string> rest;   ///< the collection options, for parse_args
  std::vector<std::string> names;  ///< bundle's own options, for suggestions
};

struct BundleLimits {
  uint64_t max_size_bytes = 0;
  uint64_t min_free_bytes = 0;
  std::chrono::milliseconds smi_timeout{0};
  std::chrono::milliseconds bug_report_timeout{0};
};

std::optional<int> parse_bundle_args(int argc, char** argv, BundleArgs& a) {
  CLI::App app{
      "gpu-triage bundle: one archive of the node as the triage saw it, before anything is "
      "changed: the report (JSON and text), the NVML answers, copies of the /proc, /sys, /etc "
      "and log files read, nvidia-smi -q -x, optionally nvidia-bug-report.sh, and "
      "manifest.json (each member's size and sha256, each collector's outcome, what was "
      "redacted or cut).\nAlso takes gpu-triage's collection options: --timeout, --sample, "
      "--root, --nvml-lib, --kernel-log, --no-kernel-log, --path, --state-dir.",
      kBundleProg};
  app.allow_extras();  // the collection options go on to parse_args
  app.footer(
      "Exit codes: 0 the bundle was written (whatever the node's verdict); 64 bad usage; 74 it\n"
      "  could not be written (a full, read-only or missing folder, --max-size too small):\n"
      "  nothing is left behind.");
  app.add_option("-o,--output", a.file,
                 "Archive to write: NAME.tar.zst (zstd) or NAME.tar.gz (gzip) (default "
                 "gpu-triage-bundle-HOST-TIME.tar.zst here)");
  app.add_option("--max-size", a.max_size,
                 "Largest archive (default 64MiB): the kernel log, copied logs and the bug "
                 "report are cut first, their oldest bytes, each cut in the manifest");
  app.add_option("--min-free", a.min_free,
                 "Space the archive's filesystem must keep free after it (default 256MiB)");
  app.add_flag("--no-redact", a.no_redact,
               "Keep secrets (tokens, keys, passwords in environments, command lines, "
               "Authorization headers, URLs); by default they read <redacted>");
  app.add_flag("--with-bug-report", a.with_bug_report,
               "Also run nvidia-bug-report.sh (killed at --bug-report-timeout)");
  app.add_option("--bug-report-timeout", a.bug_report_timeout,
                 "Deadline of nvidia-bug-report.sh (default 5m); at it, what it wrote is kept "
                 "and the manifest says it timed out");
  app.add_option("--smi-timeout", a.smi_timeout, "Deadline of nvidia-smi -q -x (default 30s)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return usage_error(kBundleProg, e.what());
  }
  a.rest = app.remaining();
  a.names = option_names(app);
  return std::nullopt;
}

/// The limits of `a`, or a usage error's message.
Result<BundleLimits> limits_of(const BundleArgs& a) {
  BundleLimits l;
  for (auto [text, flag, out] : {std::tuple{&a.max_size, "--max-size", &l.max_size_bytes},
                                 std::tuple{&a.min_free, "--min-free", &l.min_free_bytes}}) {
    Result<uint64_t> s = parse_size_bytes(*text);
    if (!s) return s.error().with_context(flag);
    *out = *s;
  }
  for (auto [text, flag, out] :
       {std::tuple{&a.smi_timeout, "--smi-timeout", &l.smi_timeout},
        std::tuple{&a.bug_report_timeout, "--bug-report-timeout", &l.bug_report_timeout}}) {
    Result<std::chrono::milliseconds> d = parse_duration(*text);
    if (!d) return d.error().with_context(flag);
    *out = *d;
  }
  return l;
}

/// A file name part from the node's hostname: letters, digits, '-', '.'.
std::string name_part(const std::optional<std::string>& host) {
  std::string out;
  for (char c : host.value_or("node"))
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.') ? c : '_';
  return out.empty() || out[0] == '.' ? "node" + out : out;
}

std::string default_file(const NodeSnapshot& snap) {
  const std::time_t t = static_cast<std::time_t>(snap.collected_at_unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  return "gpu-triage-bundle-" + name_part(snap.hostname) + "-" + stamp + ".tar.zst";
}

/// The triage's own outcome: NVML's deadline is the collection's.
CollectorOutcome triage_outcome(const Options& o, double seconds, bool abandoned) {
  CollectorOutcome c{"triage", CollectorEnd::kDone, seconds, o.timeout.count() / 1000.0, ""};
  if (abandoned) {
    c.end = CollectorEnd::kTimedOut;
    c.detail = "a GPU did not answer NVML within --timeout; its call was left behind";
  }
  return c;
}

/// The report as the archive's first members.
std::vector<TreeEntry> report_members(const Report& report) {
  std::ostringstream json, text;
  render_json(report, json);
  TableOptions t;
  t.wide = true;
  render_table(report, t, text);
  return {{TreeEntry::Type::kFile, "report.json", json.str(), {}},
          {TreeEntry::Type::kFile, "report.txt", text.str(), {}},
          {TreeEntry::Type::kFile, "nvml.json", render_nvml_answers(report), {}}};
}

/// Replaces every secret in every file member; the manifest names each.
void redact_members(std::vector<TreeEntry>& entries, BundleManifest& m) {
  for (TreeEntry& e : entries) {
    if (e.type == TreeEntry::Type::kFile) {
      RedactedText r = redact_secrets(e.bytes);
      e.bytes = std::move(r.text);
      for (std::string& what : r.what) m.redactions.push_back({e.name, std::move(what)});
    } else if (e.type == TreeEntry::Type::kLink) {
      RedactedText r = redact_secrets(e.target);
      e.target = std::move(r.text);
      for (std::string& what : r.what) m.redactions.push_back({e.name, std::move(what)});
    }
  }
}

int bundle_failed(const std::string& why) {
  print_error(kBundleProg, why);
  return static_cast<int>(ExitCode::kIoError);
}

int write_bundle(const Command& self, const BundleArgs& a, const BundleLimits& l,
                 const Options& o) {
  // Phase 1: the triage, every file it reads logged.
  auto log = std::make_shared<ReadLog>();
  bool abandoned = false;
  const auto start = std::chrono::steady_clock::now();
  Report report = collect_report(o, self.stages, abandoned, log);
  const double triage_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string file = a.file.empty() ? default_file(report.snapshot) : a.file;
  BundleManifest m;
  m.tool_version = GT_VERSION;
  m.host = report.snapshot.hostname;
  m.created_unix_ms = report.snapshot.collected_at_unix_ms;
  m.root = o.root;
  m.redacted = !a.no_redact;
  m.collectors.push_back(triage_outcome(o, triage_s, abandoned));
  // Phase 2: the members: the report, the files read, the other programs.
  std::vector<TreeEntry> entries = report_members(report);
  TreeCopy tree = copy_read_files(FsRoot(o.root), log->entries(), kFileCapBytes);
  entries.insert(entries.end(), tree.entries.begin(), tree.entries.end());
  m.notes = std::move(tree.notes);
  const RealCommandRunner runner;
  ChildCollected smi;
  if (o.root == "/") {
    smi = collect_smi_xml(runner, l.smi_timeout);
  } else {
    smi.outcome = {"nvidia-smi", CollectorEnd::kSkipped, 0, std::nullopt,
                   "--root " + o.root + ": nvidia-smi would read this machine's driver"};
  }
  ChildCollected bug;
  if (a.with_bug_report) {
    std::filesystem::path dir = std::filesystem::path(file).parent_path();
    bug = collect_bug_report(runner, l.bug_report_timeout, dir.empty() ? "." : dir.string(),
                             kFileCapBytes);
  } else {
    bug.outcome = {"nvidia-bug-report", CollectorEnd::kSkipped, 0, std::nullopt,
                   "not asked (--with-bug-report)"};
  }
  for (ChildCollected* c : {&smi, &bug}) {
    m.collectors.push_back(c->outcome);
    entries.insert(entries.end(), c->members.begin(), c->members.end());
  }
  // Phase 3: redact, fit under --max-size, write atomically.
  if (!a.no_redact) redact_members(entries, m);
  const ArchiveCompression compression = *compression_for(file);
  Result<std::string> bytes =
      fit_archive(std::move(entries), m, compression, l.max_size_bytes, render_bundle_manifest);
  if (!bytes) return bundle_failed("cannot write " + file + ": " + bytes.error().message);
  if (Status w = write_bundle_file(file, *bytes, l.min_free_bytes); !w)
    return bundle_failed(w.error().message);
  std::cout << render_bundle_written(file, bytes->size(), m);
  return 0;
}

}  // namespace

int cmd_bundle(const Command& self, int argc, char** argv) {
  BundleArgs a;
  if (std::optional<int> rc = parse_bundle_args(argc, argv, a)) return *rc;
  std::vector<std::string> words = {kBundleProg};
  words.insert(words.end(), a.rest.begin(), a.rest.end());
  std::vector<char*> args;
  for (std::string& w : words) args.push_back(w.data());
  ParsedArgs parsed = parse_args(static_cast<int>(args.size()), args.data(), kBundleProg, a.names);
  if (!parsed.options) return static_cast<int>(parsed.exit_code);
  const Options& o = *parsed.options;
  if (o.json || o.oneline || o.textfile || o.smi_xml || o.cuda || o.bundle)
    return usage_error(kBundleProg,
                       "--json, --oneline, --textfile, --smi-xml, --bundle and --cuda are not for "
                       "bundle "
                       "(it records this node; its report.json is the JSON)");
  Result<BundleLimits> limits = limits_of(a);
  if (!limits) return usage_error(kBundleProg, limits.error().message);
  if (!a.file.empty() && !compression_for(a.file))
    return usage_error(kBundleProg,
                       "-o " + a.file + ": name it NAME.tar.zst (zstd) or NAME.tar.gz (gzip)");
  const int code = write_bundle(self, a, *limits, o);
  // A thread may be stuck inside NVML: leave without destructors.
  std::cout.flush();
  std::fflush(nullptr);
  _exit(code);
}

}  // namespace gt
