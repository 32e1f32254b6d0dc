// A healthy 8-GPU node built in code, for the checks' unit tests.
#pragma once

#include <cstdio>

#include "model/report.h"

namespace gt {

inline GpuState healthy_gpu(uint32_t i) {
  GpuState g;
  g.index = i;
  g.name = "NVIDIA H100 80GB HBM3";
  g.uuid = "GPU-" + std::to_string(i);
  char bus[32];
  snprintf(bus, sizeof bus, "00000000:%02X:00.0", 0x19 + i);
  g.pci_bus_id = bus;
  g.memory_total_bytes = 81559ull << 20;
  g.memory_used_bytes = 0;
  g.utilization_gpu_pct = SampleStats{0, 0, 0, 6};
  g.persistence_mode = true;
  g.ecc = {0, 0, 0, 0};
  g.remapped_rows = {0, 0, false, false};
  g.pcie = {5, 5, 5, 16, 16, 0};
  g.clock_event_reasons = 0x1;
  g.processes = std::vector<GpuProcess>{};
  return g;
}

inline Report healthy_node(uint32_t n = 8) {
  Report r;
  NodeSnapshot& s = r.snapshot;
  s.nvml.loaded = s.nvml.initialized = true;
  s.nvml.library_version = "550.90.07";
  s.kernel_module_version = "550.90.07";
  s.driver_version = "550.90.07";
  s.gpu_count = n;
  s.sample_window_s = 1;
  for (uint32_t i = 0; i < n; ++i) {
    s.gpus.push_back(healthy_gpu(i));
    PciDevice d;
    char bus[32];
    snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x19 + i);
    d.bus_id = bus;
    d.driver = "nvidia";
    s.pci_devices.push_back(d);
  }
  s.kernel_log = KernelLog{};
  s.kernel_log->sources.push_back({"/dev/kmsg", LogBoot::kCurrent, true, std::nullopt, 100});
  DiskUsage d;
  d.path = "/";
  d.total_bytes = 1000;
  d.available_bytes = 500;
  s.disks.push_back(d);
  return r;
}

}  // namespace gt
