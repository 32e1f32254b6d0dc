// Manifests over a scan: entries are named relative to DIR (with several
// DIRs, prefixed by each DIR's last component), so a tree copied, moved or
// mounted elsewhere verifies; each DIR's absolute path is recorded in a
// comment line, for information only.
#pragma once

#include <string>
#include <vector>

#include "data/manifest.h"
#include "data/scan.h"

namespace gt {

/// The name a file has in a manifest of `scan`.
std::string manifest_name(const DirScan& scan, const ScannedFile& f);

/// The manifest text: "# dir: <absolute DIR>" lines, then one line per
/// file that has a digest.
std::string manifest_text(const DirScan& scan);

/// A manifest compared with a scan.
struct ManifestCheck {
  ManifestDiff diff;              ///< paths as printed (DIR joined with the name)
  std::vector<uint32_t> changed;  ///< scan file indices whose digest differs
};

/// Compares `m` (relativised here: an old manifest's typed prefix is
/// stripped) with the digests of `scan`.
ManifestCheck check_manifest(Manifest m, const DirScan& scan);

}  // namespace gt
