// gpu-triage free: show (and with --yes, carry out) the safe way to release
// GPU memory held by leftover processes. See src/free/ for the rules.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "checks/plan.h"
#include "cli/usage.h"
#include "collect/collect.h"
#include "free/free_act.h"
#include "free/free_plan.h"
#include "free/gpu_selection.h"
#include "model/exit_code.h"
#include "sources/procfs/process_info.h"
#include "sources/procfs/process_tree.h"
#include "sources/procfs/servers.h"
#include "util/duration.h"
#include "util/env.h"
#include "util/json_text.h"
#include "util/plural.h"
#include "util/time_format.h"

namespace gt {
namespace {

constexpr const char* kProg = "gpu-triage free";

struct FreeCli {
  FreeOptions free;
  std::string nvml_lib;
  std::string root = "/";
  std::chrono::milliseconds timeout{5000};
  std::chrono::milliseconds sample{3000};
  std::optional<GpuSelector> gpus;  ///< resolved once the GPUs are read
};

/// Parses argv; nullopt with `code` set when the command should end now.
std::optional<FreeCli> parse(int argc, char** argv, int& code) {
  CLI::App app{
      "gpu-triage free: release GPUs held by leftover processes, safely.\n"
      "Without --yes it only shows what it would do.",
      kProg};
  app.allow_extras();
  app.footer(
      "Exit codes: 0 the selected GPUs are free at the end; 1 memory remains (without --yes:\n"
      "  the GPUs are held); 2 a refusal or a failure (NVML unusable included); 64 bad usage,\n"
      "  a GPU in --gpus that this node does not have included.");
  FreeCli c;
  std::string gpus = "all", grace = "30s", timeout = "5s", sample = "3s";
  std::vector<uint32_t> pids;
  app.add_option("--gpus", gpus,
                 "GPUs to free: all (default), or indices 0-1023 like 0,2,4-7, UUIDs "
                 "(GPU-...) and PCI bus ids (0000:19:00.0), as nvidia-smi -i takes them (one "
                 "this node does not have is refused)");
  app.add_option("--pid", c.free.pids,
                 "Signal exactly these PIDs (repeatable); refused when one would take other "
                 "GPU holders with it (its workers), unless --whole-server")
      ->check(whole_number(1, UINT32_MAX));
  app.add_flag("--whole-server", c.free.whole_server,
               "Widen the selection to every server it touches: all their GPUs and processes "
               "(without it, a server that also holds GPUs outside --gpus is refused)");
  app.add_flag("--signal", c.free.force_signal,
               "Signal the processes even where their owner restarts them (systemd Restart=, "
               "a Docker restart policy, Kubernetes); by default such a server is stopped "
               "through its owner");
  bool idle_only = false;
  app.add_flag("--idle-only", idle_only,
               "Leave servers that are busy alone (the default; kept for scripts)");
  app.add_flag("--include-busy", c.free.include_busy,
               "Stop servers that are busy, or not known to be idle over the sample window, "
               "too (by default only servers idle over the whole window are stopped)");
  app.add_option("--grace", grace,
                 "SIGTERM to SIGKILL grace period (default 30s; durations at most 1 day)");
  app.add_flag("--yes", c.free.yes, "Act (without it: show the plan only)");
  app.add_flag("--via-owner", c.free.via_owner,
               "Stop the owning systemd unit or container (systemctl/docker) instead of "
               "signalling, so it is not restarted");
  app.add_flag("--json", c.free.json, "JSON output");
  app.add_option("--nvml-lib", c.nvml_lib, "NVML library (env GPU_TRIAGE_NVML_LIB)");
  app.add_option("--root", c.root,
                 "Directory standing for / (env GPU_TRIAGE_ROOT); "
                 "a captured tree can be planned, never acted on");
  app.add_option("--timeout", timeout, "Deadline for each NVML collection (default 5s)");
  app.add_option("--sample", sample,
                 "Utilization window to judge idleness, sampled several times (default 3s; 0 "
                 "does not sample, so no server is known to be idle)");
  if (std::optional<int> rc = parse_command_line(app, argc, argv, {kProg, {}})) {
    code = *rc;
    return std::nullopt;
  }
  auto duration = [](const std::string& text, const char* flag) {
    Result<std::chrono::milliseconds> d = parse_duration(text);
    return d ? d : Result<std::chrono::milliseconds>(d.error().with_context(flag));
  };
  Result<std::optional<GpuSelector>> list = parse_gpu_selector(gpus);
  Result<std::chrono::milliseconds> g = duration(grace, "--grace"),
                                    t = duration(timeout, "--timeout"),
                                    s = duration(sample, "--sample");
  for (const Error* e : {list ? nullptr : &list.error(), g ? nullptr : &g.error(),
                         t ? nullptr : &t.error(), s ? nullptr : &s.error()}) {
    if (!e) continue;
    code = usage_error(kProg, e->message, c.free.json);
    return std::nullopt;
  }
  c.gpus = *list;
  if (idle_only && c.free.include_busy) {
    code = usage_error(kProg, "--idle-only and --include-busy contradict each other");
    return std::nullopt;
  }
  c.free.grace = *g;
  c.timeout = *t;
  c.sample = *s;
  if (c.sample >= c.timeout) {
    code = usage_error(kProg,
                       "--sample (" + sample + ") must be shorter than --timeout (" + timeout + ")",
                       c.free.json);
    return std::nullopt;
  }
  if (c.nvml_lib.empty()) c.nvml_lib = env_or("GPU_TRIAGE_NVML_LIB", "libnvidia-ml.so.1");
  if (app.count("--root") == 0) c.root = env_or("GPU_TRIAGE_ROOT", "/");
  return c;
}

/// "--gpus 7-9: this node has no GPUs 8-9 (it has GPUs 0-7)" when the
/// selection names GPUs the node does not have, else nullopt.
std::optional<std::string> missing_gpus(const FreeOptions& o, const NodeSnapshot& s) {
  if (!o.gpus) return std::nullopt;
  std::vector<uint32_t> have, missing;
  for (const GpuState& g : s.gpus) have.push_back(g.index);
  for (uint32_t want : *o.gpus)
    if (std::find(have.begin(), have.end(), want) == have.end()) missing.push_back(want);
  if (missing.empty()) return std::nullopt;
  std::sort(have.begin(), have.end());
  std::string has = have.empty()       ? "it has no GPU"
                    : have.size() == 1 ? "it has GPU " + format_index_list(have)
                                       : "it has GPUs " + format_index_list(have);
  return fmt::format("--gpus {}: this node has no GPU{} {} ({})", format_index_list(*o.gpus),
                     missing.size() == 1 ? "" : "s", format_index_list(missing), has);
}

std::string when(std::optional<int64_t> unix_s) {
  return unix_s ? format_utc(*unix_s, "%Y-%m-%d %H:%M:%S UTC") : "unknown";
}

void print_plan(const FreePlan& plan, const FreeOptions& o, std::ostream& out) {
  out << (o.yes ? "Freeing" : "Plan (nothing done; run with --yes to act)") << ": GPU"
      << (plan.gpus.size() == 1 ? " " : "s ") << format_index_list(plan.gpus) << "\n";
  for (const std::string& e : plan.errors) out << "  error: " << e << "\n";
  int n = 0;
  for (const TreeTarget& t : plan.targets) {
    std::vector<uint32_t> pids;
    for (const ProcId& h : t.holders) pids.push_back(h.pid);
    out << fmt::format("\n{}. {}, root PID {}: {}\n", ++n, t.noun, t.root.pid, t.root_cmdline);
    out << fmt::format("   holds {} on GPU{} {} through {} ({} {}); {}{}\n", format_memory(t.bytes),
                       t.gpus.size() == 1 ? "" : "s", format_index_list(t.gpus),
                       count_of(t.holders.size(), "process", "processes"),
                       plural(pids.size(), "PID", "PIDs"), format_index_list(pids),
                       !t.idle   ? "not known to be idle (taken by --include-busy)"
                       : *t.idle ? "idle (0% utilization over the window)"
                                 : "BUSY (taken by --include-busy)",
                       t.widened ? "; taken whole (--whole-server)" : "");
    out << fmt::format("   user {}, running since {}, owner: {}{}\n", t.user.value_or("?"),
                       when(t.since_unix_s), t.stop.owner_text,
                       t.restart_policy ? " (" + *t.restart_policy + ")" : "");
    for (const ServerProcess& w : t.wrappers)
      out << fmt::format("   wrapper PID {}: {} (would start the launcher again: stopped first)\n",
                         w.pid, w.cmdline.substr(0, 120));
    if (t.launcher_exited) out << "   its launcher exited: each worker is signalled\n";
    if (t.supervisor)
      out << fmt::format(
          "   owner process PID {}: {} (it runs other processes or servers too, or restarts "
          "them: not stopped here; select it with --pid {} --whole-server; if it starts this "
          "server again, stop it that way)\n",
          t.supervisor->pid, t.supervisor->cmdline.substr(0, 120), t.supervisor->pid);
    std::string how;
    if (t.stop.via_owner) {
      how = "stop it through its owner (" + t.stop.stop.front() + ")";
    } else {
      std::vector<uint32_t> sig;
      for (const ProcId& id : t.signal) sig.push_back(id.pid);
      std::vector<uint32_t> all = pids;
      all.insert(all.end(), sig.begin(), sig.end());
      for (const ProcId& id : t.tree) all.push_back(id.pid);
      std::string order;
      for (uint32_t p : sig) order += (order.empty() ? "" : ", then ") + std::to_string(p);
      how = fmt::format("SIGTERM to PID{} {}, SIGKILL after {} s to any of PIDs {} still running",
                        sig.size() == 1 ? "" : "s", order, o.grace.count() / 1000.0,
                        format_index_list(all));
    }
    out << "   " << (o.yes ? "doing" : "would do") << ": " << how << "\n";
    if (t.restart_policy && !t.stop.via_owner && o.force_signal)
      out << "   note: forced by --signal although its owner restarts it (" << *t.restart_policy
          << ")\n";
    out << "   commands (the same as the report's plan):\n";
    for (const std::string& c : t.stop.all()) out << "     $ " << c << "\n";
  }
  if (plan.targets.empty()) out << "\nNo process to stop on the selected GPUs.\n";
  for (const Refusal& r : plan.refusals) out << "refused: " << r.what << ": " << r.reason << "\n";
  for (const std::string& s : plan.skipped) out << "left alone: " << s << "\n";
  for (const std::string& w : plan.warnings) out << "warning: " << w << "\n";
}

void print_state(const FreePlan& plan, const NodeSnapshot& now, std::ostream& out) {
  out << "GPU  USED       PROCESSES\n";
  for (uint32_t index : plan.gpus)
    for (const GpuState& g : now.gpus) {
      if (g.index != index) continue;
      std::string procs = !g.processes ? "unknown" : std::to_string(g.processes->size());
      out << fmt::format("{:>3}  {:<10} {}{}\n", index, format_memory(g.memory_used_bytes), procs,
                         gpu_is_free(g) ? "  (free)" : "");
    }
}

void print_result(const FreeResult& r, std::ostream& out) {
  for (const std::string& a : r.actions) out << "done: " << a << "\n";
  for (const Refusal& x : r.refusals) out << "refused: " << x.what << ": " << x.reason << "\n";
  for (const std::string& f : r.failures) out << "failed: " << f << "\n";
  for (const std::string& m : r.manual) out << "to do by hand: " << m << "\n";
  out << "\nGPU  BEFORE     AFTER      RELEASED   TIME\n";
  for (const GpuRelease& g : r.gpus) {
    std::optional<uint64_t> released;
    if (g.used_before_bytes && g.used_after_bytes && *g.used_before_bytes >= *g.used_after_bytes)
      released = *g.used_before_bytes - *g.used_after_bytes;
    out << fmt::format("{:>3}  {:<10} {:<10} {:<10} {}{}\n", g.index,
                       format_memory(g.used_before_bytes), format_memory(g.used_after_bytes),
                       format_memory(released),
                       g.released_after_s ? fmt::format("{:.1f} s", *g.released_after_s) : "-",
                       g.free_at_end ? "" : "   (memory remains)");
  }
  for (const std::string& s : r.remaining) out << "\n" << s << "\n";
}

nlohmann::ordered_json to_json(const FreePlan& p, const FreeResult& r, const FreeOptions& o,
                               int code) {
  using J = nlohmann::ordered_json;
  J targets = J::array();
  for (const TreeTarget& t : p.targets) {
    J holders = J::array();
    for (const ProcId& h : t.holders) holders.push_back(h.pid);
    J signal = J::array();
    for (const ProcId& id : t.signal) signal.push_back(id.pid);
    J wrappers = J::array(), tree = J::array();
    for (const ServerProcess& w : t.wrappers) wrappers.push_back(w.pid);
    for (const ProcId& id : t.tree) tree.push_back(id.pid);
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
                       {"supervisor_pid", t.supervisor ? J(t.supervisor->pid) : J()},
                       {"launcher_exited", t.launcher_exited},
                       {"commands", t.stop.all()}});
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
                    {"free", g.free_at_end}});
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
           {"remaining", r.remaining}};
}

}  // namespace

