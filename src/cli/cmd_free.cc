// gpu-triage free: show (and with --yes, carry out) the safe way to release
// GPU memory held by leftover processes. See src/free/ for the rules.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "checks/plan.h"
#include "cli/bundle_writer.h"
#include "cli/commands.h"
#include "cli/usage.h"
#include "collect/collect.h"
#include "free/free_act.h"
#include "free/free_plan.h"
#include "free/gpu_selection.h"
#include "history/state_file.h"
#include "model/exit_code.h"
#include "render/free_render.h"
#include "sources/procfs/process_info.h"
#include "sources/procfs/process_tree.h"
#include "sources/procfs/servers.h"
#include "util/duration.h"
#include "util/env.h"

namespace gt {
namespace {

constexpr const char* kFreeProg = "gpu-triage free";

struct FreeCli {
  FreeOptions free;
  std::string nvml_lib;
  std::string root = "/";
  std::chrono::milliseconds timeout{5000};
  std::chrono::milliseconds sample{3000};
  std::optional<GpuSelector> gpus;  ///< resolved once the GPUs are read
};

/// Where free --yes records the node when --bundle-dir is not given.
std::string default_bundle_dir() { return default_state_dir() + "/bundles"; }

/// Parses argv; nullopt with `code` set when the command should end now.
std::optional<FreeCli> parse_free_args(int argc, char** argv, int& code) {
  CLI::App app{
      "gpu-triage free: release GPUs held by leftover processes, safely.\n"
      "Without --yes it only shows what it would do.",
      kFreeProg};
  app.allow_extras();
  app.footer(
      "Exit codes: 0 the selected GPUs are free at the end and the plan was carried out as\n"
      "  shown; 1 memory remains (without --yes: the GPUs are held); 2 a refusal or a failure,\n"
      "  a difference from the plan included (a PID still running, a server started again),\n"
      "  and NVML unusable; 64 bad usage, a GPU in --gpus that this node does not have\n"
      "  included.");
  FreeCli c;
  std::string gpus = "all", grace = "30s", timeout = "5s", sample = "3s";
  std::vector<uint32_t> pids;
  app.add_option("--gpus", gpus,
                 "GPUs to free: all (default), or indices 0-1023 like 0,2,4-7, UUIDs "
                 "(GPU-...) and PCI bus ids (0000:19:00.0), as nvidia-smi -i takes them (one "
                 "this node does not have is refused)");
  app.add_option("--pid", c.free.pids,
                 "Signal exactly these PIDs (repeatable); refused when one would take other "
                 "GPU holders with it (its workers) or its restart loop would start it again, "
                 "unless --whole-server, which stops each server a named PID belongs to whole")
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
  std::string bundle_dir;
  bool no_bundle = false;
  app.add_option("--bundle-dir", bundle_dir,
                 "Where --yes records the node before its first signal: a bundle as gpu-triage "
                 "bundle writes it (default STATE_DIR/bundles, STATE_DIR being "
                 "GPU_TRIAGE_STATE_DIR or /var/lib/gpu-triage); when it cannot be written, "
                 "nothing is signalled")
      ->check(CLI::Validator(
          [](const std::string& v) { return v.empty() ? "--bundle-dir: empty" : ""; }, "DIR"));
  app.add_flag("--no-bundle", no_bundle, "Act without recording the node first");
  app.add_flag("--json", c.free.json, "JSON output");
  app.add_option("--nvml-lib", c.nvml_lib, "NVML library (env GPU_TRIAGE_NVML_LIB)")
      ->check(library_path());
  app.add_option("--root", c.root,
                 "Directory standing for / (env GPU_TRIAGE_ROOT); "
                 "a captured tree can be planned, never acted on");
  app.add_option("--timeout", timeout, "Deadline for each NVML collection (default 5s)");
  app.add_option("--sample", sample,
                 "Utilization window to judge idleness, sampled several times (default 3s; 0 "
                 "does not sample, so no server is known to be idle)");
  if (std::optional<int> rc = parse_command_line(app, argc, argv, {kFreeProg, {}})) {
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
    code = usage_error(kFreeProg, e->message, c.free.json);
    return std::nullopt;
  }
  c.gpus = *list;
  if (idle_only && c.free.include_busy) {
    code = usage_error(kFreeProg, "--idle-only and --include-busy contradict each other");
    return std::nullopt;
  }
  c.free.grace = *g;
  c.timeout = *t;
  c.sample = *s;
  if (c.sample >= c.timeout) {
    code = usage_error(kFreeProg,
                       "--sample (" + sample + ") must be shorter than --timeout (" + timeout + ")",
                       c.free.json);
    return std::nullopt;
  }
  if (no_bundle && !bundle_dir.empty()) {
    code =
        usage_error(kFreeProg, "--bundle-dir and --no-bundle contradict each other", c.free.json);
    return std::nullopt;
  }
  if (!no_bundle) c.free.bundle_dir = bundle_dir.empty() ? default_bundle_dir() : bundle_dir;
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

/// Writes the bundle `free --yes` leaves before its first signal: the node
/// as the triage sees it, in `dir` (created, 0700: even redacted, a bundle
/// holds command lines). The archive's path, or why it could not be written.
Result<std::string> record_before_acting(const FreeCli& c, const std::string& dir) {
  std::error_code ec;
  const bool made = std::filesystem::create_directories(dir, ec);
  if (ec)
    return Error{ErrorKind::kIo, "could not record the node before acting: cannot create " + dir +
                                     ": " + ec.message() + "; nothing was signalled " +
                                     "(--bundle-dir DIR to write it elsewhere, --no-bundle to "
                                     "act without it)"};
  if (made) std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  Options o;
  o.root = c.root;
  o.nvml_lib = c.nvml_lib;
  o.timeout = c.timeout;
  o.sample_window = c.sample;  // the report judges idleness over free's own window
  BundleRequest r;
  r.dir = dir;
  const Command* bundle = find_command("bundle");
  Result<BundleWritten> w = write_node_bundle(bundle->stages, o, r);
  if (!w)
    return Error{ErrorKind::kIo, "could not record the node before acting: " + w.error().message +
                                     "; nothing was signalled " +
                                     "(--bundle-dir DIR to write it elsewhere, --no-bundle to " +
                                     "act without it)"};
  return w->file;
}

}  // namespace

int cmd_free(const Command& command, int argc, char** argv) {
  int code = 0;
  std::optional<FreeCli> c = parse_free_args(argc, argv, code);
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
    Collected got = collect_node(in, command.stages);
    abandoned = got.abandoned_threads || abandoned;
    return std::move(got.report.snapshot);
  };
  NodeSnapshot before = collect(c->sample);
  if (!before.nvml.initialized) {
    command_error(kFreeProg, before.nvml.error_message.value_or("NVML unusable"),
                  static_cast<int>(ExitCode::kCritical), c->free.json);
    std::fflush(nullptr);
    _exit(static_cast<int>(ExitCode::kCritical));
  }
  Result<std::optional<std::vector<uint32_t>>> chosen = resolve_gpu_selector(c->gpus, before);
  if (!chosen) {
    code = usage_error(kFreeProg, chosen.error().message);
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
    code = usage_error(kFreeProg, *bad, c->free.json);
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
  if (c->free.yes && plan.errors.empty() && !plan.targets.empty() && c->free.bundle_dir) {
    Result<std::string> b = record_before_acting(*c, *c->free.bundle_dir);
    if (!b)
      plan.errors.push_back(b.error().message);
    else
      result.bundle = *b;
  }
  if (c->free.yes && plan.errors.empty()) {
    RealCommandRunner runner;
    std::optional<std::string> bundle = std::move(result.bundle);
    result = act_free(
        plan, before, c->free, [&] { return collect(std::chrono::milliseconds(0)); }, runner);
    if (bundle) {
      result.actions.insert(result.actions.begin(),
                            "recorded the node before the first signal: " + *bundle +
                                " (gpu-triage --bundle FILE replays it)");
      result.bundle = std::move(bundle);
    }
  } else {
    result = describe_state(plan, before);
  }
  bool refused = !plan.refusals.empty() || !result.refusals.empty() || !result.failures.empty() ||
                 !plan.errors.empty();
  code = refused ? 2 : result.memory_remains ? 1 : 0;
  std::cout << (c->free.json ? render_free_json(plan, result, c->free, code)
                             : render_free_text(plan, result, before, c->free));
  std::cout.flush();
  if (abandoned) {
    std::fflush(nullptr);
    _exit(code);
  }
  return code;
}

}  // namespace gt
