// gt_report_round_trip: builds a Report exactly as `gpu-triage` does
// (parse_args, then collect_report: the one collect pipeline and judge) and
// checks the typed round trip, report_from_json(report_to_json(r)) == r,
// with Report's operator==. tests/e2e/report_round_trip_typed.sh runs it
// for every scenario (through scripts/with-mock) and every real capture.
//
//   gt_report_round_trip [--no-normalize] GPU-TRIAGE-OPTIONS...
//
// Only the exceptions json_report_read.h documents are normalized, each by
// a function named after it below; --no-normalize skips them (the e2e test
// shows a capture then fails on snapshot.nvml). On a difference it prints
// the first differing member ("snapshot.gpus[2].recovery") and exits 1;
// 0 when the report came back equal; 2 when it could not be built or read.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/run_triage.h"
#include "report/json_report.h"
#include "report/json_report_read.h"

namespace report_round_trip {

using gt::Report;

/// The first member that differs, as a path; empty while all are equal.
class Diff {
 public:
  explicit Diff(std::string prefix = "") : prefix_(std::move(prefix)) {}
  const std::string& first() const { return first_; }

  template <typename T>
  void field(const char* name, const T& a, const T& b) {
    if (first_.empty() && !(a == b)) first_ = prefix_ + name;
  }

  /// A vector compared element by element; `inner` names the element's
  /// differing member when it can.
  template <typename T, typename F>
  void each(const char* name, const std::vector<T>& a, const std::vector<T>& b, F inner) {
    if (!first_.empty() || a == b) return;
    const std::string at = prefix_ + name;
    if (a.size() != b.size()) {
      first_ = at + " (" + std::to_string(a.size()) + " elements, read back " +
               std::to_string(b.size()) + ")";
      return;
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] == b[i]) continue;
      Diff d(at + "[" + std::to_string(i) + "].");
      inner(d, a[i], b[i]);
      first_ = d.first().empty() ? at + "[" + std::to_string(i) + "]" : d.first();
      return;
    }
  }

 private:
  std::string prefix_;
  std::string first_;
};

void gpu_members(Diff& d, const gt::GpuState& a, const gt::GpuState& b) {
  d.field("index", a.index, b.index);
  d.field("status", a.status, b.status);
  d.field("status_detail", a.status_detail, b.status_detail);
  d.field("stuck_in_call", a.stuck_in_call, b.stuck_in_call);
  d.field("name", a.name, b.name);
  d.field("uuid", a.uuid, b.uuid);
  d.field("serial", a.serial, b.serial);
  d.field("vbios_version", a.vbios_version, b.vbios_version);
  d.field("board_part_number", a.board_part_number, b.board_part_number);
  d.field("pci_bus_id", a.pci_bus_id, b.pci_bus_id);
  d.field("pci_device_id", a.pci_device_id, b.pci_device_id);
  d.field("memory_total_bytes", a.memory_total_bytes, b.memory_total_bytes);
  d.field("memory_used_bytes", a.memory_used_bytes, b.memory_used_bytes);
  d.field("memory_free_bytes", a.memory_free_bytes, b.memory_free_bytes);
  d.field("memory_reserved_bytes", a.memory_reserved_bytes, b.memory_reserved_bytes);
  d.field("utilization_gpu_pct", a.utilization_gpu_pct, b.utilization_gpu_pct);
  d.field("utilization_memory_pct", a.utilization_memory_pct, b.utilization_memory_pct);
  d.field("temperature_c", a.temperature_c, b.temperature_c);
  d.field("power_draw_w", a.power_draw_w, b.power_draw_w);
  d.field("power_limit_w", a.power_limit_w, b.power_limit_w);
  d.field("pstate", a.pstate, b.pstate);
  d.field("fan_speed_pct", a.fan_speed_pct, b.fan_speed_pct);
  d.field("persistence_mode", a.persistence_mode, b.persistence_mode);
  d.field("compute_mode", a.compute_mode, b.compute_mode);
  d.field("mig_mode_current", a.mig_mode_current, b.mig_mode_current);
  d.field("mig_mode_pending", a.mig_mode_pending, b.mig_mode_pending);
  d.field("ecc_mode_current", a.ecc_mode_current, b.ecc_mode_current);
  d.field("ecc_mode_pending", a.ecc_mode_pending, b.ecc_mode_pending);
  d.field("ecc", a.ecc, b.ecc);
  d.field("retired_pages", a.retired_pages, b.retired_pages);
  d.field("remapped_rows", a.remapped_rows, b.remapped_rows);
  d.field("row_remapper_histogram", a.row_remapper_histogram, b.row_remapper_histogram);
  d.field("recovery", a.recovery, b.recovery);
  d.field("fabric", a.fabric, b.fabric);
  d.field("nvlinks", a.nvlinks, b.nvlinks);
  d.field("peers", a.peers, b.peers);
  d.field("thermal", a.thermal, b.thermal);
  d.field("limit_time", a.limit_time, b.limit_time);
  d.field("clock_event_reasons_samples", a.clock_event_reasons_samples,
          b.clock_event_reasons_samples);
  d.field("mig_devices", a.mig_devices, b.mig_devices);
  d.field("pcie", a.pcie, b.pcie);
  d.field("clock_event_reasons", a.clock_event_reasons, b.clock_event_reasons);
  d.field("clock_event_reasons_supported", a.clock_event_reasons_supported,
          b.clock_event_reasons_supported);
  d.field("processes", a.processes, b.processes);
  d.field("processes_error", a.processes_error, b.processes_error);
  d.field("process_record_bytes", a.process_record_bytes, b.process_record_bytes);
  d.field("errors", a.errors, b.errors);
  d.field("identity_derived_from", a.identity_derived_from, b.identity_derived_from);
}

