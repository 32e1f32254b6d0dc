// Which words nvidia-smi prints is confirmed only where a comment says so
// (real captures in tests/fixtures/real, SOURCES.md, and quoted nvidia-smi
// -q output in public issues). The rest are guesses from NVML's enum names
// (nvml-abi.md 8.3, 8.4) spelt the way nvidia-smi spells the confirmed
// ones: words matched case-insensitively, by the words they contain, so
// "Node Reboot", "NODE_REBOOT" and "Reboot the node" all read the same.
#include "sources/smi_xml/smi_words.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace gt {
namespace {

std::string lower_trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  std::string out(s.substr(b, e - b + 1));
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // "_" and "-" as blanks: "DRAIN_AND_RESET" reads as "drain and reset".
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '_' || c == '-'; }, ' ');
  return out;
}

bool has(const std::string& s, std::string_view word) { return s.find(word) != std::string::npos; }

/// nvidia-smi's words for "nothing known" (and its error words).
bool not_available(const std::string& l) {
  static const std::array<const char*, 9> kWords = {
      "",
      "n/a",
      "[n/a]",
      "not supported",
      "[not supported]",
      "unknown error",
      "[unknown error]",
      "requested functionality has been deprecated",
      "[requested functionality has been deprecated]"};
  return std::find(kWords.begin(), kWords.end(), l) != kWords.end();
}

}  // namespace

std::optional<RecoveryAction> smi_recovery_action(std::string_view text) {
  using A = RecoveryAction;
  const std::string l = lower_trimmed(text);
  if (not_available(l)) return std::nullopt;
  if (l == "none") return A::kNone;  // confirmed: 570 and 590 captures, 590 query-gpu CSV
  // Guesses from nvmlDeviceGpuRecoveryAction_t: NODE_REBOOT 2, SYSTEM_REBOOT 7
  // (a bare "Reboot" read as the node's), DRAIN_AND_RESET 4, DRAIN_P2P 3,
  // BUS_RESET 6 (GPU_RESET_BUS in nvidia-ml-py), GPU_RESET 1.
  // A negation ("No reset required", "Reset not needed") is no action we can
  // name: unknown (a warning), never a reset or a reboot.
  const std::string padded = " " + l + " ";
  if (has(padded, " no ") || has(padded, " not ") || has(l, "n't")) return A::kUnknown;
  if (has(l, "reboot")) return has(l, "system") ? A::kSystemReboot : A::kNodeReboot;
  if (has(l, "drain") && has(l, "reset")) return A::kDrainAndReset;
  if (has(l, "drain") && has(l, "p2p")) return A::kDrainP2p;
  if (has(l, "bus") && has(l, "reset")) return A::kBusReset;
  if (has(l, "reset")) return A::kGpuReset;
  return A::kUnknown;  // a word we cannot name is never read as healthy
}

std::optional<FabricState> smi_fabric_state(std::string_view text) {
  // "Completed" and "In Progress" confirmed (535 -q output, 580 -q output
  // in NVIDIA/gpu-operator#2511); "Not Started", "Not Supported" by analogy.
  const std::string l = lower_trimmed(text);
  if (l == "completed") return FabricState::kCompleted;
  if (l == "in progress") return FabricState::kInProgress;
  if (l == "not started") return FabricState::kNotStarted;
  if (l == "not supported") return FabricState::kNotSupported;
  return std::nullopt;
}

std::optional<std::string> smi_fabric_status(std::string_view text) {
  const std::string l = lower_trimmed(text);
  if (not_available(l)) return std::nullopt;
  if (l == "success") return "success";  // confirmed: 535 -q and 590 query-gpu CSV
  std::string t(text);
  size_t b = t.find_first_not_of(" \t\r\n"), e = t.find_last_not_of(" \t\r\n");
  return t.substr(b, e - b + 1);
}

std::optional<FabricHealthSummary> smi_fabric_summary(std::string_view text) {
  // "Healthy" as nvidia-smi 580 prints a v3 healthSummary of 1
  // (NVIDIA/k8s-test-infra#685); the other two by analogy.
  const std::string l = lower_trimmed(text);
  if (l == "healthy") return FabricHealthSummary::kHealthy;
  if (l == "unhealthy") return FabricHealthSummary::kUnhealthy;
  if (l == "limited capacity") return FabricHealthSummary::kLimitedCapacity;
  return std::nullopt;
}

std::optional<bool> smi_fabric_condition(std::string_view text) {
  // "Full" (bandwidth not degraded) as nvidia-smi 580 prints it
  // (NVIDIA/k8s-test-infra#685); the others are guesses.
  const std::string l = lower_trimmed(text);
  static const std::array<const char*, 6> kTrue = {"true",      "yes",         "degraded",
                                                   "unhealthy", "in progress", "active"};
  static const std::array<const char*, 8> kFalse = {"false",        "no",        "full",
                                                    "not degraded", "healthy",   "not in progress",
                                                    "inactive",     "not active"};
  if (std::find(kTrue.begin(), kTrue.end(), l) != kTrue.end()) return true;
  if (std::find(kFalse.begin(), kFalse.end(), l) != kFalse.end()) return false;
  return std::nullopt;
}

std::optional<std::string> smi_fabric_incorrect_configuration(std::string_view text) {
  // Guesses from NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_*.
  const std::string l = lower_trimmed(text);
  if (l == "none") return "none";
  if (has(l, "sysguid")) return "wrong_sysguid";
  if (has(l, "chassis")) return "wrong_chassis_serial";
  if (has(l, "partition")) return "no_partition";
  if (has(l, "nvlink")) return "insufficient_nvlinks";
  if (has(l, "firmware")) return "incompatible_gpu_firmware";
  if (has(l, "location")) return "invalid_location";
  if (has(l, "state")) return "gpu_state_invalid";
  return std::nullopt;
}

}  // namespace gt