int cmd_free(int argc, char** argv) {
  int code = 0;
  std::optional<FreeCli> c = parse(argc, argv, code);
  if (!c) return code;
  const FsRoot root(c->root);
  bool abandoned = false;
  // The one pipeline, limited to what free needs: the GPUs and their servers.
  auto collect = [&](std::chrono::milliseconds sample) {
    CollectInputs in;
    in.root = c->root;
    in.nvml_lib = c->nvml_lib;
    in.timeout = c->timeout;
    in.sample_window = sample;
    Collected got = collect_node(in, Stage::kGpus | Stage::kServers);
    abandoned = got.abandoned_threads || abandoned;
    return std::move(got.report.snapshot);
  };
  NodeSnapshot before = collect(c->sample);
  if (!before.nvml.initialized) {
    command_error(kProg, before.nvml.error_message.value_or("NVML unusable"),
                  static_cast<int>(ExitCode::kCritical), c->free.json);
    std::fflush(nullptr);
    _exit(static_cast<int>(ExitCode::kCritical));
  }
  Result<std::optional<std::vector<uint32_t>>> chosen = resolve_gpu_selector(c->gpus, before);
  if (!chosen) {
    code = usage_error(kProg, chosen.error().message);
    std::fflush(nullptr);
    if (abandoned) _exit(code);
    return code;
  }
  c->free.gpus = *chosen;
  Self self{static_cast<uint32_t>(::getpid()), static_cast<uint32_t>(::geteuid()),
            self_and_ancestors(FsRoot("/"))};
  FreePlan plan = make_free_plan(before, root, c->free, self);
  if (self.euid == 0)  // as the report: a root shell has no use for sudo
    for (TreeTarget& t : plan.targets)
      for (std::vector<std::string>* cmds : {&t.stop.stop, &t.stop.disable})
        for (std::string& cmd : *cmds) cmd = without_sudo(cmd);
  if (std::optional<std::string> bad = missing_gpus(c->free, before)) {
    code = usage_error(kProg, *bad, c->free.json);
    std::fflush(nullptr);
    if (abandoned) _exit(code);
    return code;
  }
  FreeResult result;
  if (c->free.yes && c->root != "/") {
    for (const TreeTarget& t : plan.targets)
      plan.refusals.push_back({t.root.pid, "PID " + std::to_string(t.root.pid),
                               "a captured tree (--root " + c->root +
                                   ") is never acted on: its PIDs are not this machine's"});
    plan.targets.clear();
  }
  if (c->free.yes && plan.errors.empty()) {
    RealCommandRunner runner;
    result = act_free(
        plan, before, c->free, [&] { return collect(std::chrono::milliseconds(0)); }, runner);
  } else {
    result = describe_state(plan, before);
  }
  bool refused = !plan.refusals.empty() || !result.refusals.empty() || !result.failures.empty() ||
                 !plan.errors.empty();
  code = refused ? 2 : result.memory_remains ? 1 : 0;
  if (c->free.json) {
    std::cout << json_text(to_json(plan, result, c->free, code), 2) << "\n";
  } else {
    print_plan(plan, c->free, std::cout);
    std::cout << "\n";
    if (c->free.yes) {
      print_result(result, std::cout);
    } else {
      print_state(plan, before, std::cout);
      for (const std::string& s : result.remaining) std::cout << "\n" << s << "\n";
    }
  }
  std::cout.flush();
  if (abandoned) {
    std::fflush(nullptr);
    _exit(code);
  }
  return code;
}

}  // namespace gt
