#include "render/prometheus_metrics.h"

namespace gt {

const std::vector<MetricSpec>& prometheus_metric_specs() {
  // Per-GPU metrics carry dcgm-exporter's label keys: gpu, UUID, pci_bus_id,
  // modelName, Hostname (ecosystem.md section 3). A label whose value is
  // unknown is left out; a metric whose value is unknown is not written.
  static const std::vector<MetricSpec> kSpecs = {
      // The tool and the node.
      {"gpu_triage_build_info", "gauge", "Always 1; label version: gpu-triage's version"},
      {"gpu_triage_driver_info", "gauge",
       "Always 1; labels driver_version, cuda_driver_version, nvml_version, "
       "kernel_module_version, nvml_library_version (each only when known)"},
      {"gpu_triage_nvml_up", "gauge", "1 when the NVML library loaded and initialized, else 0"},
      {"gpu_triage_verdict", "gauge",
       "1 for the current verdict, 0 for the others; label verdict: ok, warning, critical, "
       "unknown"},
      {"gpu_triage_finding", "gauge",
       "Number of findings with these labels: id (docs/checks.md), severity, and the "
       "subject's gpu, UUID, pci_bus_id, pid, path when it has them"},
      {"gpu_triage_findings", "gauge", "Number of findings of each severity (label severity)"},
      {"gpu_triage_cuda_ready", "gauge",
       "1 when no finding of the CUDA plan stage (cuda.*, nccl.*) is "
       "critical, 0 "
       "when CUDA or NCCL is predicted to fail; absent when the readiness stage did not run "
       "(a capture)"},
      {"gpu_triage_cuda_probe_passed", "gauge",
       "gpu-triage --cuda: 1 when every step of the CUDA probe passed on the GPU, 0 when one "
       "failed, was stuck past its deadline or crashed; absent for a GPU not probed, and for one "
       "whose probe was cut off while its calls still returned (late: nothing proved)"},
      {"gpu_triage_cuda_probe_duration_seconds", "gauge",
       "gpu-triage --cuda: how long the GPU's probe took (to its deadline when stuck)"},
      {"gpu_triage_cuda_probe_tested_bytes", "gauge",
       "gpu-triage --cuda: GPU memory written and read back"},
      {"gpu_triage_cuda_probe_h2d_bytes_per_second", "gauge",
       "gpu-triage --cuda: pinned host-to-device copy rate"},
      {"gpu_triage_cuda_probe_d2h_bytes_per_second", "gauge",
       "gpu-triage --cuda: pinned device-to-host copy rate"},
      {"gpu_triage_cuda_probe_link_bytes_per_second", "gauge",
       "gpu-triage --cuda: what the GPU's PCIe link carries one way at its maximum generation "
       "and width (what the copy rates are judged against)"},
      {"gpu_triage_cuda_peer_access", "gauge",
       "gpu-triage --cuda: 1 when cuDeviceCanAccessPeer says the GPU reaches peer_gpu, else 0; "
       "labels gpu, pci_bus_id, peer_gpu, peer_pci_bus_id"},
      {"gpu_triage_gpus", "gauge", "GPUs NVML reports"},
      {"gpu_triage_pci_gpus", "gauge", "NVIDIA GPUs on the PCI bus"},
      {"gpu_triage_sample_window_seconds", "gauge", "Utilization sample window"},
      {"gpu_triage_collection_duration_seconds", "gauge", "How long the last collection took"},
      {"gpu_triage_collection_timestamp_seconds", "gauge",
       "When the last collection started, seconds since the Unix epoch"},
      {"gpu_triage_kernel_log_source_up", "gauge",
       "1 when the kernel log source was read, else 0; labels source, boot"},
      {"gpu_triage_kernel_log_events", "gauge",
       "NVIDIA kernel log events seen; labels kind (xid, sxid, fallen-off-bus), code, boot"},
      {"gpu_triage_disk_size_bytes", "gauge", "Size of the filesystem holding path"},
      {"gpu_triage_disk_available_bytes", "gauge",
       "Space available to unprivileged users on the filesystem holding path"},
      {"gpu_triage_disk_inodes", "gauge", "Inodes of the filesystem holding path"},
      {"gpu_triage_disk_inodes_available", "gauge",
       "Inodes available on the filesystem holding path"},
      // Per GPU.
      {"gpu_triage_gpu_info", "gauge", "Always 1, per GPU; label serial when known"},
      {"gpu_triage_gpu_up", "gauge", "1 when the GPU answered every query, else 0"},
      {"gpu_triage_gpu_status", "gauge",
       "1 for the GPU's status, 0 for the others; label status: ok, lost, unresponsive, "
       "inaccessible"},
      {"gpu_triage_gpu_memory_total_bytes", "gauge", "Framebuffer memory, total"},
      {"gpu_triage_gpu_memory_used_bytes", "gauge",
       "Framebuffer memory used, as nvidia-smi's Used (reserved apart)"},
      {"gpu_triage_gpu_memory_free_bytes", "gauge", "Framebuffer memory free"},
      {"gpu_triage_gpu_memory_reserved_bytes", "gauge", "Framebuffer memory the driver reserves"},
      {"gpu_triage_gpu_utilization_ratio", "gauge",
       "GPU utilization, mean over the sample window (0-1)"},
      {"gpu_triage_gpu_utilization_max_ratio", "gauge",
       "GPU utilization, highest sample in the window (0-1)"},
      {"gpu_triage_gpu_memory_utilization_ratio", "gauge",
       "Memory controller utilization, mean over the sample window (0-1)"},
      {"gpu_triage_gpu_temperature_celsius", "gauge", "GPU temperature"},
      {"gpu_triage_gpu_power_draw_watts", "gauge", "Power draw"},
      {"gpu_triage_gpu_power_limit_watts", "gauge", "Power management limit"},
      {"gpu_triage_gpu_pstate", "gauge", "Performance state, 0 (P0, fastest) to 15"},
      {"gpu_triage_gpu_fan_speed_ratio", "gauge", "Fan speed (0-1)"},
      {"gpu_triage_gpu_persistence_mode_enabled", "gauge", "1 when persistence mode is on"},
      {"gpu_triage_gpu_mig_mode_enabled", "gauge", "1 when MIG mode is on"},
      {"gpu_triage_gpu_ecc_mode_enabled", "gauge", "1 when ECC is on"},
      {"gpu_triage_gpu_ecc_volatile_errors_total", "counter",
       "ECC errors since the driver loaded; label type: corrected, uncorrected"},
      {"gpu_triage_gpu_ecc_aggregate_errors_total", "counter",
       "ECC errors over the GPU's life; label type: corrected, uncorrected"},
      {"gpu_triage_gpu_retired_pages_total", "counter",
       "Retired memory pages; label cause: single_bit, double_bit"},
      {"gpu_triage_gpu_retired_pages_pending", "gauge", "1 when a page retirement is pending"},
      {"gpu_triage_gpu_remapped_rows_total", "counter",
       "Remapped memory rows; label type: correctable, uncorrectable"},
      {"gpu_triage_gpu_remapped_rows_pending", "gauge", "1 when a row remap is pending"},
      {"gpu_triage_gpu_remapped_rows_failure", "gauge", "1 when a row remap failed"},
      {"gpu_triage_gpu_pcie_link_gen_current", "gauge", "PCIe link generation now"},
      {"gpu_triage_gpu_pcie_link_gen_max", "gauge", "Highest PCIe generation of GPU and system"},
      {"gpu_triage_gpu_pcie_link_width_current", "gauge", "PCIe link width now (lanes)"},
      {"gpu_triage_gpu_pcie_link_width_max", "gauge", "Widest PCIe link the GPU supports"},
      {"gpu_triage_gpu_pcie_replays_total", "counter", "PCIe replay counter"},
      {"gpu_triage_gpu_clock_event_active", "gauge",
       "1 when the clock event reason is active, 0 when supported and inactive; label reason "
       "(nvidia-smi's clocks_event_reasons names)"},
      {"gpu_triage_gpu_processes", "gauge", "Processes NVML reports on the GPU"},
      {"gpu_triage_gpu_recovery_action", "gauge",
       "1, with label action: the driver's recovery action for the GPU (none, gpu_reset, "
       "node_reboot, drain_p2p, drain_and_reset, bus_reset, system_reboot, unknown); "
       "only when reported"},
      {"gpu_triage_gpu_row_remapper_banks", "gauge",
       "Memory banks by spare rows left; label spare: max, high, partial, low, none"},
      {"gpu_triage_gpu_fabric_registered", "gauge",
       "1 when the GPU completed NVSwitch fabric registration successfully, else 0; only on "
       "GPUs with a fabric"},
      {"gpu_triage_gpu_fabric_healthy", "gauge",
       "1 when the fabric health mask reports no problem, else 0; only on GPUs with a fabric"},
      {"gpu_triage_gpu_nvlinks", "gauge", "NVLinks the GPU reports; label state: active, inactive"},
      {"gpu_triage_gpu_nvlink_errors_total", "counter",
       "NVLink error counters summed over the GPU's links; label type: crc_flit, crc_data, "
       "replay, recovery"},
      {"gpu_triage_gpu_thermal_margin_celsius", "gauge",
       "Degrees left before the GPU's own slowdown threshold"},
      {"gpu_triage_gpu_memory_temperature_celsius", "gauge", "Memory (HBM) temperature"},
      {"gpu_triage_gpu_clock_limit_ratio", "gauge",
       "Share of the sample window the clocks were held by a limit (0-1); label limit: "
       "sw_power_cap, sync_boost, board_limit, low_utilization, reliability, sw_thermal, "
       "hw_thermal, hw_power_brake"},
      {"gpu_triage_gpu_mig_devices", "gauge", "MIG devices on the GPU (only when MIG is on)"},
      // Servers holding GPU memory (model/server.h); labels server (its id), kind, Hostname.
      {"gpu_triage_server_info", "gauge",
       "1 per server holding GPU memory; labels server, kind, model, port, gpus (0-3), owner "
       "(kind:name), restart_policy"},
      {"gpu_triage_server_memory_bytes", "gauge",
       "GPU memory the server's processes hold; labels server, kind, gpu"},
      {"gpu_triage_server_processes", "gauge", "The server's processes that hold GPU memory"},
      {"gpu_triage_server_idle", "gauge",
       "1 when every GPU the server holds stayed at 0% utilization over the whole sample "
       "window, else 0; absent when not sampled over a window"},
      {"gpu_triage_server_start_time_seconds", "gauge",
       "When the server's launcher started (Unix time)"},
      {"gpu_triage_server_auto_started", "gauge",
       "1 when a unit, container or restart policy started it within 5 minutes of boot"},
      {"gpu_triage_server_restarts_when_stopped", "gauge",
       "1 when its owner starts it again after a signal stops it (Restart=, a Docker restart "
       "policy, Kubernetes), 0 when not; absent when not known"},
      {"gpu_triage_server_launcher_exited", "gauge",
       "1 when the server's launcher exited and its workers still hold memory"},
      // gpu-triage serve itself.
      {"gpu_triage_report_age_seconds", "gauge",
       "serve: age of the report these metrics come from"},
      {"gpu_triage_collection_in_progress", "gauge", "serve: 1 while a collection runs"},
      {"gpu_triage_collections_total", "counter", "serve: collections finished"},
      {"gpu_triage_collections_abandoned_total", "counter",
       "serve: collections that left a thread stuck inside NVML"},
      {"gpu_triage_collector_halted", "gauge",
       "serve: 1 when collection stopped after too many stuck NVML calls (restart after "
       "the node is fixed)"},
  };
  return kSpecs;
}

const MetricSpec* find_metric_spec(std::string_view name) {
  for (const MetricSpec& s : prometheus_metric_specs())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace gt
