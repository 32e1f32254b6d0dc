// Writing one bundle (issue 37): the triage with every file it reads logged,
// the files copied, nvidia-smi -q -x and optionally nvidia-bug-report.sh
// under their deadlines, redacted, fitted under the size cap, written
// atomically. `gpu-triage bundle` writes one; `free --yes` writes one before
// its first signal (evidence before action).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "cli/args.h"
#include "cli/commands.h"
#include "model/bundle.h"
#include "util/result.h"

namespace gt {

struct BundleLimits {
  uint64_t max_size_bytes = 64ull << 20;
  uint64_t min_free_bytes = 256ull << 20;
  std::chrono::milliseconds smi_timeout{30000};
  std::chrono::milliseconds bug_report_timeout{300000};
};

struct BundleRequest {
  /// The archive to write; empty: default_bundle_name() in `dir`.
  std::string file;
  std::string dir = ".";
  BundleLimits limits;
  bool redact = true;
  bool with_bug_report = false;
};

struct BundleWritten {
  std::string file;
  uint64_t size_bytes = 0;
  BundleManifest manifest;
};

/// "gpu-triage-bundle-HOST-20261202T184900Z.tar.zst": the host's name made
/// safe for a file name, the collection's time in UTC.
std::string default_bundle_name(const std::optional<std::string>& host, int64_t unix_ms);

struct BuiltBundle {
  std::string file;   ///< the name it was built for (its compression)
  std::string bytes;  ///< the archive, under the size cap
  BundleManifest manifest;
  bool abandoned_threads = false;  ///< an NVML thread is still stuck
};

/// Collects `stages` of the node as `o` says and builds the archive in
/// memory (serve's /bundle sends it; write_node_bundle writes it).
Result<BuiltBundle> build_node_bundle(Stages stages, const Options& o, const BundleRequest& r);

/// Collects `stages` of the node as `o` says and writes the bundle; an error,
/// in words, when it cannot be written (nothing is left behind then).
Result<BundleWritten> write_node_bundle(Stages stages, const Options& o, const BundleRequest& r);

}  // namespace gt
