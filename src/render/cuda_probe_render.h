// `gpu-triage cuda`'s output: text (a header line, one line per GPU in 80
// columns, then the findings with their fixes) and JSON (every figure,
// unknown as null). Every string from outside (library paths, device
// names, a child's words) is escaped for the terminal.
#pragma once

#include <string>
#include <vector>

#include "model/cuda_probe_result.h"
#include "model/finding.h"

namespace gt {

std::string render_cuda_text(const CudaProbeReport& r, const std::vector<Finding>& findings,
                             int exit_code);
std::string render_cuda_json(const CudaProbeReport& r, const std::vector<Finding>& findings,
                             int exit_code);
/// The one line for a GPU (at most 80 columns).
std::string cuda_gpu_line(const CudaGpuProbe& p);

}  // namespace gt
