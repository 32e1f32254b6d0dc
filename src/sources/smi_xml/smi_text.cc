// nvidia-smi's error outputs (shared/fixtures/real/nvidia-smi-text/issue-*):
// one or two lines on stdout, exit code 9, 15 or 255 depending on the
// failure. Quirks: "GPU is lost.  Reboot the system..." has two spaces;
// newer drivers print "for GPU0000:07:00.0" with no space before the bus id;
// 570+ adds "NVML library version: 570.124" after a version mismatch. The
// NVML names used here are the ones the NVML path records (init_error,
// GpuStatus), so check_nvml() and check_gpu_health() give the same findings.
#include "sources/smi_xml/smi_text.h"

#include <cctype>

#include "model/limits.h"
#include "sources/smi_xml/smi_xml_parser.h"
#include "util/terminal_text.h"
#include "util/text.h"

namespace gt {
namespace {

// Read by hand, never std::regex: libstdc++'s regex executor recurses once
// per character, so one long line (a broken or hostile node's stdout)
// overflows the stack. Every scan here is linear, and what is kept of a line
// is capped.
constexpr size_t kMaxQuotedBytes = 512;  ///< of a line kept in a message
constexpr size_t kMaxVersionBytes = 32;  ///< "570.124": longer is not a version

/// `line` as a message quotes it: at most kMaxQuotedBytes, the rest counted.
std::string clipped_line(std::string_view line) {
  if (line.size() <= kMaxQuotedBytes) return std::string(line);
  return std::string(line.substr(0, kMaxQuotedBytes)) + "... (" +
         std::to_string(line.size() - kMaxQuotedBytes) + " more bytes)";
}

/// nvmlInit failed with NVML's `name` (`code`), read as `error`.
SmiTextFailure init_failure(NvmlInitError error, const char* name, int code,
                            const std::string& line) {
  SmiTextFailure f;
  f.nvml.loaded = true;
  f.nvml.initialized = false;
  f.nvml.init_error = error;
  f.nvml.init_return_name = name;
  f.nvml.init_return_code = code;
  f.nvml.error_message = "nvidia-smi: " + clipped_line(line);
  return f;
}

/// The lines of `text` split at every "\r" and "\n" (the breaks left out).
std::vector<std::string_view> text_lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const size_t nl = text.find_first_of("\r\n");
    std::string_view line = text.substr(0, nl);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

/// The length of the run of hex digits at the start of `s`, at most `max` + 1.
size_t hex_run(std::string_view s, size_t max) {
  size_t n = 0;
  while (n < s.size() && n <= max && std::isxdigit(static_cast<unsigned char>(s[n]))) ++n;
  return n;
}

/// A PCI bus id at the start of `s` ("0000:03:00.0", domain of 4 to 8 hex
/// digits): its length, 0 when there is none.
size_t bus_id_length(std::string_view s) {
  const size_t domain = hex_run(s, 8);
  if (domain < 4 || domain > 8) return 0;
  // ":BB:DD.F" after the domain.
  const std::string_view rest = s.substr(domain);
  if (rest.size() < 8 || rest[0] != ':' || hex_run(rest.substr(1), 2) != 2 || rest[3] != ':' ||
      hex_run(rest.substr(4), 2) != 2 || rest[6] != '.' || hex_run(rest.substr(7), 1) < 1)
    return 0;
  return domain + 8;
}

/// One GPU nvidia-smi could not open, from the text after "... for GPU":
/// "[ ]<bus>: <reason>" (the reason runs to the end of the line).
std::optional<GpuState> handle_failure(std::string_view after_gpu, std::string_view whole) {
  std::string_view s = after_gpu;
  if (s.starts_with(' ') && bus_id_length(s.substr(1)) > 0) s.remove_prefix(1);
  const size_t bus = bus_id_length(s);
  if (bus == 0 || bus >= s.size() || s[bus] != ':') return std::nullopt;
  std::string_view reason = s.substr(bus + 1);
  reason.remove_prefix(std::min(reason.find_first_not_of(' '), reason.size()));
  GpuState g;
  g.pci_bus_id = std::string(s.substr(0, bus));
  const bool lost = reason.find("GPU is lost") != std::string_view::npos;
  g.status = lost ? GpuStatus::kLost : GpuStatus::kInaccessible;
  const size_t end = static_cast<size_t>(reason.data() + reason.size() - whole.data());
  g.status_detail = "nvidia-smi: " + clipped_line(whole.substr(0, end));
  return g;
}

/// The first device handle failure on `line`, if any.
std::optional<GpuState> handle_failure_on(std::string_view line) {
  static constexpr std::string_view kLead = "Unable to determine the device handle for GPU";
  for (size_t at = line.find(kLead); at != std::string_view::npos; at = line.find(kLead, at + 1)) {
    const std::string_view from = line.substr(at);
    if (std::optional<GpuState> g = handle_failure(from.substr(kLead.size()), from)) return g;
  }
  return std::nullopt;
}

/// "Unable to determine the device handle for GPU 0000:03:00.0: <reason>",
/// one GPU per line (the first kMaxGpus).
std::optional<SmiTextFailure> device_handle_failures(std::string_view text) {
  SmiTextFailure f;
  f.nvml.loaded = true;
  f.nvml.initialized = true;
  for (std::string_view line : text_lines(text)) {
    if (f.gpus.size() >= kMaxGpus) break;
    std::optional<GpuState> g = handle_failure_on(line);
    if (!g) continue;
    g->index = static_cast<uint32_t>(f.gpus.size());  // nvidia-smi names the bus, not the index
    f.gpus.push_back(std::move(*g));
  }
  if (f.gpus.empty()) return std::nullopt;
  return f;
}

/// "NVML library version: 570.124" anywhere in `text`: the version, when
/// it is one (digits and dots, at most kMaxVersionBytes).
std::optional<std::string> library_version(std::string_view text) {
  static constexpr std::string_view kLead = "NVML library version:";
  for (size_t at = text.find(kLead); at != std::string_view::npos; at = text.find(kLead, at + 1)) {
    std::string_view v = text.substr(at + kLead.size());
    v.remove_prefix(std::min(v.find_first_not_of(' '), v.size()));
    const size_t n = std::min(v.find_first_not_of("0123456789."), v.size());
    if (n == 0 || !std::isdigit(static_cast<unsigned char>(v[0]))) continue;
    if (n > kMaxVersionBytes) return std::nullopt;
    return std::string(v.substr(0, n));
  }
  return std::nullopt;
}

}  // namespace

std::optional<SmiTextFailure> parse_smi_error_text(std::string_view text) {
  const std::string line = first_line(text);
  if (line.find("Driver/library version mismatch") != std::string::npos) {
    SmiTextFailure f = init_failure(NvmlInitError::kVersionMismatch,
                                    "NVML_ERROR_LIB_RM_VERSION_MISMATCH", 18, line);
    if (std::optional<std::string> v = library_version(text)) f.nvml.library_version = *v;
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
