// Findings become steps in a fixed order of concern (rank()). Findings that
// share an id become one step naming all their subjects; memory holders are
// grouped by the owner that has to be stopped, because one systemd unit or
// container usually holds every GPU of the node.
#include "checks/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "checks/holders.h"

namespace gt {
namespace {

int rank(const Finding& f) {
  const std::string& id = f.id;
  if (id.starts_with("nvml.")) return 0;
  if (f.severity == Severity::kCritical && id.starts_with("gpu.")) return 1;
  if (f.severity == Severity::kCritical) return 2;
  if (id == "gpu.all_present") return 3;
  if (id.starts_with("driver.")) return 4;
  if (id.starts_with("memory.")) return 5;
  if (id.starts_with("ecc.") || id.starts_with("gpu.")) return 6;
  if (id.starts_with("disk.")) return 7;
  if (id.starts_with("pcie.") || id.starts_with("clocks.") || id.starts_with("persistence."))
    return 8;
  return 9;
}

void add_unique(std::vector<std::string>& into, const std::vector<std::string>& from) {
  for (const std::string& c : from)
    if (std::find(into.begin(), into.end(), c) == into.end()) into.push_back(c);
}

const GpuProcess* process_of(const NodeSnapshot& s, const Finding& f) {
  for (const GpuState& g : s.gpus) {
    if (!f.subject.gpu_index || g.index != *f.subject.gpu_index || !g.processes) continue;
    for (const GpuProcess& p : *g.processes)
      if (f.subject.pid && p.pid == *f.subject.pid) return &p;
  }
  return nullptr;
}

const GpuState* gpu_of(const NodeSnapshot& s, const Finding& f) {
  for (const GpuState& g : s.gpus)
    if (f.subject.gpu_index && g.index == *f.subject.gpu_index) return &g;
  return nullptr;
}

/// "SGLang server", "torchrun job", "process python3".
std::string holder_noun(const std::string& label) {
  static const char* const kServers[] = {"SGLang", "vLLM",         "TGI",
                                         "Triton", "TensorRT-LLM", "Ollama"};
  for (const char* s : kServers)
    if (label == s) return label + " server";
  if (label == "torchrun" || label == "DeepSpeed") return label + " job";
  if (label.ends_with("server")) return label;
  return "process " + label;
}

/// One step per owner holding idle GPUs.
void holder_steps(const Report& r, const std::vector<const Finding*>& held,
                  std::vector<PlanStep>& plan) {
  struct Group {
    std::string holder;
    StopCommands cmds;
    std::vector<uint32_t> gpus;
    std::vector<uint64_t> bytes;
  };
  std::map<std::string, Group> groups;
  std::vector<std::string> order;
  for (const Finding* f : held) {
    const GpuProcess* p = process_of(r.snapshot, *f);
    const GpuState* g = gpu_of(r.snapshot, *f);
    if (!p || !g) continue;
    StopCommands c = stop_commands(*p);
    std::string key = c.owner_text + "|" + holder_label(*p);
    if (!groups.count(key)) order.push_back(key);
    Group& grp = groups[key];
    grp.holder = holder_label(*p);
    grp.cmds = c;
    grp.gpus.push_back(g->index);
    grp.bytes.push_back(g->memory_used_bytes.value_or(0));
  }
  for (const std::string& key : order) {
    const Group& grp = groups[key];
    auto [lo, hi] = std::minmax_element(grp.bytes.begin(), grp.bytes.end());
    const bool one = grp.gpus.size() == 1;
    std::string amount = one ? fmt::format("{:.1f} GB on GPU", *hi / 1e9)
                         : (*hi - *lo) < 100000000ull
                             ? fmt::format("{:.1f} GB on each of GPUs", *hi / 1e9)
                             : fmt::format("{:.1f}-{:.1f} GB on GPUs", *lo / 1e9, *hi / 1e9);
    std::string owner =
        r.snapshot.source == "nvml" ? grp.cmds.owner_text : "owner unknown: read from a capture";
    PlanStep step;
    step.text = fmt::format(
        "Stop the idle {} ({}): it holds {} {} at 0% utilization{}.", holder_noun(grp.holder),
        owner, amount, format_index_list(grp.gpus),
        grp.cmds.disable.empty() ? "" : ", and disable it so it does not start again at boot");
    step.commands = grp.cmds.stop;
    add_unique(step.commands, grp.cmds.disable);
    step.finding_ids = {"memory.held_idle"};
    plan.push_back(step);
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

std::string format_index_list(std::vector<uint32_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") +
           (j > i ? fmt::format("{}-{}", v[i], v[j]) : std::to_string(v[i]));
    i = j + 1;
  }
  return out;
}

std::vector<PlanStep> make_plan(const Report& r) {
  // Group by id, keeping the first-seen order within each rank.
  std::vector<std::string> ids;
  std::map<std::string, std::vector<const Finding*>> by_id;
  for (const Finding& f : r.findings) {
    if (f.severity == Severity::kInfo && f.id != "kernel_log.unreadable") continue;
    if (!by_id.count(f.id)) ids.push_back(f.id);
    by_id[f.id].push_back(&f);
  }
  std::stable_sort(ids.begin(), ids.end(), [&](const std::string& a, const std::string& b) {
    return rank(*by_id[a].front()) < rank(*by_id[b].front());
  });
  std::vector<PlanStep> plan;
  bool gpus_unusable = false;
  for (const std::string& id : ids) {
    const std::vector<const Finding*>& fs = by_id[id];
    if (rank(*fs.front()) <= 1) gpus_unusable = true;
    if (id == "memory.held_idle") {
      holder_steps(r, fs, plan);
      continue;
    }
    PlanStep step;
    const Finding& first = *fs.front();
    step.text = fs.size() == 1
                    ? first.title
                    : first.title + " and " + std::to_string(fs.size() - 1) + " more like it";
    step.text += subjects(fs);
    if (!first.action.empty()) step.text += ". " + first.action;
    if (first.id == "gpu.all_present") step.text += ": no hardware action needed.";
    for (const Finding* f : fs) add_unique(step.commands, f->commands);
    step.finding_ids = {id};
    plan.push_back(step);
  }
  if (r.snapshot.nvml.initialized && !gpus_unusable && !r.snapshot.gpus.empty()) {
    PlanStep last;
    last.text =
        "Before resuming the interrupted job, check that its output survived: files "
        "written just before a crash are often empty, truncated or zero-filled, and "
        "pipelines that resume by file existence will skip them.";
    plan.push_back(last);
  }
  return plan;
}

}  // namespace gt
