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

/// Parses a manifest (path -> hex digest) and its algorithm, told by the
/// digest length (64 sha256, 32 xxh128, 8 crc32). Fails on a line that is
/// not in the format, naming the line number.
struct Manifest {
  HashAlgo algo = HashAlgo::kXxh128;
  std::map<std::string, std::string> digests;
};
Result<Manifest> parse_manifest(std::string_view text);

/// Differences between a manifest and what is on disk now.
struct ManifestDiff {
  std::vector<std::string> changed, missing, added;  ///< paths, sorted
};
ManifestDiff compare_manifest(const Manifest& m, const std::map<std::string, std::string>& now);

}  // namespace gt
