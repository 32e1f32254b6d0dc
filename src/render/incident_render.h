// The "what happened" section (model/incident.h) for the table and JSON
// reports; kept apart from the rest of each renderer.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "model/incident.h"

namespace gt {

/// The JSON `incident` object; null when not collected (a capture).
nlohmann::ordered_json incident_to_json(const std::optional<Incident>& incident);

/// The table's section: a heading, one line per timeline entry
/// ("2026-03-04 03:12:41  previous boot ended abruptly ... [journal]"),
/// then one "not read:" line per source that could not be read. Nothing
/// when not collected. Lines are wrapped to `width` unless `wide`.
void render_incident_section(const std::optional<Incident>& incident, bool wide, int width,
                             std::ostream& out);

}  // namespace gt
