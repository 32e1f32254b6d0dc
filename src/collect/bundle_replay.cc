#include "collect/bundle_replay.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "bundle/archive.h"
#include "bundle/bundle_file.h"
#include "report/bundle_manifest_read.h"
#include "report/json_report_read.h"
#include "sources/kernel_log/compressed.h"
#include "util/read_capped.h"
#include "util/scratch_dir.h"
#include "util/time_format.h"

namespace gt {
namespace {

/// The most a bundle may hold uncompressed (its cap is 64 MiB compressed).
constexpr uint64_t kBundleReplayBytes = 1ull << 30;

/// The file member named `name`, or null.
const TreeEntry* file_member(const std::vector<TreeEntry>& entries, const std::string& name) {
  for (const TreeEntry& e : entries)
    if (e.name == name && e.type == TreeEntry::Type::kFile) return &e;
  return nullptr;
}

/// The members the manifest says were cut ("dev/kmsg, ..."), or "".
std::string cuts_of(const std::vector<TreeEntry>& entries) {
  const TreeEntry* m = file_member(entries, "manifest.json");
  if (m == nullptr) return "";
  std::string out;
  for (const std::string& c : manifest_cut_members(m->bytes)) out += (out.empty() ? "" : ", ") + c;
  return out;
}

/// What the report says of itself: recorded elsewhere, and what was cut.
std::string replay_note(const std::string& file, const NodeSnapshot& s, const std::string& cuts) {
  std::string note = "replayed from the bundle " + file + ", recorded on " +
                     s.hostname.value_or("an unnamed host") + " at " +
                     format_utc(s.collected_at_unix_ms / 1000, "%Y-%m-%d %H:%M:%S UTC") +
                     ": no live NVML, nothing of this machine read";
  if (!cuts.empty())
    note += "; the bundle cut " + cuts +
            " to fit its size cap, so counts read from them can be lower than the node's";
  return note;
}

/// A link the replay would follow out of the extracted tree, in words, or
/// "" for none. Under root/ every reader resolves a link inside the tree
/// (FsRoot: an absolute target starts again at root/); `root` itself a
/// link (to "/": this machine's tree read as the node's), or a link beside
/// it, has no such guard, so the bundle is refused.
std::string link_out_of_tree(const std::vector<TreeEntry>& entries) {
  for (const TreeEntry& e : entries) {
    std::string name = e.name;
    while (name.size() > 1 && name.ends_with("/")) name.pop_back();
    if (name == "root" && e.type == TreeEntry::Type::kFile)
      return "member root is a file, not the node's folder";
    if (e.type != TreeEntry::Type::kLink || name.starts_with("root/")) continue;
    return "member " + name + " is a link to " + e.target + ", not a " +
           (name == "root" ? "folder" : "file") +
           " (a link out of the bundle's tree is refused: nothing of this machine is read)";
  }
  return "";
}

/// How the members differ from manifest.json's sizes and sha256.
std::vector<std::string> check_members(const std::vector<TreeEntry>& entries) {
  const TreeEntry* m = file_member(entries, "manifest.json");
  if (m == nullptr) return {"no manifest.json: no member could be checked"};
  Result<std::vector<BundleMember>> listed = manifest_members(m->bytes);
  if (!listed) return {listed.error().message + ": no member could be checked"};
  return unverified_members(entries, *listed);
}

}  // namespace

// gpu-triage --bundle FILE: the archive extracted into a scratch folder,
// its report's NVML answers and its root/ tree collected as the node's
// (collect_recorded), the folder removed. A bundle that cannot be read
// leaves nothing to judge: UNKNOWN, with the reason.
Collected replay_bundle(const std::string& file, CollectInputs in, Stages stages) {
  auto unread = [&](std::string why) {
    // libarchive's words may name the file already.
    if (why.rfind(file + ": ", 0) == 0) why.erase(0, file.size() + 2);
    Collected c;
    c.report.snapshot.source = Origin::kCapture;
    c.report.snapshot.nvml.error_message = "not a readable bundle: " + file + ": " + why;
    c.report.snapshot.warnings.push_back(*c.report.snapshot.nvml.error_message);
    return c;
  };
  Result<std::vector<TreeEntry>> entries = read_archive(file, kBundleReplayBytes);
  if (!entries) return unread(entries.error().message);
  const TreeEntry* report = file_member(*entries, "report.json");
  if (report == nullptr) return unread("no report.json: not a gpu-triage bundle");
  // As a saved report in fleet --reports: parsing takes several times the
  // text's size in memory, and the archive's own bound is 1 GiB.
  if (report->bytes.size() > kMaxCaptureBytes)
    return unread("report.json is larger than " + std::to_string(kMaxCaptureBytes >> 20) +
                  " MiB, the limit for a saved report");
  if (std::string out = link_out_of_tree(*entries); !out.empty()) return unread(out);
  Result<Report> recorded = report_from_json_text(report->bytes);
  if (!recorded) return unread("report.json: " + recorded.error().message);
  // Removed on return, and by SIGINT/SIGTERM/SIGHUP mid-replay.
  Result<std::unique_ptr<ScratchDir>> scratch = ScratchDir::make("gpu-triage-bundle");
  if (!scratch) return unread(scratch.error().message);
  const std::string& dir = (*scratch)->path();
  if (Status s = extract_entries(*entries, dir); !s) return unread(s.error().message);
  in.root = dir + "/root";
  std::error_code ec;
  if (!std::filesystem::is_directory(in.root, ec)) std::filesystem::create_directory(in.root, ec);
  Collected c = collect_recorded(recorded->snapshot, in, stages);
  c.report.snapshot.warnings.push_back(replay_note(file, c.report.snapshot, cuts_of(*entries)));
  BundleReplay& b = c.report.snapshot.bundle_replay.emplace();
  b.file = file;
  b.unverified = check_members(*entries);
  b.recorded_verdict = verdict_word(*recorded);
  for (const Finding& f : recorded->findings) b.recorded_findings.push_back(replay_finding_key(f));
  return c;
}

bool bundle_unread(const Report& report) {
  return report.snapshot.source == Origin::kCapture && report.snapshot.nvml.error_message;
}

bool looks_like_bundle(const std::string& file) {
  if (compression_for(file)) return true;
  std::ifstream in(file, std::ios::binary);
  char head[8] = {};
  in.read(head, sizeof head);
  const klog::Compression c =
      klog::compression_of(std::string_view(head, static_cast<size_t>(in.gcount())));
  return c == klog::Compression::kGzip || c == klog::Compression::kZstd;
}

}  // namespace gt
