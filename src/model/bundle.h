// What `gpu-triage bundle` wrote and how each of its collectors ended: the
// archive's manifest.json (issue 37), as plain data. The renderer writes
// it (render/bundle_manifest.h); the bundle's writer fills it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/describe.h"

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

/// What a bundle's replay (gpu-triage --bundle, fleet --reports) found
/// against the archive's own record: the members that differ from
/// manifest.json, and how the replay's judgement compares with the one
/// report.json recorded (filled once judged).
struct BundleReplay {
  std::string file;  ///< the bundle as given
  /// "root/etc/fstab: 120 bytes, manifest.json says 180", "no manifest.json":
  /// empty when every member is the one the manifest describes.
  std::vector<std::string> unverified;
  std::string recorded_verdict;  ///< report.json's verdict word
  /// report.json's findings, each "id severity subject" (replay_finding_key).
  std::vector<std::string> recorded_findings;
  std::optional<std::string> replayed_verdict;  ///< the replay's verdict word, once judged
  /// What the replay judged otherwise: "recorded only: ...", "replayed only: ...".
  std::vector<std::string> differences;
  bool operator==(const BundleReplay&) const = default;
};

// Each type's fields once, in the report's order (model/describe.h).
void describe(SelfOf<BundleReplay> auto& b, auto& v) {
  v("bundle", b.file);
  v("members_unverified", b.unverified);
  v("recorded_verdict", b.recorded_verdict);
  v("recorded_findings", b.recorded_findings);
  v("replayed_verdict", b.replayed_verdict);
  v("differences", b.differences);
}

}  // namespace gt
