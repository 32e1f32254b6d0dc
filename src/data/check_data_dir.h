// `gpu-triage --data DIR`: the data check inside the triage. Scans and
// analyses DIR as `gpu-triage data DIR` does (quick mode with the recent
// files CRC-checked, or --deep), never writes or moves anything, and
// returns the plain summary the checks judge (model/data_check.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/data_check.h"
#include "util/fs_root.h"

namespace gt {

struct DataCheckRequest {
  std::string dir;
  std::optional<int64_t> expect;  ///< --expect N: indices 0..N-1
  bool deep = false;
  /// When the node crashed, from the incident timeline: quick mode's window
  /// before it is read too.
  std::optional<int64_t> crash_unix_s;
};

/// Never fails: what could not be read is in the summary's error/errors.
DataCheck check_data_dir(const DataCheckRequest& request, const FsRoot& root);

}  // namespace gt
