// One bundle member through the redaction rule (util/redact.h): a file's
// bytes, a link's target, and a gzip member (nvidia-bug-report.log.gz, a
// rotated log) decompressed, redacted and compressed again. A gzip member
// that cannot be read whole within kGzipTextCap (corrupt, cut short by the
// copy's cap, or larger) is left out with the reason: never stored as
// written, since the bug report's journal holds the servers' command lines
// and environments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bundle/tree_copy.h"

namespace gt {

/// The most text one gzip member may decompress to (a bug report is tens
/// of MiB).
inline constexpr size_t kGzipTextCap = 128u << 20;

struct RedactedMember {
  std::optional<TreeEntry> entry;  ///< nullopt: left out (see `left_out`)
  std::vector<std::string> what;   ///< names and rules redacted, never a value
  std::string left_out;            ///< why the member is not in the bundle
};

/// `e` with every secret replaced; folders unchanged.
RedactedMember redact_member(TreeEntry e);

}  // namespace gt
