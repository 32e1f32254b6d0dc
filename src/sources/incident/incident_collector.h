// Collects the Incident (model/incident.h): this boot, the previous boot
// from the journal, crash records, the clock, the newest file under each
// --path; then builds the time-ordered lines. Bounded by `deadline`: each
// command gets what is left of it (at most its own cap), and the --path
// walks stop at it.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "model/incident.h"
#include "model/server.h"
#include "sources/incident/host.h"
#include "util/fs_root.h"

namespace gt {

struct IncidentOptions {
  const CommandRunner* runner = nullptr;  ///< required
  const ClockSource* clock = nullptr;     ///< required
  std::vector<std::string> paths;         ///< --path DIRs ("/" skipped)
  std::chrono::steady_clock::time_point deadline;
  uint64_t max_journal_entries = 20000;
};

/// The runner and clock for `root`: this machine's for "/", else the
/// fixture tree's (host.h).
struct HostSeams {
  std::shared_ptr<const CommandRunner> runner;
  std::shared_ptr<const ClockSource> clock;
};
HostSeams host_seams_for(const FsRoot& root);

Incident collect_incident(const FsRoot& root, const IncidentOptions& o,
                          const std::optional<std::vector<Server>>& servers);

}  // namespace gt
