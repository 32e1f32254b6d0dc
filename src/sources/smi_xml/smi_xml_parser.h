// nvidia-smi -q -x output (the "nvsmi_device_vN.dtd" XML) -> the GPU part of
// a NodeSnapshot. Pure: text in, values out, no I/O, so it can be fuzzed and
// used for captures (--smi-xml) and for remote hosts gathered over SSH alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/snapshot.h"
#include "util/result.h"

namespace gt {

/// What one `nvidia-smi -q -x` document says.
struct SmiXml {
  std::optional<int> dtd_version;        ///< N of nvsmi_device_vN.dtd; null without DOCTYPE
  std::optional<std::string> timestamp;  ///< as printed (the capturing host's local time)
  std::optional<std::string> driver_version;
  std::optional<std::string> cuda_version;  ///< null when "Not Found" or absent (v9)
  std::optional<uint32_t> attached_gpus;    ///< may disagree with gpus.size() in trimmed files
  std::vector<GpuState> gpus;               ///< document order = NVML index order
  std::vector<std::string> warnings;        ///< oddities of the document, in words
};

/// Parses the XML text. Contract: every DTD from v9 to v13 and files without
/// a DOCTYPE are accepted; GPU index is the position in the document (what
/// nvidia-smi enumerates in NVML order; minor_number is not the index);
/// "N/A", "[N/A]", "[Not Supported]", "Requested functionality has been
/// deprecated", empty elements and missing elements give null, never 0;
/// error words ("[Unknown Error]", "[Insufficient Permissions]") give null
/// and an entry in GpuState::errors; "[GPU is lost]" marks the GPU lost.
/// Units: MiB -> bytes (x 1048576), W, %, C as numbers. Memory "used" is
/// nvidia-smi's Used (reserved apart), as the NVML path reports it.
/// Returns kMalformed when the text is not XML or has no <nvidia_smi_log>.
Result<SmiXml> parse_smi_xml(std::string_view text);

/// Puts a parsed document into `snap`: driver and CUDA versions, gpu_count
/// (attached_gpus, else the number of <gpu> elements), gpus, captured_at
/// (+ _unix_s, read as UTC: see smi_timestamp.h), and NVML status
/// loaded+initialized (nvidia-smi got that far; the JSON shows them null
/// for a capture). Warnings are appended.
void apply_smi_xml(SmiXml xml, NodeSnapshot& snap);

}  // namespace gt
