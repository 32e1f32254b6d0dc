// Writing the bundle's archive: each member's size and sha256 for the
// manifest, the cap on the archive's size (the kernel log, the logs copied
// from /var/log and the bug report are cut first, their newest bytes
// kept, each cut recorded), and the file written atomically (a temporary
// file beside it, renamed) only when the disk keeps a margin free after it.
// A full or read-only folder leaves nothing behind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bundle/archive.h"
#include "bundle/tree_copy.h"
#include "model/bundle.h"
#include "util/result.h"

namespace gt {

/// Lowercase hex SHA-256 of `bytes`.
std::string sha256_hex(const std::string& bytes);

/// Each file entry's name, size and sha256, in order.
std::vector<BundleMember> describe_members(const std::vector<TreeEntry>& entries);

/// How `entries` differ from the manifest's `members`: a member missing,
/// of another size or sha256, or a file the manifest does not list (its own
/// manifest.json aside), one line each, at most `max_lines` and then how
/// many more; empty when every file is the one the manifest describes.
std::vector<std::string> unverified_members(const std::vector<TreeEntry>& entries,
                                            const std::vector<BundleMember>& members,
                                            size_t max_lines = 20);

/// Whether a member may be cut to fit the cap: the logs (the kernel log's
/// record file, /var/log copies, the journal) and the bug report's files.
bool is_cuttable(const std::string& member_name);

/// The archive of `entries` with the manifest `m` (its members filled here)
/// as its last member, under `max_bytes` compressed: while over, every
/// cuttable member keeps the newest half of its bytes (each cut in m.cuts).
/// Fails when even with every log cut to nothing it does not fit.
Result<std::string> fit_archive(std::vector<TreeEntry> entries, BundleManifest& m,
                                ArchiveCompression compression, uint64_t max_bytes,
                                std::string (*render_manifest)(const BundleManifest&));

/// Writes `bytes` to `file` atomically, refusing when the folder's
/// filesystem would keep less than `margin_bytes` free. Io with the reason
/// (read-only, full, no such folder); nothing is left at `file` or beside it.
Status write_bundle_file(const std::string& file, const std::string& bytes, uint64_t margin_bytes);

}  // namespace gt
