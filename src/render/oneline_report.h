// --oneline: one line per node for fleets (pdsh, clush, NHC).
//
// The verdict word comes first, then key=value fields in a fixed order with
// no timestamps and no hostname (pdsh prefixes it), so dshbak -c and
// clush -b fold every healthy node into one line.
#pragma once

#include <ostream>

#include "model/report.h"

namespace gt {

/// Writes e.g. "WARNING gpus=8/8 critical=0 warning=9 ids=driver.version_split,memory.held_idle".
void render_oneline(const Report& report, std::ostream& out);

}  // namespace gt
