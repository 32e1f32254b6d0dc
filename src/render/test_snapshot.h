// A hand-built snapshot for renderer golden tests: two GPUs, one with an
// SGLang worker owned by a systemd unit, one lost; a PID from another
// namespace; unknown fields left null.
#pragma once

#include "model/snapshot.h"

namespace gt {

inline NodeSnapshot make_test_snapshot() {
  NodeSnapshot s;
  s.hostname = "node-7";
  s.collected_at_unix_ms = 1764400000000;
  s.sample_window_s = 1.0;
  s.nvml.loaded = true;
  s.nvml.initialized = true;
  s.nvml.library_path = "libnvidia-ml.so.1";
  s.nvml.library_file = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.565.57.01";
  s.nvml.library_version = "565.57.01";
  s.nvml.init_return_code = 0;
  s.driver_version = "590.48.01";
  s.nvml_version = "12.565.57.01";
  s.cuda_driver_version = "13.1";
  s.kernel_module_version = "590.48.01";
  s.gpu_count = 2;

  GpuState g;
  g.index = 0;
  g.name = "NVIDIA RTX PRO 6000 Blackwell Server Edition";
  g.uuid = "GPU-5b7d1c2e-0000-4000-8000-000000000000";
  g.serial = "1796025012345";
  g.pci_bus_id = "00000000:18:00.0";
  g.pci_device_id = 0x2BB510DE;
  g.memory_total_bytes = 97887ull << 20;
  g.memory_used_bytes = 75800000000ull;
  g.memory_free_bytes = (97887ull << 20) - 75800000000ull;
  g.memory_reserved_bytes = 512ull << 20;
  g.utilization_gpu_pct = SampleStats{0, 0, 0, 6};
  g.utilization_memory_pct = SampleStats{0, 0, 0, 6};
  g.temperature_c = 34;
  g.power_draw_w = 86.5;
  g.power_limit_w = 600;
  g.pstate = 1;
  g.persistence_mode = true;
  g.compute_mode = "Default";
  g.mig_mode_current = false;
  g.mig_mode_pending = false;
  g.ecc_mode_current = true;
  g.ecc_mode_pending = true;
  g.ecc = {0, 0, 0, 0};
  g.remapped_rows = {0, 0, false, false};
  g.pcie = {5, 5, 5, 16, 16, 0};
  g.clock_event_reasons = 0x1;
  g.clock_event_reasons_supported = 0x1FF;
  g.process_record_bytes = 24;
  GpuProcess p;
  p.pid = 3187;
  p.type = "compute";
  p.used_memory_bytes = 75263000000ull;
  p.visible = true;
  p.name = "sglang::schedul";
  p.cmdline = "sglang::scheduler_TP0";
  p.uid = 997;
  p.user = "svc-llm";
  p.ppid = 3141;
  p.start_time_unix_s = 1764399000;
  p.owner = ProcessOwner{OwnerKind::kSystemdUnit, "sglang.service", std::nullopt,
                         "/system.slice/sglang.service"};
  GpuProcess hidden;
  hidden.pid = 88123;
  hidden.type = "compute";
  hidden.used_memory_bytes = 512ull << 20;
  hidden.visibility_note = "PID 88123 is not visible in this PID namespace";
  g.processes = std::vector<GpuProcess>{p, hidden};
  s.gpus.push_back(g);

  GpuState lost;
  lost.index = 1;
  lost.status = GpuStatus::kLost;
  lost.status_detail = "nvmlDeviceGetName returned NVML_ERROR_GPU_IS_LOST";
  // What the checks complete for a lost GPU (checks/gpu_identities.cc).
  lost.pci_bus_id = "00000000:2A:00.0";
  lost.identity_derived_from =
      "bus id 0000:2a:00.0 from the PCI bus: the only GPU bound to nvidia that NVML does not "
      "account for";
  s.gpus.push_back(lost);

  PciDevice d;
  d.bus_id = "0000:18:00.0";
  d.device_id = 0x2BB5;
  d.class_code = 0x030200;
  d.driver = "nvidia";
  d.current_link_speed_gts = 32.0;
  d.max_link_speed_gts = 32.0;
  d.current_link_gen = 5;
  d.max_link_gen = 5;
  d.current_link_width = 16;
  d.max_link_width = 16;
  s.pci_devices.push_back(d);
  PciDevice d2 = d;
  d2.bus_id = "0000:2a:00.0";
  s.pci_devices.push_back(d2);
  Server sv;
  sv.id = "pid-3141";
  sv.kind = "SGLang";
  sv.recognised = true;
  sv.root_pid = 3141;
  sv.root_cmdline = "/usr/bin/python3 -m sglang.launch_server --model-path /models/m --tp 1";
  sv.members.push_back({3187, "compute", p.name, p.cmdline, {{0, p.used_memory_bytes}}});
  sv.gpus.push_back({0, p.used_memory_bytes});
  sv.model = "/models/m";
  sv.port = 30000;
  sv.tensor_parallel = 1;
  sv.user = "svc-llm";
  sv.start_time_unix_s = 1764399000;
  sv.started_after_boot_s = 41;
  sv.auto_started = true;
  sv.owner_kind = OwnerKind::kSystemdUnit;
  sv.owner_name = "sglang.service";
  sv.restart_policy = "Restart=always";
  sv.restarts_when_signalled = true;
  Server unseen;
  unseen.id = "pid-88123";
  unseen.kind = "PID 88123";
  unseen.members.push_back(
      {88123, "compute", std::nullopt, std::nullopt, {{0, hidden.used_memory_bytes}}});
  unseen.gpus.push_back({0, hidden.used_memory_bytes});
  unseen.grouping_note = "PID 88123 is not visible in this PID namespace";
  s.servers = std::vector<Server>{sv, unseen};
  DiskUsage root;
  root.path = "/";
  root.total_bytes = 500ull << 30;
  root.available_bytes = 120ull << 30;
  root.inodes_total = 32768000;
  root.inodes_available = 30000000;
  DiskUsage data = root;
  data.path = "/data";
  data.same_filesystem_as = "/";
  DiskUsage gone;
  gone.path = "/scratch";
  gone.error = "cannot read /scratch: No such file or directory";
  s.disks = {root, data, gone};
  s.nvidia_modules = {{"nvidia_uvm", 2, {}}, {"nvidia", 40, {"nvidia_uvm"}}};
  return s;
}

}  // namespace gt

