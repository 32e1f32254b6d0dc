#include "bundle/bundle_file.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>

#include "data/manifest.h"
#include "data/problem.h"
#include "util/atomic_file.h"
#include "util/byte_units.h"
#include "util/fs_space.h"

namespace gt {

std::string sha256_hex(const std::string& bytes) {
  std::unique_ptr<Hasher> h = Hasher::make(HashAlgo::kSha256);
  h->feed(0, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  FileCheck unused;
  h->finish(unused);
  return h->hex();
}

std::vector<BundleMember> describe_members(const std::vector<TreeEntry>& entries) {
  std::vector<BundleMember> out;
  for (const TreeEntry& e : entries)
    if (e.type == TreeEntry::Type::kFile)
      out.push_back({e.name, e.bytes.size(), sha256_hex(e.bytes)});
  return out;
}

std::vector<std::string> unverified_members(const std::vector<TreeEntry>& entries,
                                            const std::vector<BundleMember>& members,
                                            size_t max_lines) {
  std::map<std::string, const TreeEntry*> files;
  for (const TreeEntry& e : entries)
    if (e.type == TreeEntry::Type::kFile && e.name != "manifest.json") files[e.name] = &e;
  std::vector<std::string> out;
  std::set<std::string_view> listed;  // the manifest's names, once: both lists may be long
  for (const BundleMember& m : members) {
    listed.insert(m.name);
    auto it = files.find(m.name);
    if (it == files.end()) {
      out.push_back(m.name + ": in manifest.json, not a file in the archive");
      continue;
    }
    const std::string& bytes = it->second->bytes;
    if (bytes.size() != m.size_bytes)
      out.push_back(m.name + ": " + std::to_string(bytes.size()) + " bytes, manifest.json says " +
                    std::to_string(m.size_bytes));
    else if (sha256_hex(bytes) != m.sha256)
      out.push_back(m.name + ": its sha256 is not manifest.json's");
    files.erase(it);
  }
  for (const auto& [name, e] : files) out.push_back(name + ": not in manifest.json");
  // Listed or not, a member that is no file is not what was written: the
  // manifest lists files only (one it lists is said above, as no file).
  for (const TreeEntry& e : entries)
    if (e.type == TreeEntry::Type::kOther && !listed.count(e.name))
      out.push_back(e.name + ": " + e.target + " in the archive, not extracted");
  if (out.size() > max_lines) {
    const size_t more = out.size() - max_lines;
    out.resize(max_lines);
    out.push_back("and " + std::to_string(more) + " more");
  }
  return out;
}

bool is_cuttable(const std::string& name) {
  return name == "root/dev/kmsg" || name.starts_with("root/var/log/") ||
         name.starts_with("bug-report/") || name.starts_with("journal/");
}

namespace {

/// Cuts every cuttable member to the newest half of its bytes; false when
/// none had a byte left to cut.
bool cut_logs(std::vector<TreeEntry>& entries, BundleManifest& m, uint64_t max_bytes) {
  bool cut = false;
  for (TreeEntry& e : entries) {
    if (e.type != TreeEntry::Type::kFile || !is_cuttable(e.name) || e.bytes.empty()) continue;
    const size_t keep = e.bytes.size() < 64 ? 0 : e.bytes.size() / 2;
    const uint64_t dropped = e.bytes.size() - keep;
    e.bytes.erase(0, e.bytes.size() - keep);  // the newest bytes are at the end
    auto it = std::find_if(m.cuts.begin(), m.cuts.end(),
                           [&](const BundleCut& c) { return c.member == e.name; });
    if (it == m.cuts.end())
      m.cuts.push_back({e.name, keep, dropped,
                        "the archive would pass --max-size " + format_bytes(max_bytes) +
                            ": its oldest bytes dropped"});
    else {
      it->kept_bytes = keep;
      it->dropped_bytes += dropped;
    }
    cut = true;
  }
  return cut;
}

}  // namespace

Result<std::string> fit_archive(std::vector<TreeEntry> entries, BundleManifest& m,
                                ArchiveCompression compression, uint64_t max_bytes,
                                std::string (*render_manifest)(const BundleManifest&)) {
  for (;;) {
    m.members = describe_members(entries);
    std::vector<TreeEntry> all = entries;
    all.push_back({TreeEntry::Type::kFile, "manifest.json", render_manifest(m), {}});
    Result<std::string> bytes = archive_bytes(all, compression, m.created_unix_ms / 1000);
    if (!bytes) return bytes;
    if (bytes->size() <= max_bytes) return bytes;
    if (!cut_logs(entries, m, max_bytes))
      return Error{ErrorKind::kIo, "the bundle needs " + format_bytes(bytes->size()) +
                                       " with every log cut, more than --max-size " +
                                       format_bytes(max_bytes)};
  }
}

Status write_bundle_file(const std::string& file, const std::string& bytes, uint64_t margin_bytes) {
  std::filesystem::path dir = std::filesystem::path(file).parent_path();
  if (dir.empty()) dir = ".";
  if (std::optional<uint64_t> free = free_bytes(dir.string()))
    if (*free < bytes.size() + margin_bytes)
      return Error{ErrorKind::kIo, "cannot write " + file + ": " + format_bytes(*free) +
                                       " free there, and the bundle (" +
                                       format_bytes(bytes.size()) + ") must leave " +
                                       format_bytes(margin_bytes) + " free"};
  Status s = write_file_atomically(file, bytes, 0600);
  if (!s) return s.error().with_context("cannot write " + file);
  return ok_status();
}

}  // namespace gt