void finding_members(Diff& d, const gt::Finding& a, const gt::Finding& b) {
  d.field("id", a.id, b.id);
  d.field("severity", a.severity, b.severity);
  d.field("subject", a.subject, b.subject);
  d.field("title", a.title, b.title);
  d.field("evidence", a.evidence, b.evidence);
  d.field("action", a.action, b.action);
  d.field("commands", a.commands, b.commands);
  d.field("joined_ids", a.joined_ids, b.joined_ids);
  d.field("xid_codes", a.xid_codes, b.xid_codes);
  d.field("explained_by", a.explained_by, b.explained_by);
}

void optional_members(Diff& d, const gt::NodeSnapshot& a, const gt::NodeSnapshot& b) {
  d.field("servers", a.servers, b.servers);
  d.field("pci_devices", a.pci_devices, b.pci_devices);
  d.field("kernel_log", a.kernel_log, b.kernel_log);
  d.field("disks", a.disks, b.disks);
  d.field("machine_kind", a.machine_kind, b.machine_kind);
  d.field("machine_evidence", a.machine_evidence, b.machine_evidence);
  d.field("data", a.data, b.data);
  d.field("mounts", a.mounts, b.mounts);
  d.field("history", a.history, b.history);
  d.field("nvidia_modules", a.nvidia_modules, b.nvidia_modules);
  d.field("nvidia_services", a.nvidia_services, b.nvidia_services);
  d.field("nvidia_services_read", a.nvidia_services_read, b.nvidia_services_read);
  d.field("stuck_nvidia_tasks", a.stuck_nvidia_tasks, b.stuck_nvidia_tasks);
  d.field("incident", a.incident, b.incident);
  d.field("warnings", a.warnings, b.warnings);
}

