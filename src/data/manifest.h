// Checksum manifests in the sha256sum line format ("<hex>  <path>", with
// GNU's escaping of names holding a backslash or a newline), so that
// `sha256sum -c` can check a sha256 manifest without this tool.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/stream.h"
#include "util/result.h"

namespace gt {

enum class HashAlgo { kXxh128, kSha256, kCrc32 };

/// "xxh128", "sha256", "crc32".
const char* hash_algo_name(HashAlgo a);
std::optional<HashAlgo> parse_hash_algo(std::string_view name);

/// Computes one file's digest as a deep-pass consumer.
class Hasher : public StreamConsumer {
 public:
  static std::unique_ptr<Hasher> make(HashAlgo algo);
  /// Lowercase hex digest, valid after finish().
  virtual std::string hex() const = 0;
};

/// One manifest line: "<hex>  <path>" or, for a name with '\' or '\n',
/// "\<hex>  <escaped path>" (GNU coreutils).
std::string manifest_line(std::string_view hex, std::string_view path);

/// The comment line that records a DIR's absolute path, for information
/// only: entries are relative to DIR, so a moved tree still verifies.
/// sha256sum -c skips lines starting with '#'.
std::string manifest_dir_line(std::string_view abs_dir);

/// A parsed manifest: name (relative to DIR) -> hex digest, its algorithm,
/// told by the digest length (64 sha256, 32 xxh128, 8 crc32), the DIRs it
/// recorded, and the lines it could not read ("line 7: ...").
struct Manifest {
  HashAlgo algo = HashAlgo::kXxh128;
  std::map<std::string, std::string> digests;
  std::vector<std::string> dirs;
  std::vector<std::string> bad_lines;
};
/// Parses a manifest. A line not in the format is noted in bad_lines and
/// skipped; fails only when the digests are of no known algorithm.
Result<Manifest> parse_manifest(std::string_view text);

/// Old manifests stored paths as typed ("hidden/rows_0-2000/data_0.ckpt",
/// "/data/hidden/..."). Finds the prefix that, stripped, names files on disk
/// (the most common among the first entries) and strips it from every entry
/// that has it. Returns the prefix ("" when none was needed).
std::string strip_dir_prefix(Manifest& m, const std::vector<std::string>& names_on_disk);

/// Differences between a manifest and what is on disk now.
struct ManifestDiff {
  std::vector<std::string> changed, missing, added;  ///< paths, sorted
  std::vector<std::string> notes;  ///< skipped lines, a stripped prefix, another algorithm?
};
ManifestDiff compare_manifest(const Manifest& m, const std::map<std::string, std::string>& now);

}  // namespace gt
