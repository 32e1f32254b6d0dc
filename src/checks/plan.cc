// Findings become steps in a fixed order of concern (rank()). Findings that
// share an id become one step naming all their subjects; an idle server is
// one step whose commands are those `gpu-triage free` would run for it.
#include "checks/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace gt {
namespace {

/// Steps come in the order of what blocks getting the node back to work:
/// a broken driver, then broken or missing hardware, then what holds the
/// GPUs, then the job's disk space, then hygiene (version split, links,
/// clocks, persistence, the kernel log's own readability).
int rank(const Finding& f) {
  const std::string& id = f.id;
  if (id.starts_with("nvml.")) return 0;
  if (f.severity == Severity::kCritical && id.starts_with("gpu.")) return 1;
  if (f.severity == Severity::kCritical) return 2;
  if (id.starts_with("ecc.") || id.starts_with("gpu.") || id == "pcie.link_downgraded") return 3;
  if (id.starts_with("memory.")) return 4;
  if (id.starts_with("disk.")) return 5;
  if (id.starts_with("driver.")) return 6;
  if (id.starts_with("pcie.") || id.starts_with("clocks.") || id.starts_with("persistence."))
    return 7;
  return 8;
}

void add_unique(std::vector<std::string>& into, const std::vector<std::string>& from) {
  for (const std::string& c : from)
    if (std::find(into.begin(), into.end(), c) == into.end()) into.push_back(c);
}

/// One step per idle server (its finding already names the server, its
/// owner and GPUs); servers stopped by the same commands (one unit running
/// two servers) share a step.
void holder_steps(const std::vector<const Finding*>& held, std::vector<PlanStep>& plan) {
  std::vector<PlanStep> steps;
  for (const Finding* f : held) {
    auto same = std::find_if(steps.begin(), steps.end(),
                             [&](const PlanStep& p) { return p.commands == f->commands; });
    if (same != steps.end()) {
      same->text += " Also: " + f->title + ".";
      continue;
    }
    PlanStep step;
    step.text = "Stop the idle " + f->title + ". " + f->action;
    step.commands = f->commands;
    step.finding_ids = {"memory.held_idle"};
    steps.push_back(step);
  }
  plan.insert(plan.end(), steps.begin(), steps.end());
}

std::string subjects(const std::vector<const Finding*>& fs) {
  std::vector<uint32_t> gpus;
  for (const Finding* f : fs)
    if (f->subject.gpu_index) gpus.push_back(*f->subject.gpu_index);
  if (gpus.empty() || fs.size() == 1) return "";
  return " (GPUs " + format_index_list(gpus) + ")";
}

}  // namespace

std::vector<PlanStep> make_plan(const Report& r) {
  // Group by id, keeping the first-seen order within each rank.
  std::vector<std::string> ids;
  std::map<std::string, std::vector<const Finding*>> by_id;
  for (const Finding& f : r.findings) {
    // A positive statement is never a step; notes are not either.
    if (f.severity == Severity::kOk) continue;
    if (f.severity == Severity::kInfo && f.id != "kernel_log.unreadable") continue;
    if (!by_id.count(f.id)) ids.push_back(f.id);
    by_id[f.id].push_back(&f);
  }
  std::stable_sort(ids.begin(), ids.end(), [&](const std::string& a, const std::string& b) {
    return rank(*by_id[a].front()) < rank(*by_id[b].front());
  });
  std::vector<PlanStep> plan;
  for (const std::string& id : ids) {
    const std::vector<const Finding*>& fs = by_id[id];
    if (id == "memory.held_idle") {
      holder_steps(fs, plan);
      continue;
    }
    PlanStep step;
    const Finding& first = *fs.front();
    step.text = fs.size() == 1
                    ? first.title
                    : first.title + " and " + std::to_string(fs.size() - 1) + " more like it";
    step.text += subjects(fs);
    if (!first.action.empty()) step.text += ". " + first.action;
    for (const Finding* f : fs) add_unique(step.commands, f->commands);
    step.finding_ids = {id};
    // One cause, one step: a finding whose commands an earlier step already
    // gives (a missing GPU and the count mismatch it causes: one reboot)
    // joins that step.
    auto same = std::find_if(plan.begin(), plan.end(), [&](const PlanStep& p) {
      return !step.commands.empty() && p.commands == step.commands;
    });
    if (same != plan.end()) {
      same->text += " Also: " + first.title + ".";
      same->finding_ids.push_back(id);
      continue;
    }
    plan.push_back(step);
  }
  return plan;
}

}  // namespace gt
