#include "model/snapshot.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace gt {

const char* origin_name(Origin o) {
  switch (o) {
    case Origin::kNvml:
      return "nvml";
    case Origin::kCapture:
      return "nvidia-smi-capture";
    case Origin::kGathered:
      return "nvidia-smi-over-ssh";
  }
  return "unknown";
}

const char* gpu_status_name(GpuStatus s) {
  switch (s) {
    case GpuStatus::kOk:
      return "ok";
    case GpuStatus::kLost:
      return "lost";
    case GpuStatus::kUnresponsive:
      return "unresponsive";
    case GpuStatus::kInaccessible:
      return "inaccessible";
  }
  return "unknown";
}

}  // namespace gt

namespace gt {

std::vector<std::string> clock_event_reason_names(uint64_t mask) {
  // Bit values from nvml.h (nvmlClocksEventReason* / ThrottleReason*); the
  // words are nvidia-smi's clocks_event_reasons.* query keys.
  static const char* const kNames[] = {"gpu_idle",
                                       "applications_clocks_setting",
                                       "sw_power_cap",
                                       "hw_slowdown",
                                       "sync_boost",
                                       "sw_thermal_slowdown",
                                       "hw_thermal_slowdown",
                                       "hw_power_brake_slowdown",
                                       "display_clock_setting"};
  std::vector<std::string> out;
  for (int bit = 0; bit < 64; ++bit) {
    if (!(mask & (uint64_t{1} << bit))) continue;
    if (bit < 9) {
      out.push_back(kNames[bit]);
    } else {
      char buf[32];
      snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(uint64_t{1} << bit));
      out.push_back(buf);
    }
  }
  return out;
}

const GpuState* gpu_by_index(const NodeSnapshot& s, uint32_t index) {
  for (const GpuState& g : s.gpus)
    if (g.index == index) return &g;
  return nullptr;
}

std::optional<uint32_t> gpu_numa_node(const NodeSnapshot& s, uint32_t index) {
  const GpuState* g = gpu_by_index(s, index);
  if (!g || !g->pci_bus_id) return std::nullopt;
  const std::string bus = normalize_pci_bus_id(*g->pci_bus_id);
  for (const PciDevice& d : s.pci_devices)
    if (d.bus_id == bus) return d.numa_node;
  return std::nullopt;
}

std::optional<bool> idle_over_window(const GpuState& g) {
  if (!g.utilization_gpu_pct || g.utilization_gpu_pct->samples < kMinIdleSamples)
    return std::nullopt;
  return g.utilization_gpu_pct->max == 0;
}

std::string normalize_pci_bus_id(std::string_view bus_id) {
  size_t first = bus_id.find_first_not_of(" \t\n");
  size_t last = bus_id.find_last_not_of(" \t\n");
  if (first == std::string_view::npos) return "";
  std::string id(bus_id.substr(first, last - first + 1));
  std::transform(id.begin(), id.end(), id.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  size_t colons = std::count(id.begin(), id.end(), ':');
  if (colons == 1) return "0000:" + id;
  if (colons != 2) return id;
  // Drop the leading zeros NVML's 8-digit domain adds, keeping 4 digits.
  size_t domain_len = id.find(':');
  size_t zeros = 0;
  while (domain_len - zeros > 4 && id[zeros] == '0') ++zeros;
  return id.substr(zeros);
}

}  // namespace gt
