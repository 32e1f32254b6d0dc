// nvidia-smi's error outputs (shared/fixtures/real/nvidia-smi-text/issue-*):
// one or two lines on stdout, exit code 9, 15 or 255 depending on the
// failure. Quirks: "GPU is lost.  Reboot the system..." has two spaces;
// newer drivers print "for GPU0000:07:00.0" with no space before the bus id;
// 570+ adds "NVML library version: 570.124" after a version mismatch. The
// NVML names used here are the ones the NVML path records (init_error,
// GpuStatus), so check_nvml() and check_gpu_health() give the same findings.
#include "sources/smi_xml/smi_text.h"

#include <regex>

#include "sources/smi_xml/smi_xml_parser.h"
#include "util/terminal_text.h"
#include "util/text.h"

namespace gt {
namespace {

/// nvmlInit failed with NVML's `name` (`code`), read as `error`.
SmiTextFailure init_failure(NvmlInitError error, const char* name, int code,
                            const std::string& line) {
  SmiTextFailure f;
  f.nvml.loaded = true;
  f.nvml.initialized = false;
  f.nvml.init_error = error;
  f.nvml.init_return_name = name;
  f.nvml.init_return_code = code;
  f.nvml.error_message = "nvidia-smi: " + line;
  return f;
}

/// "Unable to determine the device handle for GPU 0000:03:00.0: <reason>".
std::optional<SmiTextFailure> device_handle_failures(std::string_view text) {
  static const std::regex kHandle(
      R"(Unable to determine the device handle for GPU ?([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]): *([^\r\n]*))");
  SmiTextFailure f;
  f.nvml.loaded = true;
  f.nvml.initialized = true;
  std::string s(text);
  uint32_t index = 0;
  for (std::sregex_iterator it(s.begin(), s.end(), kHandle), end; it != end; ++it) {
    GpuState g;
    g.index = index++;  // nvidia-smi names the bus, not the index
    g.pci_bus_id = (*it)[1].str();
    std::string reason = (*it)[2].str();
    bool lost = reason.find("GPU is lost") != std::string::npos;
    g.status = lost ? GpuStatus::kLost : GpuStatus::kInaccessible;
    g.status_detail = "nvidia-smi: " + (*it)[0].str();
    f.gpus.push_back(std::move(g));
  }
  if (f.gpus.empty()) return std::nullopt;
  return f;
}

}  // namespace

std::optional<SmiTextFailure> parse_smi_error_text(std::string_view text) {
  const std::string line = first_line(text);
  if (line.find("Driver/library version mismatch") != std::string::npos) {
    SmiTextFailure f = init_failure(NvmlInitError::kVersionMismatch,
                                    "NVML_ERROR_LIB_RM_VERSION_MISMATCH", 18, line);
    static const std::regex kLib(R"(NVML library version: *([0-9][0-9.]*))");
    std::string s(text);
    std::smatch m;
    if (std::regex_search(s, m, kLib)) f.nvml.library_version = m[1].str();
    return f;
  }
  if (line.find("couldn't communicate with the NVIDIA driver") != std::string::npos)
    return init_failure(NvmlInitError::kDriverNotLoaded, "NVML_ERROR_DRIVER_NOT_LOADED", 9, line);
  if (line.starts_with("Failed to initialize NVML: Insufficient Permissions"))
    return init_failure(NvmlInitError::kNoPermission, "NVML_ERROR_NO_PERMISSION", 4, line);
  if (line.starts_with("Failed to initialize NVML"))
    return init_failure(NvmlInitError::kOtherNvmlError, "NVML_ERROR_UNKNOWN", 999, line);
  if (line.starts_with("No devices were found")) {
    SmiTextFailure f;
    f.nvml.loaded = f.nvml.initialized = true;
    f.gpu_count = 0;
    return f;
  }
  return device_handle_failures(text);
}

Status fill_snapshot_from_smi_output(std::string_view text, NodeSnapshot& snap) {
  size_t b = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  if (b != std::string_view::npos && text[b] == '<') {
    Result<SmiXml> x = parse_smi_xml(text);
    if (!x) return x.error();
    apply_smi_xml(std::move(*x), snap);
    return ok_status();
  }
  std::optional<SmiTextFailure> f = parse_smi_error_text(text);
  if (!f) {
    // A quote of the input, shown and short: binary junk fills no screen.
    return Error{ErrorKind::kMalformed,
                 "neither nvidia-smi -q -x XML nor a known nvidia-smi error: \"" +
                     for_terminal(first_line(text), 80) + "\""};
  }
  snap.nvml = f->nvml;
  snap.gpus = std::move(f->gpus);
  snap.gpu_count = f->gpu_count;
  if (!snap.gpus.empty())
    snap.warnings.push_back(
        "nvidia-smi stopped at a GPU it could not open; "
        "the other GPUs are unknown");
  return ok_status();
}

}  // namespace gt
