// Judges what `gpu-triage cuda` proved (model/cuda_probe_result.h): one finding
// per GPU that failed a step, was stuck or whose child died, one for the
// node when CUDA cannot start at all (cuInit's error, joined with the
// library that was loaded and the kernel module it must match), a warning
// for a copy rate far below the link's and for a group whose GPUs cannot
// reach each other.
#pragma once

#include <vector>

#include "model/cuda_probe_result.h"
#include "model/exit_code.h"
#include "model/finding.h"
#include "model/snapshot.h"

namespace gt {

std::vector<Finding> cuda_probe_findings(const CudaProbeReport& r, const NodeSnapshot& s);

/// The probe stage's findings (triage --cuda: snapshot.cuda_probe), when it ran.
void check_cuda_probe(const NodeSnapshot& s, std::vector<Finding>& out);

/// The triage's codes: 2 any critical, 1 any warning, 3 when nothing was
/// proved (no GPU for CUDA, every GPU skipped), else 0.
ExitCode cuda_probe_exit(const CudaProbeReport& r, const std::vector<Finding>& f);

/// A copy rate below this share of the link's is cuda.copy_slow.
inline constexpr double kCopySlowShare = 0.5;

}  // namespace gt
