#include "sources/incident/incident_collector.h"

#include <algorithm>

#include "sources/incident/boot.h"
#include "sources/incident/clock.h"
#include "sources/incident/journal.h"
#include "sources/incident/newest_file.h"
#include "sources/incident/pstore.h"
#include "sources/incident/timeline.h"

namespace gt {
namespace {

using std::chrono::milliseconds;

/// What is left before `deadline`, at most `cap`, at least 1 ms.
milliseconds left(std::chrono::steady_clock::time_point deadline, milliseconds cap) {
  auto now = std::chrono::steady_clock::now();
  if (now >= deadline) return milliseconds(1);
  return std::clamp(std::chrono::duration_cast<milliseconds>(deadline - now), milliseconds(1), cap);
}

}  // namespace

HostSeams host_seams_for(const FsRoot& root) {
  if (root.root() == "/")
    return {std::make_shared<RealCommandRunner>(), std::make_shared<RealClockSource>()};
  auto fixture = std::make_shared<FixtureHost>(root);
  return {fixture, fixture};
}

Incident collect_incident(const FsRoot& root, const IncidentOptions& o,
                          const std::optional<std::vector<Server>>& servers) {
  Incident in;
  read_this_boot(root, in);
  JournalOptions jo;
  jo.runner = o.runner;
  jo.max_entries = o.max_journal_entries;
  jo.timeout = left(o.deadline, milliseconds(3000));
  read_previous_boot(jo, in);
  read_crash_records(root, in);
  ClockOptions co;
  co.clock = o.clock;
  co.runner = o.runner;
  co.timeout = left(o.deadline, milliseconds(1500));
  read_clock(root, co, in);
  WalkLimits limits;
  limits.deadline = o.deadline;
  for (const std::string& p : o.paths)
    if (p != "/")
      in.newest_files.push_back(
          find_newest_file(root, p, in.clock.system_unix_s, limits, in.clock));
  apply_crash_records(in);
  build_timeline(in, servers);
  return in;
}

}  // namespace gt
