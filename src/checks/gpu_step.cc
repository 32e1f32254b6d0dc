#include "checks/gpu_step.h"

#include <algorithm>
#include <tuple>

#include "checks/action_commands.h"
#include "model/xid_catalog.h"

namespace gt {
namespace {

/// A command that changes the GPU or the node (not a read).
bool drastic(const std::string& c) { return is_reboot_command(c) || is_reset_command(c); }

Remedy xid_remedy(int code) {
  const XidEntry* e = find_xid(code);
  if (!e) return Remedy::kDiagnose;
  const std::string bucket = e->immediate_action;
  if (bucket == "RESTART_BM") return Remedy::kReboot;
  if (bucket == "RESET_GPU" || bucket.starts_with("WORKFLOW_")) return Remedy::kReset;
  if (bucket == "RESTART_APP" || bucket.starts_with("IGNORE")) return Remedy::kWatch;
  return Remedy::kDiagnose;
}

/// "GPU 2 (...): Xid 48 ..." -> "Xid 48 ...": the step names the GPU once.
std::string without_gpu_label(const std::string& title) {
  const size_t colon = title.find(": ");
  if (!title.starts_with("GPU") || colon == std::string::npos) return title;
  return title.substr(colon + 2);
}

void add_unique(std::vector<std::string>& into, const std::string& c) {
  if (std::find(into.begin(), into.end(), c) == into.end()) into.push_back(c);
}

}  // namespace

Remedy remedy_of(const Finding& f) {
  switch (remedy_rule(f.id)) {
    case RemedyRule::kWatch:
      return Remedy::kWatch;
    case RemedyRule::kDiagnose:
      return Remedy::kDiagnose;
    case RemedyRule::kReset:
      return Remedy::kReset;
    case RemedyRule::kReboot:
      return Remedy::kReboot;
    case RemedyRule::kRma:
      return Remedy::kRma;
    case RemedyRule::kByRecord:
      return f.severity == Severity::kCritical ? Remedy::kRma : Remedy::kReboot;
    case RemedyRule::kByXid:
      // A reboot has happened since a previous-boot event: it is evidence.
      if (f.title.find(" in the previous boot") != std::string::npos) return Remedy::kWatch;
      if (std::optional<int> code = finding_number(f.id)) return xid_remedy(*code);
      break;
    case RemedyRule::kByCommands:
      break;
  }
  if (std::any_of(f.commands.begin(), f.commands.end(), is_reboot_command)) return Remedy::kReboot;
  if (std::any_of(f.commands.begin(), f.commands.end(), is_reset_command)) return Remedy::kReset;
  return Remedy::kDiagnose;
}

bool joins_per_gpu(const Finding& f) { return gpu_join(f.id) != GpuJoin::kApart; }

std::optional<std::string> gpu_key(const NodeSnapshot& s, const Finding& f) {
  if (f.subject.pci_bus_id) return normalize_pci_bus_id(*f.subject.pci_bus_id);
  const GpuState* g = f.subject.gpu_index ? gpu_by_index(s, *f.subject.gpu_index) : nullptr;
  if (!g && f.subject.gpu_uuid)
    for (const GpuState& x : s.gpus)
      if (x.uuid == f.subject.gpu_uuid) g = &x;
  if (g && g->pci_bus_id) return normalize_pci_bus_id(*g->pci_bus_id);
  if (f.subject.gpu_index) return "index " + std::to_string(*f.subject.gpu_index);
  if (f.subject.gpu_uuid) return *f.subject.gpu_uuid;
  return std::nullopt;
}

PlanStep gpu_step(const std::vector<const Finding*>& fs) {
  // The lead: the strongest remedy, then the worst severity, then the join
  // rank (the GPU's own event before the counters it explains), then the first.
  const Finding* lead = fs.front();
  auto weight = [](const Finding* f) {
    return std::tuple(remedy_of(*f), f->severity, -static_cast<int>(gpu_join(f->id)));
  };
  for (const Finding* f : fs)
    if (weight(f) > weight(lead)) lead = f;
  PlanStep step;
  step.text = lead->title + (lead->action.empty() ? "" : ". " + lead->action);
  std::string also;
  for (const Finding* f : fs)
    if (f != lead) also += (also.empty() ? "" : "; ") + without_gpu_label(f->title);
  if (!also.empty()) {
    if (!step.text.ends_with(".")) step.text += ".";
    step.text += " Also on this GPU: " + also + ".";
  }
  step.commands = lead->commands;
  step.finding_ids = {lead->id};
  const Remedy strongest = remedy_of(*lead);
  for (const Finding* f : fs) {
    if (f == lead) continue;
    add_unique(step.finding_ids, f->id);
    // A weaker remedy's reset or reboot would contradict the lead's; the
    // same remedy's is said once (one reset, one reboot).
    for (const std::string& c : f->commands) {
      const bool said = std::any_of(step.commands.begin(), step.commands.end(), [&](auto& have) {
        return (is_reset_command(c) && is_reset_command(have)) ||
               (is_reboot_command(c) && is_reboot_command(have));
      });
      if (!drastic(c) || (remedy_of(*f) == strongest && !said)) add_unique(step.commands, c);
    }
  }
  return step;
}

}  // namespace gt