#include "model/report.h"

namespace gt {

/// make_test_snapshot() with hand-written findings and plan (renderer tests
/// do not depend on the checks).
inline Report make_test_report() {
  Report r;
  r.snapshot = make_test_snapshot();
  Finding lost;
  lost.id = "gpu.lost";
  lost.severity = Severity::kCritical;
  lost.subject.kind = "gpu";
  lost.subject.gpu_index = 1;
  lost.title = "GPU 1 is lost: it fell off the bus or stopped responding";
  lost.evidence = "nvmlDeviceGetName returned NVML_ERROR_GPU_IS_LOST";
  lost.action = "Stop the jobs on this node and reboot it.";
  lost.commands = {"sudo reboot"};
  Finding held;
  held.id = "memory.held_idle";
  held.severity = Severity::kWarning;
  held.subject.kind = "server";
  held.subject.server_id = "pid-3141";
  held.subject.gpu_index = 0;
  held.subject.pid = 3141;
  held.title =
      "SGLang server (systemd unit sglang.service, started 41 s after boot, model /models/m, "
      "port 30000), TP=1 over GPU 0, 70.1 GiB, 0% utilization for the whole 1.0 s window";
  held.commands = {"sudo systemctl stop sglang.service", "sudo systemctl disable sglang.service"};
  r.findings = {lost, held};
  r.verdict = Severity::kCritical;
  r.exit_code = 2;
  PlanStep s1;
  s1.text = lost.title + ". " + lost.action;
  s1.commands = lost.commands;
  s1.finding_ids = {"gpu.lost"};
  PlanStep s2;
  s2.text = "Stop the idle " + held.title + ". " + held.action;
  s2.commands = held.commands;
  s2.finding_ids = {"memory.held_idle"};
  r.plan = {s1, s2};
  return r;
}

}  // namespace gt
