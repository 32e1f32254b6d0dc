#include "cli/bundle_writer.h"

#include <cctype>
#include <ctime>
#include <filesystem>
#include <memory>
#include <sstream>

#include "bundle/bundle_file.h"
#include "bundle/child_collectors.h"
#include "bundle/redact_member.h"
#include "bundle/tree_copy.h"
#include "cli/run_triage.h"
#include "render/bundle_manifest.h"
#include "render/table_report.h"
#include "report/json_report.h"

namespace gt {
namespace {

/// Bytes kept of one file the collectors opened (a kernel log, kern.log).
constexpr uint64_t kFileCapBytes = 16ull << 20;

/// A file name part from the node's hostname: letters, digits, '-', '.'.
std::string name_part(const std::optional<std::string>& host) {
  std::string out;
  for (char c : host.value_or("node"))
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.') ? c : '_';
  return out.empty() || out[0] == '.' ? "node" + out : out;
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

/// Replaces every secret in every member (a gzip member decompressed);
/// the manifest names each member and rule, and each member left out.
void redact_members(std::vector<TreeEntry>& entries, BundleManifest& m) {
  std::vector<TreeEntry> kept;
  for (TreeEntry& e : entries) {
    const std::string name = e.name;
    RedactedMember r = redact_member(std::move(e));
    for (std::string& what : r.what) m.redactions.push_back({name, std::move(what)});
    if (r.entry)
      kept.push_back(std::move(*r.entry));
    else
      m.notes.push_back(std::move(r.left_out));
  }
  entries = std::move(kept);
}

/// nvidia-smi -q -x and nvidia-bug-report.sh, each under its deadline.
void run_children(const Options& o, const BundleRequest& r, const std::string& file,
                  BundleManifest& m, std::vector<TreeEntry>& entries) {
  const RealCommandRunner runner;
  ChildCollected smi;
  if (o.root == "/") {
    smi = collect_smi_xml(runner, r.limits.smi_timeout);
  } else {
    smi.outcome = {"nvidia-smi", CollectorEnd::kSkipped, 0, std::nullopt,
                   "--root " + o.root + ": nvidia-smi would read this machine's driver"};
  }
  ChildCollected bug;
  if (r.with_bug_report) {
    std::filesystem::path dir = std::filesystem::path(file).parent_path();
    bug = collect_bug_report(runner, r.limits.bug_report_timeout, dir.empty() ? "." : dir.string(),
                             kFileCapBytes);
  } else {
    bug.outcome = {"nvidia-bug-report", CollectorEnd::kSkipped, 0, std::nullopt,
                   "not asked (--with-bug-report)"};
  }
  for (ChildCollected* c : {&smi, &bug}) {
    m.collectors.push_back(c->outcome);
    entries.insert(entries.end(), c->members.begin(), c->members.end());
  }
}

}  // namespace

std::string default_bundle_name(const std::optional<std::string>& host, int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  return "gpu-triage-bundle-" + name_part(host) + "-" + stamp + ".tar.zst";
}

Result<BuiltBundle> build_node_bundle(Stages stages, const Options& o, const BundleRequest& r) {
  // Phase 1: the triage, every file it reads logged.
  auto log = std::make_shared<ReadLog>();
  bool abandoned = false;
  const auto start = std::chrono::steady_clock::now();
  Report report = collect_report(o, stages, abandoned, log);
  const double triage_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  BuiltBundle out;
  out.abandoned_threads = abandoned;
  out.file =
      !r.file.empty()
          ? r.file
          : (std::filesystem::path(r.dir) /
             default_bundle_name(report.snapshot.hostname, report.snapshot.collected_at_unix_ms))
                .string();
  BundleManifest& m = out.manifest;
  m.tool_version = GT_VERSION;
  m.host = report.snapshot.hostname;
  m.created_unix_ms = report.snapshot.collected_at_unix_ms;
  m.root = o.root;
  m.redacted = r.redact;
  m.collectors.push_back(triage_outcome(o, triage_s, abandoned));
  // Phase 2: the members: the report, the files read, the other programs.
  std::vector<TreeEntry> entries = report_members(report);
  TreeCopy tree = copy_read_files(FsRoot(o.root), log->entries(), kFileCapBytes);
  entries.insert(entries.end(), tree.entries.begin(), tree.entries.end());
  m.notes = std::move(tree.notes);
  run_children(o, r, out.file, m, entries);
  // Phase 3: redact, fit under the size cap.
  if (r.redact) redact_members(entries, m);
  const std::optional<ArchiveCompression> compression = compression_for(out.file);
  if (!compression)
    return Error{ErrorKind::kMalformed, "cannot write " + out.file +
                                            ": name it NAME.tar.zst (zstd) or NAME.tar.gz (gzip)"};
  Result<std::string> bytes = fit_archive(std::move(entries), m, *compression,
                                          r.limits.max_size_bytes, render_bundle_manifest);
  if (!bytes) return bytes.error().with_context("cannot write " + out.file);
  out.bytes = std::move(*bytes);
  return out;
}

Result<BundleWritten> write_node_bundle(Stages stages, const Options& o, const BundleRequest& r) {
  Result<BuiltBundle> built = build_node_bundle(stages, o, r);
  if (!built) return built.error();
  // Written atomically, never below the free-space margin.
  if (Status w = write_bundle_file(built->file, built->bytes, r.limits.min_free_bytes); !w)
    return w.error();
  BundleWritten out;
  out.file = built->file;
  out.size_bytes = built->bytes.size();
  out.manifest = std::move(built->manifest);
  return out;
}

}  // namespace gt
