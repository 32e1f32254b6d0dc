// Findings become steps in a fixed order of concern (plan_rank(): the
// plan stage of each finding's catalogue row, checks/catalogue.h). Findings that
// share an id become one step naming all their subjects; an idle server is
// one step whose commands are those `gpu-triage free` would run for it.
#include "checks/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "checks/action_commands.h"
#include "checks/catalogue.h"
#include "checks/gpu_step.h"

namespace gt {
namespace {

/// An action as the sentence after the title: its first letter capital
/// (the cuda command's actions read "fix: make the libcuda ..." there).
std::string sentence(std::string action) {
  if (!action.empty() && action[0] >= 'a' && action[0] <= 'z')
    action[0] = static_cast<char>(action[0] - 'a' + 'A');
  return action;
}

void add_unique(std::vector<std::string>& into, const std::vector<std::string>& from) {
  for (const std::string& c : from)
    if (std::find(into.begin(), into.end(), c) == into.end()) into.push_back(c);
}

/// One cause, one step: a step whose commands an earlier step already gives
/// (a missing GPU and the count mismatch it causes: one reboot; one unit
/// running two idle servers: one stop) joins that step, naming `title`.
void append_or_join(std::vector<PlanStep>& plan, PlanStep step, const std::string& title) {
  auto same = std::find_if(plan.begin(), plan.end(), [&](const PlanStep& p) {
    return !step.commands.empty() && p.commands == step.commands;
  });
  if (same == plan.end()) {
    plan.push_back(std::move(step));
    return;
  }
  same->text += " Also: " + title + ".";
  add_unique(same->finding_ids, step.finding_ids);
}

/// One step per idle server: its finding already names the server, its
/// owner and GPUs, and carries the commands `gpu-triage free` gives.
void holder_steps(const std::vector<const Finding*>& held, std::vector<PlanStep>& plan) {
  for (const Finding* f : held) {
    PlanStep step;
    step.text = "Stop the idle " + f->title + ". " + f->action;
    step.commands = f->commands;
    step.finding_ids = {f->id};
    append_or_join(plan, std::move(step), f->title);
  }
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
  // Units in first-seen order: one per GPU with several findings about its
  // hardware (one step per GPU, gpu_step.h), else one per id.
  std::map<std::string, std::vector<const Finding*>> by_gpu;
  for (const Finding& f : r.findings)
    if (f.severity != Severity::kOk && joins_per_gpu(f))
      if (std::optional<std::string> key = gpu_key(r.snapshot, f)) by_gpu[*key].push_back(&f);
  std::erase_if(by_gpu, [](const auto& kv) {
    const auto& fs = kv.second;
    return fs.size() < 2 || std::none_of(fs.begin(), fs.end(), [](const Finding* f) {
             return f->severity >= Severity::kWarning;
           });
  });
  struct Unit {
    std::string key;  // "gpu BUS" or the finding id
    std::vector<const Finding*> fs;
    int rank = 0;
  };
  std::vector<Unit> units;
  std::map<std::string, size_t> unit_of;
  for (const Finding& f : r.findings) {
    std::optional<std::string> gkey = joins_per_gpu(f) ? gpu_key(r.snapshot, f) : std::nullopt;
    const bool per_gpu = gkey && by_gpu.count(*gkey) && f.severity != Severity::kOk;
    // A positive statement is never a step; notes are not either (a note
    // about a GPU with a step of its own is that step's evidence).
    if (!per_gpu && f.severity == Severity::kOk) continue;
    if (!per_gpu && f.severity == Severity::kInfo && !note_is_step(f)) continue;
    const std::string key = per_gpu ? "gpu " + *gkey : f.id;
    auto [at, fresh] = unit_of.emplace(key, units.size());
    if (fresh) units.push_back({key, {}, 10});
    Unit& u = units[at->second];
    u.fs.push_back(&f);
    if (f.severity >= Severity::kWarning || note_is_step(f))
      u.rank = std::min(u.rank, plan_rank(f));
  }
  std::stable_sort(units.begin(), units.end(),
                   [](const Unit& a, const Unit& b) { return a.rank < b.rank; });
  std::vector<PlanStep> plan;
  for (const Unit& u : units) {
    const std::vector<const Finding*>& fs = u.fs;
    if (u.key.starts_with("gpu ")) {
      PlanStep step = gpu_step(fs);
      step.gpu = u.key.substr(4);
      append_or_join(plan, std::move(step), fs.front()->title);
      continue;
    }
    if (plan_stage(u.key) == PlanStage::kServers) {
      holder_steps(fs, plan);
      continue;
    }
    PlanStep step;
    const Finding& first = *fs.front();
    step.text = fs.size() == 1
                    ? first.title
                    : first.title + " and " + std::to_string(fs.size() - 1) + " more like it";
    step.text += subjects(fs);
    if (!first.action.empty()) step.text += ". " + sentence(first.action);
    for (const Finding* f : fs) add_unique(step.commands, f->commands);
    step.finding_ids = {u.key};
    append_or_join(plan, std::move(step), first.title);
  }
  // Evidence before action: a step that resets or reboots records first.
  for (PlanStep& step : plan) bundle_before_drastic(step.commands);
  return plan;
}

}  // namespace gt
