// The bundle's archive: a tar compressed with zstd (.tar.zst) or gzip
// (.tar.gz), written and read with libarchive, so `tar -tf` lists it and
// any tar extracts it. Built in memory (the archive is capped, 64 MiB by
// default) and then written atomically by the caller.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bundle/tree_copy.h"
#include "util/result.h"

namespace gt {

enum class ArchiveCompression { kZstd, kGzip };

/// The compression a file name asks for: ".tar.zst" or ".tzst" zstd,
/// ".tar.gz" or ".tgz" gzip; nullopt for any other name.
std::optional<ArchiveCompression> compression_for(const std::string& file_name);

/// `name` without the archive suffix compression_for knows ("b" of
/// "b.tar.zst"); `name` itself without one, or when it is only the suffix.
std::string archive_stem(const std::string& name);

/// The archive of `entries`, in their order, each stamped `mtime_unix_s`
/// (files 0644, folders 0755). Fails with libarchive's message.
Result<std::string> archive_bytes(const std::vector<TreeEntry>& entries,
                                  ArchiveCompression compression, int64_t mtime_unix_s);

/// The most members (headers of any type) read_archive reads by default: a
/// bundle of a node with thousands of processes holds tens of thousands.
constexpr uint64_t kMaxArchiveMembers = 250000;

/// The entries of an archive (any compression libarchive reads); at most
/// `max_bytes` in all once uncompressed and `max_members` headers, each
/// bound said in the error when passed. Malformed with libarchive's message
/// for a damaged or truncated archive.
Result<std::vector<TreeEntry>> read_archive(const std::string& file, uint64_t max_bytes,
                                            uint64_t max_members = kMaxArchiveMembers);

}  // namespace gt

namespace gt {

/// Writes `entries` under the folder `dir` (which exists): files 0644,
/// folders, links as recorded. A name that is absolute, has a ".."
/// component, or whose folder is a link, is refused (a hostile archive
/// writes nothing outside `dir`); nothing is overwritten.
Status extract_entries(const std::vector<TreeEntry>& entries, const std::string& dir);

}  // namespace gt
