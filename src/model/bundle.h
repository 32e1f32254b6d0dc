// What `gpu-triage bundle` wrote and how each of its collectors ended: the
// archive's manifest.json (issue 37), as plain data. The renderer writes
// it (render/bundle_manifest.h); the bundle's writer fills it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gt {

/// How one collector of the bundle ended.
enum class CollectorEnd {
  kDone,      ///< finished within its deadline
  kTimedOut,  ///< killed at its deadline; what it wrote so far is kept
  kRefused,   ///< could not run (no such program, no permission, failed)
  kSkipped,   ///< not asked for (--with-bug-report absent, nvidia-smi not installed)
};

inline const char* collector_end_name(CollectorEnd e) {
  switch (e) {
    case CollectorEnd::kDone:
      return "done";
    case CollectorEnd::kTimedOut:
      return "timed_out";
    case CollectorEnd::kRefused:
      return "refused";
    case CollectorEnd::kSkipped:
      return "skipped";
  }
  return "done";
}

struct CollectorOutcome {
  std::string name;  ///< "triage", "nvidia-smi", "nvidia-bug-report"
  CollectorEnd end = CollectorEnd::kDone;
  double seconds = 0;  ///< how long it ran
  std::optional<double> deadline_s;
  std::string detail;  ///< why refused or skipped, the program's last words
};

/// One member of the archive.
struct BundleMember {
  std::string name;  ///< path inside the archive ("root/proc/1/stat")
  uint64_t size_bytes = 0;
  std::string sha256;  ///< lowercase hex of the member's bytes as stored
};

/// A value replaced by <redacted>: which variable or option, in which
/// member; never the value.
struct Redaction {
  std::string member;
  std::string what;  ///< the name or the rule: "HF_TOKEN", "--api-key", "URL userinfo"
};

/// A member cut to keep the archive under --max-size.
struct BundleCut {
  std::string member;
  uint64_t kept_bytes = 0;
  uint64_t dropped_bytes = 0;
  std::string why;
};

struct BundleManifest {
  std::string tool_version;
  std::optional<std::string> host;
  int64_t created_unix_ms = 0;
  std::string root;  ///< the FsRoot the node was read under ("/" live)
  bool redacted = true;
  std::vector<BundleMember> members;
  std::vector<CollectorOutcome> collectors;
  std::vector<Redaction> redactions;
  std::vector<BundleCut> cuts;
  std::vector<std::string> notes;  ///< files read but not copied, and why
};

}  // namespace gt
