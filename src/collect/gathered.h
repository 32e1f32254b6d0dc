// A fleet host's answer (gpu-triage fleet over ssh, fleet/remote.cc): what
// the gather script sent back, collected into a snapshot by the one
// pipeline. Its files become a tree under a scratch directory, so the
// ordinary FsRoot readers (process details, PCI devices, module version)
// read the remote node exactly as they read a local one; nvidia-smi's
// answer fills the GPUs, its kernel-log lines and df the rest. Collected
// here, judged by the fleet.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/collect.h"
#include "model/report.h"
#include "util/result.h"

namespace gt {

/// What the gather script sent back, by record (fleet/remote.cc
/// parse_gathered reads its text protocol into this).
struct Gathered {
  bool native = false;      ///< gpu-triage ran there
  std::string native_json;  ///< its --json output
  std::optional<int> native_rc;
  std::map<std::string, std::string> files;  ///< absolute path -> content
  std::map<std::string, std::string> links;  ///< absolute path -> link target
  struct Out {
    std::string status;  ///< exit code, or the source name ("dmesg")
    std::string text;
  };
  std::map<std::string, Out> outs;  ///< "nvidia-smi", "kernel-log", "df", "df-i", "hostname"
  bool complete = false;            ///< the closing record arrived
};

/// How a gathered host is collected.
struct GatheredInputs {
  /// The deadline nvidia-smi ran under there: named when it was killed.
  std::chrono::milliseconds smi_deadline{18000};
  std::vector<std::string> paths = {"/"};  ///< the disks df was asked for (--path)
  Stages stages = kAllStages;
};

/// The gathered host's snapshot (origin kGathered) over `in.stages`,
/// collected, not judged: its files laid out under a scratch root (removed
/// on return) and read by the ordinary readers, nvidia-smi's answer for the
/// GPUs. kNotFound when no nvidia-smi output came back, kIo when no scratch
/// directory can be made, kMalformed when nvidia-smi's output does not
/// read (the message says which, ready for the host's line).
Result<Report> collect_gathered(const Gathered& g, const GatheredInputs& in);

/// Disk usage from `df -P -k` and `df -P -i` of `paths` (same order).
std::vector<DiskUsage> parse_df(const std::vector<std::string>& paths, std::string_view df_k,
                                std::string_view df_i);

}  // namespace gt
