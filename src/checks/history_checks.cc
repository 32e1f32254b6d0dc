// A GPU that shows the same Xid or the same recovery action again after
// reboots (the record across boots, model/history.h): gpud's rule, two
// reboots that did not fix it mean hardware inspection / RMA. Seen in two
// boots: a warning (one reboot did not fix it); in three or more: critical.
#include <fmt/format.h>

#include "checks/catalogue.h"
#include "checks/checks.h"
#include "history/record.h"
#include "util/time_format.h"

namespace gt {
namespace {

/// The record's name for what recurred ("Xid 79"), from its catalogue row.
std::string what(const std::string& id) { return kept_as(id).value_or(id); }

std::string boot_text(const GpuHistory& h, const std::string& id) {
  const std::string shown = id.substr(0, 8);
  if (const HistoryBoot* b = find_boot(h, id))
    return shown + " (" + format_utc(b->first_seen_unix_s, "%Y-%m-%d %H:%M UTC") + ")";
  if (id == h.previous_boot_id) return shown + " (the previous boot)";
  return shown + " (this boot)";
}

/// What reads the GPU's identity for the RMA case: nvidia-smi where the GPU
/// answers; for one NVML cannot reach (lost, hung, missing), the PCI view
/// and the kernel log, which need no answer from the GPU, and the bug report.
std::vector<std::string> serial_commands(const GpuState* g, const std::string& uuid) {
  if (g && g->status == GpuStatus::kOk)
    return {"nvidia-smi -q -i " + uuid + " | grep -iE 'serial|board part'",
            "sudo nvidia-bug-report.sh"};
  std::vector<std::string> out;
  out.push_back(g && g->pci_bus_id ? "sudo lspci -vvv -s " + normalize_pci_bus_id(*g->pci_bus_id)
                                   : "lspci -nn -d 10de:");
  out.push_back("sudo dmesg -T | grep -iE 'NVRM|Xid' | tail -50");
  out.push_back("sudo nvidia-bug-report.sh");
  return out;
}

Finding offender(const NodeSnapshot& s, const Observed& o, const std::vector<std::string>& boots) {
  const GpuState* g = nullptr;
  for (const GpuState& x : s.gpus)
    if (x.uuid == o.uuid) g = &x;
  Finding f = g ? gpu_finding("gpu.repeat_offender", *g) : node_finding("gpu.repeat_offender");
  f.subject.kind = "gpu";
  f.subject.gpu_uuid = o.uuid;
  const bool rma = boots.size() >= 3;
  f.severity = rma ? Severity::kCritical : Severity::kWarning;
  f.title = fmt::format("{}: {} in {} boots: {}", g ? gpu_label(*g) : o.uuid, what(o.finding_id),
                        boots.size(),
                        rma ? "two reboots did not fix it -> hardware inspection / RMA"
                            : "a reboot did not fix it; once more and it is an RMA case");
  std::string list;
  for (const std::string& b : boots) list += (list.empty() ? "" : ", ") + boot_text(*s.history, b);
  f.evidence =
      fmt::format("{} on {} in boots {}; record {}", o.finding_id, o.uuid, list, s.history->file);
  f.action = rma ? "Take the GPU out of service and open a hardware inspection / RMA case (its "
                   "serial and a bug report): another reboot will not fix it. After the repair, "
                   "clear its record: gpu-triage history --clear --gpu " +
                       o.uuid + "."
                 : "Reboot once more only if the job needs the node now; if it comes back "
                   "again, the GPU goes to hardware inspection / RMA.";
  f.commands = serial_commands(g, o.uuid);
  return f;
}

}  // namespace

void check_history(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.history) return;
  const std::vector<Observed> now = observed_findings(s, out);
  for (const Observed& o : now) {
    std::vector<std::string> boots = boots_with(*s.history, o.uuid, o.finding_id, now);
    if (boots.size() >= 2) out.push_back(offender(s, o, boots));
  }
}

}  // namespace gt
