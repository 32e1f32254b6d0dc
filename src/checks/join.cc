// Findings about the same GPU dying (lost, unresponsive, missing from NVML,
// Xid 79, "fallen off the bus" in the kernel log) are one event seen from
// several sources. They are joined by bus id into one finding, so the plan
// says it once and reboots once: the most direct finding leads (lost, then
// unresponsive, then missing from NVML, then the kernel log's), takes the
// worst severity, and carries the others' words in its title and evidence
// and their ids in joined_ids.
//
// A wedged driver (driver.wedged: tasks stuck in nvidia code) is one more
// such event, node-wide: the NVML calls that timed out in this run
// (gpu.unresponsive, nvml.unresponsive) are folded into it the same way,
// after the joins by bus id (join_driver_wedged).
#include <algorithm>
#include <map>

#include "checks/action_commands.h"
#include "checks/catalogue.h"
#include "checks/checks.h"

namespace gt {
namespace {

/// Lower leads; -1: not about a GPU dying (its row's event).
int lead_rank(const std::string& id) {
  const FindingEvent e = finding_event(id);
  if (e < FindingEvent::kDyingLead || e > FindingEvent::kDyingXid) return -1;
  return static_cast<int>(e) - static_cast<int>(FindingEvent::kDyingLead);
}

bool from_kernel_log(const std::string& id) {
  const CheckSpec* c = find_check(id);
  return c && std::string_view(c->family) == "kernel_log";
}

/// What a joined finding adds to the lead's title: a kernel-log finding
/// without its "GPU at ...: " prefix (the lead names the GPU).
std::string what(const Finding& f) {
  size_t colon = f.title.find(": ");
  if (from_kernel_log(f.id) && colon != std::string::npos)
    return "kernel log: " + f.title.substr(colon + 2);
  return f.title;
}

/// The Xid codes of `f` that `lead` does not report yet.
void add_codes(Finding& lead, const Finding& f) {
  for (int code : f.xid_codes)
    if (std::find(lead.xid_codes.begin(), lead.xid_codes.end(), code) == lead.xid_codes.end())
      lead.xid_codes.push_back(code);
}

void fold(Finding& lead, const Finding& f) {
  lead.severity = std::max(lead.severity, f.severity);
  add_codes(lead, f);
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

namespace {

/// The driver's recovery action leads; its Xid 154 ("recovery action
/// changed") messages of this and the previous boot join it.
int recovery_rank(const std::string& id) {
  const FindingEvent e = finding_event(id);
  if (e == FindingEvent::kRecoveryLead) return 0;
  if (e == FindingEvent::kRecoveryXid) return 1;
  return -1;
}

/// Joins the findings `rank` orders (>= 0) by bus id: the lowest leads.
/// With `need_lead`, only where a rank-0 finding is there to lead.
void join_by_bus(std::vector<Finding>& findings, int (*rank)(const std::string&), bool need_lead) {
  std::map<std::string, std::vector<size_t>> by_bus;
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    if (rank(f.id) >= 0 && f.subject.pci_bus_id)
      by_bus[normalize_pci_bus_id(*f.subject.pci_bus_id)].push_back(i);
  }
  std::vector<bool> drop(findings.size(), false);
  for (auto& [bus, idx] : by_bus) {
    if (idx.size() < 2) continue;
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      return rank(findings[a].id) < rank(findings[b].id);
    });
    if (need_lead && rank(findings[idx[0]].id) != 0) continue;
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

}  // namespace

void join_gpu_events(std::vector<Finding>& findings) {
  join_by_bus(findings, lead_rank, /*need_lead=*/false);
}

void join_recovery_events(std::vector<Finding>& findings) {
  join_by_bus(findings, recovery_rank, /*need_lead=*/true);
}

namespace {

/// Folds an NVML timeout into driver.wedged: its words and ids (with those
/// already joined into it by bus id) are added, its commands go before the
/// lead's reboot, which stays last and single.
void fold_into_wedged(Finding& lead, const Finding& f) {
  lead.severity = std::max(lead.severity, f.severity);
  add_codes(lead, f);
  std::vector<std::string> ids = {f.id};
  ids.insert(ids.end(), f.joined_ids.begin(), f.joined_ids.end());
  for (const std::string& id : ids)
    if (std::find(lead.joined_ids.begin(), lead.joined_ids.end(), id) == lead.joined_ids.end())
      lead.joined_ids.push_back(id);
  lead.title += "; " + f.title;
  lead.evidence += (lead.evidence.empty() ? "" : "; ") + f.id + ": " + f.evidence;
  std::vector<std::string> reboot, commands;
  for (const std::string& c : lead.commands)
    (is_reboot_command(c) ? reboot : commands).push_back(c);
  for (const std::string& c : f.commands)
    if (!is_reboot_command(c) && std::find(commands.begin(), commands.end(), c) == commands.end())
      commands.push_back(c);
  commands.insert(commands.end(), reboot.begin(), reboot.end());
  lead.commands = std::move(commands);
}

}  // namespace

void join_driver_wedged(std::vector<Finding>& findings) {
  auto lead = std::find_if(findings.begin(), findings.end(), [](const Finding& f) {
    return finding_event(f.id) == FindingEvent::kWedgedLead;
  });
  if (lead == findings.end()) return;
  Finding wedged = std::move(*lead);
  findings.erase(lead);
  std::vector<Finding> kept;
  for (Finding& f : findings) {
    if (const FindingEvent e = finding_event(f.id);
        e == FindingEvent::kDyingTimeout || e == FindingEvent::kNvmlTimeout)
      fold_into_wedged(wedged, f);
    else
      kept.push_back(std::move(f));
  }
  kept.push_back(std::move(wedged));
  findings = std::move(kept);
}

}  // namespace gt
