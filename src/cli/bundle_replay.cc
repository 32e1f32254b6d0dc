#include "cli/bundle_replay.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "bundle/archive.h"
#include "render/bundle_manifest.h"
#include "render/json_report_read.h"
#include "sources/kernel_log/compressed.h"
#include "util/time_format.h"

namespace gt {
namespace {

/// The most a bundle may hold uncompressed (its cap is 64 MiB compressed).
constexpr uint64_t kBundleReplayBytes = 1ull << 30;

/// The members the manifest says were cut ("dev/kmsg, ..."), or "".
std::string cuts_of(const std::vector<TreeEntry>& entries) {
  for (const TreeEntry& e : entries) {
    if (e.name != "manifest.json" || e.type != TreeEntry::Type::kFile) continue;
    std::string out;
    for (const std::string& m : manifest_cut_members(e.bytes)) out += (out.empty() ? "" : ", ") + m;
    return out;
  }
  return "";
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
  const TreeEntry* report = nullptr;
  for (const TreeEntry& e : *entries)
    if (e.name == "report.json" && e.type == TreeEntry::Type::kFile) report = &e;
  if (report == nullptr) return unread("no report.json: not a gpu-triage bundle");
  Result<Report> recorded = report_from_json_text(report->bytes);
  if (!recorded) return unread("report.json: " + recorded.error().message);
  std::string dir = std::filesystem::temp_directory_path().string() + "/gpu-triage-bundle.XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) return unread("cannot make a scratch folder");
  Collected c;
  if (Status s = extract_entries(*entries, dir); !s) {
    c = unread(s.error().message);
  } else {
    in.root = dir + "/root";
    std::error_code ec;
    if (!std::filesystem::is_directory(in.root, ec)) std::filesystem::create_directory(in.root, ec);
    c = collect_recorded(recorded->snapshot, in, stages);
    c.report.snapshot.warnings.push_back(replay_note(file, c.report.snapshot, cuts_of(*entries)));
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
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
