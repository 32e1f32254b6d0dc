// Findings about the same GPU dying (lost, unresponsive, missing from NVML,
// Xid 79, "fallen off the bus" in the kernel log) are one event seen from
// several sources. They are joined by bus id into one finding, so the plan
// says it once and reboots once: the most direct finding leads (lost, then
// unresponsive, then missing from NVML, then the kernel log's), takes the
// worst severity, and carries the others' words in its title and evidence
// and their ids in joined_ids.
#include <algorithm>
#include <map>

#include "checks/checks.h"

namespace gt {
namespace {

/// Lower leads; -1: not about a GPU dying.
int lead_rank(const std::string& id) {
  if (id == "gpu.lost") return 0;
  if (id == "gpu.unresponsive") return 1;
  if (id == "gpu.missing_from_nvml") return 2;
  if (id == "gpu.fallen_off_bus_logged") return 3;
  if (id == "gpu.xid.79") return 4;
  return -1;
}

bool from_kernel_log(const std::string& id) {
  return id.starts_with("gpu.xid.") || id == "gpu.fallen_off_bus_logged";
}

/// What a joined finding adds to the lead's title: a kernel-log finding
/// without its "GPU at ...: " prefix (the lead names the GPU).
std::string what(const Finding& f) {
  size_t colon = f.title.find(": ");
  if (from_kernel_log(f.id) && colon != std::string::npos)
    return "kernel log: " + f.title.substr(colon + 2);
  return f.title;
}

void fold(Finding& lead, const Finding& f) {
  lead.severity = std::max(lead.severity, f.severity);
  if (std::find(lead.joined_ids.begin(), lead.joined_ids.end(), f.id) == lead.joined_ids.end())
    lead.joined_ids.push_back(f.id);
  lead.title += "; " + what(f);
  lead.evidence += (lead.evidence.empty() ? "" : "; ") + f.id + ": " + f.evidence;
  for (const std::string& c : f.commands)
    if (std::find(lead.commands.begin(), lead.commands.end(), c) == lead.commands.end())
      lead.commands.push_back(c);
  if (!lead.subject.gpu_index) lead.subject.gpu_index = f.subject.gpu_index;
  if (!lead.subject.gpu_uuid) lead.subject.gpu_uuid = f.subject.gpu_uuid;
}

}  // namespace

void join_gpu_events(std::vector<Finding>& findings) {
  std::map<std::string, std::vector<size_t>> by_bus;
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    if (lead_rank(f.id) >= 0 && f.subject.pci_bus_id)
      by_bus[normalize_pci_bus_id(*f.subject.pci_bus_id)].push_back(i);
  }
  std::vector<bool> drop(findings.size(), false);
  for (auto& [bus, idx] : by_bus) {
    if (idx.size() < 2) continue;
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      return lead_rank(findings[a].id) < lead_rank(findings[b].id);
    });
    for (size_t k = 1; k < idx.size(); ++k) {
      fold(findings[idx[0]], findings[idx[k]]);
      drop[idx[k]] = true;
    }
  }
  std::vector<Finding> kept;
  for (size_t i = 0; i < findings.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(findings[i]));
  findings = std::move(kept);
}

}  // namespace gt