void snapshot_members(Diff& d, const gt::NodeSnapshot& a, const gt::NodeSnapshot& b) {
  d.field("schema", a.schema, b.schema);
  d.field("schema_version", a.schema_version, b.schema_version);
  d.field("source", a.source, b.source);
  d.field("hostname", a.hostname, b.hostname);
  d.field("os_id", a.os_id, b.os_id);
  d.field("os_id_like", a.os_id_like, b.os_id_like);
  d.field("collected_at_unix_ms", a.collected_at_unix_ms, b.collected_at_unix_ms);
  d.field("captured_at", a.captured_at, b.captured_at);
  d.field("captured_at_unix_s", a.captured_at_unix_s, b.captured_at_unix_s);
  d.field("capture_file", a.capture_file, b.capture_file);
  d.field("sample_window_s", a.sample_window_s, b.sample_window_s);
  d.field("nvml", a.nvml, b.nvml);
  d.field("driver_version", a.driver_version, b.driver_version);
  d.field("nvml_version", a.nvml_version, b.nvml_version);
  d.field("cuda_driver_version", a.cuda_driver_version, b.cuda_driver_version);
  d.field("kernel_release", a.kernel_release, b.kernel_release);
  d.field("kernel_module_version", a.kernel_module_version, b.kernel_module_version);
  d.field("gpu_count", a.gpu_count, b.gpu_count);
  d.each("gpus", a.gpus, b.gpus, gpu_members);
  optional_members(d, a, b);
}

/// The first member of `back` that differs from `want`; empty when equal.
std::string first_difference(const Report& want, const Report& back) {
  Diff d;
  d.each("findings", want.findings, back.findings, finding_members);
  d.field("verdict", want.verdict, back.verdict);
  d.field("could_not_check", want.could_not_check, back.could_not_check);
  d.field("plan", want.plan, back.plan);
  d.field("exit_code", want.exit_code, back.exit_code);
  Diff s("snapshot.");
  snapshot_members(s, want.snapshot, back.snapshot);
  if (d.first().empty()) return s.first();
  return d.first();
}

// The exceptions json_report_read.h documents, one function each.

/// "a capture's nvml.loaded / nvml.initialized (null there: this machine's
/// NVML was not asked; read back as false)": every origin but live NVML.
void normalize_capture_nvml_flags(Report& r) {
  if (r.snapshot.source == gt::Origin::kNvml) return;
  r.snapshot.nvml.loaded = false;
  r.snapshot.nvml.initialized = false;
}

/// "a kernel-log event's decoded fields under one name twice (an object
/// keeps the last)": the name stays where it first came, with the last value.
void normalize_decoded_duplicates(Report& r) {
  if (!r.snapshot.kernel_log) return;
  for (gt::KernelLogEvent& e : r.snapshot.kernel_log->events) {
    std::vector<std::pair<std::string, std::string>> kept;
    std::map<std::string, size_t> at;
    for (auto& [name, value] : e.decoded) {
      auto [it, fresh] = at.emplace(name, kept.size());
      if (fresh)
        kept.emplace_back(name, value);
      else
        kept[it->second].second = value;
    }
    e.decoded = std::move(kept);
  }
}

int check(const Report& built, bool normalize) {
  gt::Result<Report> back = gt::report_from_json(gt::report_to_json(built));
  if (!back) {
    std::cerr << "report_round_trip: not read back: " << back.error().message << "\n";
    return 2;
  }
  Report want = built;
  if (normalize) {
    normalize_capture_nvml_flags(want);
    normalize_decoded_duplicates(want);
  }
  if (want == *back) return 0;
  const std::string where = first_difference(want, *back);
  std::cerr << "report_round_trip: report_from_json(report_to_json(r)) != r: first difference "
            << (where.empty() ? "(in no member compared here)" : "in " + where) << "\n";
  return 1;
}

}  // namespace report_round_trip

int main(int argc, char** argv) {
  bool normalize = true;
  std::vector<char*> args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-normalize") == 0)
      normalize = false;
    else
      args.push_back(argv[i]);
  }
  gt::ParsedArgs parsed =
      gt::parse_args(static_cast<int>(args.size()), args.data(), "gt_report_round_trip");
  if (!parsed.options) return 2;
  bool abandoned = false;
  gt::Report report = gt::collect_report(*parsed.options, gt::default_command().stages, abandoned);
  int rc = report_round_trip::check(report, normalize);
  std::fflush(nullptr);
  if (abandoned) _exit(rc);  // a thread is stuck inside NVML (main.cc)
  return rc;
}
