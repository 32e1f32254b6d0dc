// gpu-triage free's output; see free_render.h. The wording is the
// operator's contract with the plan: the commands are the report's, to the
// letter (tests/e2e/plan_equals_free.sh).
#include "render/free_render.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "holders/stop.h"
#include "util/index_list.h"
#include "util/json_text.h"
#include "util/plural.h"
#include "util/terminal_text.h"
#include "util/time_format.h"

namespace gt {
namespace {

std::string free_when(std::optional<int64_t> unix_s) {
  return unix_s ? format_utc(*unix_s, "%Y-%m-%d %H:%M:%S UTC") : "unknown";
}

/// The escalation act_free carries out after the grace period, as the
/// command an operator would run by hand: SIGKILL to the plan's kill list.
std::string kill_command(const TreeTarget& t, const FreeOptions& o) {
  std::string pids;
  for (const ProcId& id : t.kill) pids += " " + std::to_string(id.pid);
  return fmt::format(
      "kill -KILL{}   # after {} s, those still running{}", pids, o.grace.count() / 1000.0,
      t.whole ? " (--yes also kills what was started below them since the plan)" : "");
}

void write_free_plan(const FreePlan& plan, const FreeOptions& o, std::ostream& out) {
  out << (o.yes ? "Freeing" : "Plan (nothing done; run with --yes to act)") << ": "
      << (plan.gpus.empty()       ? std::string("no GPU")
          : plan.gpus.size() == 1 ? "GPU " + format_index_list(plan.gpus)
                                  : "GPUs " + format_index_list(plan.gpus))
      << "\n";
  for (const std::string& e : plan.errors) out << "  error: " << for_terminal(e) << "\n";
  int n = 0;
  for (const TreeTarget& t : plan.targets) {
    std::vector<uint32_t> pids;
    for (const ProcId& h : t.holders) pids.push_back(h.pid);
    out << fmt::format("\n{}. {}, root PID {}: {}\n", ++n, for_terminal(t.noun), t.root.pid,
                       for_terminal(t.root_cmdline));
    out << fmt::format("   holds {} on GPU{} {} through {} ({} {}); {}{}\n", format_memory(t.bytes),
                       t.gpus.size() == 1 ? "" : "s", format_index_list(t.gpus),
                       count_of(t.holders.size(), "process", "processes"),
                       plural(pids.size(), "PID", "PIDs"), format_index_list(pids),
                       !t.idle   ? "not known to be idle (taken by --include-busy)"
                       : *t.idle ? "idle (0% utilization over the window)"
                                 : "BUSY (taken by --include-busy)",
                       t.widened ? "; taken whole (--whole-server)" : "");
    out << fmt::format("   user {}, running since {}, owner: {}{}\n",
                       for_terminal(t.user.value_or("?")), free_when(t.since_unix_s),
                       for_terminal(t.stop.owner_text),
                       t.restart_policy ? " (" + for_terminal(*t.restart_policy) + ")" : "");
    for (const ServerProcess& w : t.wrappers)
      out << fmt::format("   wrapper PID {}: {} (would start the launcher again: stopped first)\n",
                         w.pid, for_terminal(w.cmdline, 120));
    if (t.launcher_exited) out << "   its launcher exited: each worker is signalled\n";
    if (t.supervisor)
      out << fmt::format("   owner process PID {}: {} ({})\n", t.supervisor->pid,
                         for_terminal(t.supervisor->cmdline, 120), for_terminal(t.supervisor_role));
    std::vector<uint32_t> sig, kill;
    for (const ProcId& id : t.signal) sig.push_back(id.pid);
    for (const ProcId& id : t.kill) kill.push_back(id.pid);
    std::string order;
    for (uint32_t p : sig) order += (order.empty() ? "" : ", then ") + std::to_string(p);
    const std::string killing =
        kill.empty() ? std::string()
                     : fmt::format(", SIGKILL after {} s to any of PIDs {} still running{}",
                                   o.grace.count() / 1000.0, format_index_list(kill),
                                   t.whole ? " and to any process started below them since the plan"
                                           : std::string());
    const std::string how =
        t.stop.via_owner
            ? "stop it through its owner (" + t.stop.stop.front() + ")" + killing
            : fmt::format("SIGTERM to PID{} {}{}", sig.size() == 1 ? "" : "s", order, killing);
    out << "   " << (o.yes ? "doing" : "would do") << ": " << for_terminal(how) << "\n";
    if (t.restart_policy && !t.stop.via_owner && o.force_signal)
      out << "   note: forced by --signal although its owner restarts it ("
          << for_terminal(*t.restart_policy) << ")\n";
    out << (t.report_commands ? "   commands (the same as the report's plan):\n"
                              : "   commands:\n");
    for (const std::string& c : t.stop.all()) out << "     $ " << for_terminal(c) << "\n";
    if (!kill.empty())
      out << "   then, as --yes does:\n     $ " << for_terminal(kill_command(t, o)) << "\n";
  }
  if (plan.targets.empty()) out << "\nNo process to stop on the selected GPUs.\n";
  for (const Refusal& r : plan.refusals)
    out << "refused: " << for_terminal(r.what) << ": " << for_terminal(r.reason) << "\n";
  for (const std::string& s : plan.skipped) out << "left alone: " << for_terminal(s) << "\n";
  for (const std::string& w : plan.warnings) out << "warning: " << for_terminal(w) << "\n";
  if (!o.yes && !plan.targets.empty())
    out << (o.bundle_dir
                ? "\nWith --yes the node is recorded first: a bundle in " +
                      for_terminal(*o.bundle_dir) + " (--no-bundle skips it).\n"
                : std::string("\nWith --yes and --no-bundle no bundle is recorded first.\n"));
}

void write_free_state(const FreePlan& plan, const NodeSnapshot& now, std::ostream& out) {
  out << "GPU  USED       PROCESSES\n";
  for (uint32_t index : plan.gpus)
    for (const GpuState& g : now.gpus) {
      if (g.index != index) continue;
      std::string procs = !g.processes ? "unknown" : std::to_string(g.processes->size());
      out << fmt::format("{:>3}  {:<10} {}{}\n", index, format_memory(g.memory_used_bytes), procs,
                         gpu_is_free(g) ? "  (free)" : "");
    }
}

void write_free_result(const FreeResult& r, std::ostream& out) {
  for (const std::string& a : r.actions) out << "done: " << for_terminal(a) << "\n";
  for (const Refusal& x : r.refusals)
    out << "refused: " << for_terminal(x.what) << ": " << for_terminal(x.reason) << "\n";
  for (const std::string& f : r.failures) out << "failed: " << for_terminal(f) << "\n";
  for (const std::string& m : r.manual) out << "to do by hand: " << for_terminal(m) << "\n";
  out << "\nGPU  BEFORE     AFTER      RELEASED   TIME\n";
  for (const GpuRelease& g : r.gpus) {
    std::optional<uint64_t> released;
    if (g.used_before_bytes && g.used_after_bytes && *g.used_before_bytes >= *g.used_after_bytes)
      released = *g.used_before_bytes - *g.used_after_bytes;
    out << fmt::format("{:>3}  {:<10} {:<10} {:<10} {}{}\n", g.index,
                       format_memory(g.used_before_bytes), format_memory(g.used_after_bytes),
                       format_memory(released),
                       g.released_after_s ? fmt::format("{:.1f} s", *g.released_after_s) : "-",
                       g.started_again ? "   (started again)"
                       : g.free_at_end ? ""
                                       : "   (memory remains)");
  }
  for (const std::string& s : r.remaining) out << "\n" << for_terminal(s) << "\n";
}

/// The verdict on the act, checked against the plan: "done as planned"
/// only when every planned PID is gone, the memory released and nothing
/// came back within the settle window.
void write_free_verdict(const FreePlan& plan, const FreeResult& r, const FreeOptions& o,
                        std::ostream& out) {
  const size_t wrong = r.failures.size() + r.refusals.size();
  if (!plan.errors.empty())
    out << fmt::format("\nResult: nothing done: {} (above)\n",
                       count_of(plan.errors.size(), "error", "errors"));
  else if (plan.targets.empty() && !plan.refusals.empty() && r.actions.empty())
    out << fmt::format("\nResult: nothing done: {} refused (above)\n",
                       count_of(plan.refusals.size(), "process", "processes"));
  else if (wrong > 0)
    out << fmt::format(
        "\nResult: NOT done as planned: {} from the plan (above); the GPUs are not known to be "
        "free\n",
        count_of(wrong, "difference", "differences"));
  else if (!plan.refusals.empty())
    out << fmt::format("\nResult: carried out, but {} refused (above) and left alone\n",
                       count_of(plan.refusals.size(), "process was", "processes were"));
  else if (r.memory_remains)
    out << "\nResult: the plan was carried out, but memory remains (above)\n";
  else
    out << fmt::format(
        "\nResult: done as planned: every planned PID is gone, nothing started again within {} "
        "s, GPU{} {} free\n",
        o.settle.count() / 1000.0, plan.gpus.size() == 1 ? "" : "s", format_index_list(plan.gpus));
}

nlohmann::ordered_json free_json(const FreePlan& p, const FreeResult& r, const FreeOptions& o,
                                 int code) {
  using J = nlohmann::ordered_json;
  J targets = J::array();
  for (const TreeTarget& t : p.targets) {
    J holders = J::array();
    for (const ProcId& h : t.holders) holders.push_back(h.pid);
    J signal = J::array();
    for (const ProcId& id : t.signal) signal.push_back(id.pid);
    J wrappers = J::array(), tree = J::array(), kill = J::array();
    for (const ServerProcess& w : t.wrappers) wrappers.push_back(w.pid);
    for (const ProcId& id : t.tree) tree.push_back(id.pid);
    for (const ProcId& id : t.kill) kill.push_back(id.pid);
    targets.push_back({{"server_id", t.server_id},
                       {"root_pid", t.root.pid},
                       {"root_cmdline", t.root_cmdline},
                       {"label", t.label},
                       {"holder_pids", holders},
                       {"signal_pids", signal},
                       {"via_owner", t.stop.via_owner},
                       {"gpus", t.gpus},
                       {"bytes", t.bytes},
                       {"idle", t.idle ? J(*t.idle) : J()},
                       {"widened", t.widened},
                       {"user", t.user ? J(*t.user) : J()},
                       {"since_unix_s", t.since_unix_s ? J(*t.since_unix_s) : J()},
                       {"owner", t.stop.owner_text},
                       {"restart_policy", t.restart_policy ? J(*t.restart_policy) : J()},
                       {"wrapper_pids", wrappers},
                       {"tree_pids", tree},
                       {"kill_pids", kill},
                       {"whole", t.whole},
                       {"supervisor_pid", t.supervisor ? J(t.supervisor->pid) : J()},
                       {"launcher_exited", t.launcher_exited},
                       {"commands", t.stop.all()},
                       {"kill_command", t.kill.empty() ? J() : J(kill_command(t, o))}});
  }
  J refusals = J::array();
  for (const std::vector<Refusal>* list : {&p.refusals, &r.refusals})
    for (const Refusal& x : *list)
      refusals.push_back({{"pid", x.pid}, {"what", x.what}, {"reason", x.reason}});
  J gpus = J::array();
  for (const GpuRelease& g : r.gpus)
    gpus.push_back({{"index", g.index},
                    {"used_before_bytes", g.used_before_bytes ? J(*g.used_before_bytes) : J()},
                    {"used_after_bytes", g.used_after_bytes ? J(*g.used_after_bytes) : J()},
                    {"released_after_s", g.released_after_s ? J(*g.released_after_s) : J()},
                    {"free", g.free_at_end},
                    {"started_again", g.started_again}});
  return J{{"schema", "gpu-triage/free"},
           {"schema_version", 2},
           {"mode", o.yes ? "act" : "plan"},
           {"exit_code", code},
           {"targets", targets},
           {"refusals", refusals},
           {"skipped", p.skipped},
           {"warnings", p.warnings},
           {"errors", p.errors},
           {"actions", r.actions},
           {"failures", r.failures},
           {"manual", r.manual},
           {"gpus", gpus},
           {"remaining", r.remaining},
           {"bundle", r.bundle ? J(*r.bundle) : J()},
           {"bundle_dir", o.bundle_dir ? J(*o.bundle_dir) : J()}};
}

}  // namespace

std::string render_free_text(const FreePlan& plan, const FreeResult& result,
                             const NodeSnapshot& before, const FreeOptions& options) {
  std::ostringstream out;
  write_free_plan(plan, options, out);
  out << "\n";
  if (options.yes) {
    write_free_result(result, out);
    write_free_verdict(plan, result, options, out);
  } else {
    write_free_state(plan, before, out);
    for (const std::string& s : result.remaining) out << "\n" << for_terminal(s) << "\n";
  }
  return out.str();
}

std::string render_free_json(const FreePlan& plan, const FreeResult& result,
                             const FreeOptions& options, int exit_code) {
  return json_text(free_json(plan, result, options, exit_code), 2) + "\n";
}

}  // namespace gt
