// The "what happened" lines, in time order, each with its source, from
// what the incident collectors read and the servers (model/server.h).
#pragma once

#include <optional>
#include <vector>

#include "model/incident.h"
#include "model/server.h"

namespace gt {

/// Marks the previous boot as ended in a kernel panic when a crash record
/// with a panic message dates from it (or is undated) and the journal did
/// not see a shutdown.
void apply_crash_records(Incident& in);

/// Fills in.timeline (replacing it): sorted by time, undated lines last.
void build_timeline(Incident& in, const std::optional<std::vector<Server>>& servers);

}  // namespace gt
