// --oneline: one line per node for fleets (pdsh, clush, NHC).
//
// The verdict word comes first, then key=value fields in a fixed order with
// no timestamps and no hostname (pdsh prefixes it), so dshbak -c and
// clush -b fold every healthy node into one line.
#pragma once

#include <ostream>

#include "model/report.h"

namespace gt {

/// Writes e.g. "WARNING gpus=8/8 critical=0 warning=9
/// ids=cuda.driver_mismatch,memory.held_idle". gpus=A/B: A GPUs answering through NVML (a
/// lost, hung or inaccessible GPU is not counted; "?" when NVML could not list them), B NVIDIA GPUs
/// on the PCI bus ("-" for a capture, whose bus was not read); "0/0" when the machine has no NVIDIA
/// GPU at all.
void render_oneline(const Report& report, std::ostream& out);

/// Node Problem Detector keeps at most 80 bytes of a plugin's stdout
/// (max_output_length). The same line without driver=, with the ids worst
/// first and cut to what fits ("ids=gpu.lost,+3" names how many are left
/// out), never longer than `max_bytes` (newline not counted).
void render_oneline_npd(const Report& report, std::ostream& out, size_t max_bytes = 80);

}  // namespace gt
