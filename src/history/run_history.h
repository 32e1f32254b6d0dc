// The record across boots in a triage run: read before judging (into
// snapshot.history), this run added after. Never fails the report: what
// goes wrong is a warning line.
#pragma once

#include <optional>
#include <string>

#include "model/report.h"
#include "util/fs_root.h"

namespace gt {

/// Reads the record into snap.history. Not kept (null, silently) with
/// `no_state`, and on a fixture root (`root` not "/") unless a state
/// directory is given; null with a warning saying why when it cannot be.
void load_history(const std::optional<std::string>& state_dir, bool no_state, const FsRoot& root,
                  NodeSnapshot& snap);

/// Adds this run's findings (history/record.h) to the record and writes it.
/// `said_to_operator`: the run's report goes to a person (the triage
/// command's table; not JSON, a line, a textfile or serve's scrapes), so
/// its notes said once are recorded as said (Finding::said_once_key).
void record_run(Report& report, bool said_to_operator = false);

}  // namespace gt
