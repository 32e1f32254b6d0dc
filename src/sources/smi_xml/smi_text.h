// The one-line errors plain nvidia-smi prints instead of a report, mapped
// to what the NVML path would have recorded, so the same findings fire.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/snapshot.h"
#include "util/result.h"

namespace gt {

/// What an nvidia-smi error output means, in the snapshot's terms.
struct SmiTextFailure {
  NvmlStatus nvml;                    ///< loaded/initialized/init_error as NVML would have said
  std::vector<GpuState> gpus;         ///< GPUs the message names (lost, inaccessible)
  std::optional<uint32_t> gpu_count;  ///< 0 for "No devices were found"
};

/// Recognises nvidia-smi's error outputs:
/// - "Failed to initialize NVML: Driver/library version mismatch" (and the
///   "NVML library version: 570.124" line after it) -> init_error
///   NVML_ERROR_LIB_RM_VERSION_MISMATCH, library_version from that line;
/// - "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA
///   driver" -> NVML_ERROR_DRIVER_NOT_LOADED;
/// - "Failed to initialize NVML: Insufficient Permissions" -> NO_PERMISSION,
///   "...: Unknown Error" or any other reason -> NVML_ERROR_UNKNOWN;
/// - "Unable to determine the device handle for GPU[ ]<bus>: GPU is lost..."
///   -> that GPU lost; with another reason ("Unknown Error") -> inaccessible;
/// - "No devices were found" -> NVML up with 0 GPUs.
/// nullopt when the text is none of these.
std::optional<SmiTextFailure> parse_smi_error_text(std::string_view text);

/// Fills `snap` from whatever nvidia-smi printed: `nvidia-smi -q -x` XML
/// (parse_smi_xml) or one of its error outputs. kMalformed when neither.
Status fill_snapshot_from_smi_output(std::string_view text, NodeSnapshot& snap);

}  // namespace gt
