// The one comparison of two fingerprints of a node (issue 36): this run's
// against the record's baseline, as typed changes (model/fingerprint_change.h).
// The node's change checks word them as change.* findings
// (checks/change_checks.cc); fleet --drift lists them per host from each
// host's report ("drift from each host's own past", fleet/drift.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/fingerprint_change.h"
#include "model/history.h"

namespace gt {

/// The fingerprint a run is compared with: the last one of a previous boot
/// in the record (the run "before the crash"), else the first of this boot.
struct FingerprintBaseline {
  const Fingerprint* print = nullptr;  ///< null: no earlier run recorded
  std::string boot_id;                 ///< the boot it was taken in
  bool this_boot = false;              ///< this boot's first run (no previous boot's)
  int64_t taken_unix_s = 0;
  /// "the last run of boot 1d0c5e21 (2026-01-01 10:00 UTC)", "this boot's
  /// first run (2026-01-01 10:00 UTC)".
  std::string when;
};

FingerprintBaseline fingerprint_baseline(const GpuHistory& h);

/// This boot's latest run, where it is not the baseline `b` (and differs
/// from it): a container recreated within the boot loses what was patched
/// since the baseline, which only that run saw. Null print: none (or no
/// baseline).
FingerprintBaseline this_boots_latest(const GpuHistory& h, const FingerprintBaseline& b);

/// What changed from `before` to `now`, in this order: the container, the
/// packages whose local changes are gone, mounts, GPUs (replaced, or moved
/// and VBIOS), the driver's versions (kernel module, NVML, libcuda), the
/// kernel, package versions, units owning a GPU server. A value unknown on
/// either side is no change.
std::vector<FingerprintChange> compare_fingerprints(const Fingerprint& before,
                                                    const Fingerprint& now);

/// The files' paths, comma separated ("a.py, b.py").
std::string modified_file_list(const std::vector<ModifiedFile>& files);

}  // namespace gt
