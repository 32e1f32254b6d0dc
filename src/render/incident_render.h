// The "what happened" section (model/incident.h) of the table report;
// kept apart from the rest of the renderer.
#pragma once

#include <optional>
#include <ostream>

#include "model/incident.h"

namespace gt {

/// The table's section: a heading, one line per timeline entry
/// ("2026-03-04 03:12:41  previous boot ended abruptly ... [journal]"),
/// then one "not read:" line per source that could not be read. Nothing
/// when not collected. Lines are wrapped to `width` unless `wide`.
void render_incident_section(const std::optional<Incident>& incident, bool wide, int width,
                             std::ostream& out);

}  // namespace gt
