#include "cli/args.h"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "cli/fleet_args.h"
#include "cli/usage.h"
#include "model/limits.h"
#include "sources/kernel_log/not_a_log.h"
#include "util/duration.h"
#include "util/env.h"
#include "util/fs_root.h"

namespace gt {
namespace {

// The version from the build (CMakeLists.txt project(VERSION)), one home.
constexpr const char* kVersion = GT_VERSION;

/// Validates a duration option in place of CLI11's own parsing.
Status apply_duration(const std::string& text, const char* flag, std::chrono::milliseconds& out) {
  Result<std::chrono::milliseconds> d = parse_duration(text);
  if (!d) return d.error().with_context(flag);
  out = *d;
  return ok_status();
}

/// --smi-xml FILE and --kernel-log FILE are read whole: one that is not a
/// regular file (a FIFO would block, /dev/zero never end) is refused before
/// it is opened; --kernel-log also takes /dev/kmsg.
std::optional<std::string> refused_input_file(const Options& o) {
  if (o.smi_xml && *o.smi_xml != "-")
    if (std::optional<std::string> why = refuse_non_regular_input(*o.smi_xml))
      return "--smi-xml " + *why;
  if (o.kernel_log_file && *o.kernel_log_file != "-") {
    struct stat st {};
    if (::stat(o.kernel_log_file->c_str(), &st) == 0)
      if (std::optional<std::string> why = not_a_kernel_log(st))
        return "--kernel-log " + *o.kernel_log_file + " is " + *why +
               ", not a log: pass a regular file (a saved dmesg, kern.log) or /dev/kmsg";
  }
  return std::nullopt;
}

ParsedArgs usage(const std::string& prog, const std::string& message, bool json) {
  usage_error(prog, message, json);
  return {std::nullopt, ExitCode::kUsage};
}

/// The end of --help: the exit codes of both conventions.
constexpr const char* kExitCodesHelp =
    "Exit codes (--exit-codes nagios, the default): 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN\n"
    "  (nothing could be checked); with --exit-codes npd (Node Problem Detector): 0 ok,\n"
    "  1 problem, 2 unknown. Either way: 64 bad usage; 74 the --textfile could not be\n"
    "  written (the report is still printed; the error is on stderr).";

/// --python PATH must be an absolute path to a file in the root.
std::optional<std::string> refused_python(const Options& o) {
  if (!o.python) return std::nullopt;
  if (!o.python->starts_with("/") || o.python->find('/', 1) == std::string::npos)
    return "--python " + *o.python +
           ": give the interpreter's absolute path (/opt/venv/bin/python)";
  Result<std::string> real = FsRoot(o.root).resolve(*o.python);
  struct stat st;
  if (!real || ::stat(real->c_str(), &st) != 0)
    return "--python " + *o.python + ": no such file" +
           (o.root == "/" ? std::string() : " under --root " + o.root);
  if (!S_ISREG(st.st_mode)) return "--python " + *o.python + ": not a regular file";
  return std::nullopt;
}

}  // namespace

ParsedArgs parse_args(int argc, char** argv, const std::string& prog,
                      const std::vector<std::string>& more_names) {
  CLI::App app{
      "gpu-triage: are the GPUs alive, and what is holding them?\n"
      "Reads every GPU through NVML (never hangs), the PCI bus and /proc.",
      prog};
  app.allow_extras();
  app.footer(
      "The table:\n"
      "  GPU          NVML index          STATUS   ok, lost, unresponsive, inaccessible\n"
      "  BUS ID       PCI address         NAME     model (when the GPUs differ, or --wide)\n"
      "  MEMORY USED  used/total GiB and the share used (binary units, as nvidia-smi's MiB; "
      "reserved memory apart)\n"
      "  GPU BUSY     share of time a kernel ran, average/maximum over the window\n"
      "  TEMP         GPU temperature     POWER    draw/limit in watts\n"
      "  PS           performance state   PCIE     link gen x width, now/max\n"
      "  PM           persistence mode    (MIG devices are listed under their GPU)\n"
      "  Width: the terminal's, 80 at least (man page: TABLE WIDTH); --wide keeps all.\n"
      "  processes: GPU, PID, USER, GPU MEM (the process's own memory), OWNER (unit, "
      "container, pod, job), command\n"
      "  servers: the processes grouped by launcher (kind, TP/DP/PP, GPUs and memory each, "
      "owner and restart policy, start after boot, model, port)\n"
      "Memory in human output is in MiB/GiB (1 GiB = 1024 MiB); JSON and metrics are in "
      "bytes.\n\n" +
      commands_help() + "\n" + kExitCodesHelp);
  Options o;
  std::string sample = "1s", timeout = "5s";
  bool version = false, no_color = false, color = false;
  CLI::Option* json = app.add_flag("--json", o.json, "Print the report as JSON (docs/json.md)");
  app.add_flag("--wide", o.wide, "Show everything: full names, UUIDs, command lines");
  app.add_option("--sample", sample,
                 "Utilization sample window (default 1s, a sample every 200 ms); a server is "
                 "called idle only when every sample of at least two read 0, so --sample 0 "
                 "(one sample) claims no idleness");
  app.add_option("--timeout", timeout,
                 "Deadline for all NVML queries (default 5s); a GPU that does not answer "
                 "is reported as unresponsive. Durations: 500ms, 2s, 1.5m; at most 1 day");
  app.add_option("--nvml-lib", o.nvml_lib,
                 "NVML library to load (env GPU_TRIAGE_NVML_LIB; default libnvidia-ml.so.1)")
      ->check(library_path());
  app.add_option("--root", o.root,
                 "Directory standing for / when reading /proc and /sys (env GPU_TRIAGE_ROOT)");
  std::string exit_codes = "nagios";
  app.add_flag("--oneline", o.oneline,
               "One line: the verdict word, then stable key=value fields (pdsh/clush "
               "friendly): gpus=ANSWERING/ON_PCI_BUS ('?': NVML could not list them; '-': "
               "the bus was not read, a capture), critical=, warning=, driver=, ids=")
      ->excludes(json);
  app.add_option("--exit-codes", exit_codes,
                 "Exit code convention: nagios (0 ok, 1 warning, 2 critical, 3 unknown; "
                 "default) or npd (0 ok, 1 problem, 2 unknown)")
      ->check(CLI::IsMember({"nagios", "npd"}));
  app.add_option("--expect-gpus", o.expect_gpus, "Number of GPUs this node should have")
      ->check(whole_number(0, kMaxGpus));
  app.add_option("--path", o.paths,
                 "Check free space and inodes of the filesystem holding DIR (repeatable; / "
                 "always)");
  app.add_option("--kernel-log", o.kernel_log_file,
                 "Read Xids from a saved dmesg, journal or syslog file (- for stdin) instead of "
                 "this node's kernel log");
  app.add_flag("--no-kernel-log", o.no_kernel_log, "Do not read the kernel log");
  app.add_option("--textfile", o.textfile,
                 "Also write the Prometheus metrics to DIR/gpu-triage.prom, atomically, for "
                 "node_exporter's textfile collector");
  app.add_option("--smi-xml", o.smi_xml,
                 "Judge an nvidia-smi -q -x capture (or one of its error outputs) instead of "
                 "this node; - reads stdin")
      ->excludes("--kernel-log");
  app.add_option("--bundle", o.bundle,
                 "Judge the node a gpu-triage bundle recorded (its NVML answers and its copied "
                 "/proc, /sys, /etc and logs) instead of this node")
      ->excludes("--smi-xml")
      ->excludes("--root")
      ->excludes("--kernel-log");
  app.add_option("--data", o.data_dir,
                 "Also check the job's output in DIR as `gpu-triage data DIR` does (quick mode, "
                 "the files written last CRC-checked; nothing is moved): its findings join the "
                 "verdict and the plan, whose data step gives the exact resume commands")
      ->excludes("--smi-xml")
      ->excludes("--bundle");
  app.add_option("--expect", o.data_expect, "With --data: samples 0..N-1 are expected in DIR")
      ->check(CLI::Range(int64_t{1}, int64_t{100'000'000}));
  app.add_flag("--deep", o.data_deep, "With --data: check every CRC of every file");
  app.add_option(
      "--state-dir", o.state_dir,
      "Keep the record across boots (boot id and Xid / recovery-action findings "
      "per GPU) in DIR (env GPU_TRIAGE_STATE_DIR; default /var/lib/gpu-triage; on a --root tree "
      "only when "
      "given): a GPU with the same one in several boots is escalated");
  app.add_flag("--no-state", o.no_state, "Neither read nor write the record across boots")
      ->excludes("--state-dir");
  app.add_flag("--cuda", o.cuda,
               "Also run CUDA on each GPU (gpu-triage cuda's probe: 256 MiB each, a 10 s "
               "deadline each, GPUs in use skipped) and judge what it proves")
      ->excludes("--smi-xml")
      ->excludes("--bundle");
  app.add_option("--python", o.python,
                 "Also judge the CUDA build of a job not started yet: PATH is its interpreter "
                 "(a venv's or conda env's bin/python); its site-packages are read, nothing is "
                 "run")
      ->excludes("--smi-xml")
      ->excludes("--bundle");
  app.add_flag("--color", color, "Colour even when not on a terminal");
  app.add_flag("--no-color", no_color, "Never colour (also: NO_COLOR set)");
  app.add_flag("-V,--version", version, "Print the version");
  if (std::optional<int> rc = parse_command_line(app, argc, argv, {prog, more_names}))
    return {std::nullopt, *rc == 0 ? ExitCode::kOk : ExitCode::kUsage};
  if (version) {
    std::cout << "gpu-triage " << kVersion << "\n";
    return {std::nullopt, ExitCode::kOk};
  }
  for (Status s : {apply_duration(sample, "--sample", o.sample_window),
                   apply_duration(timeout, "--timeout", o.timeout)}) {
    if (!s) return usage(prog, s.error().message, o.json);
  }
  if (o.smi_xml && is_capture_folder(*o.smi_xml))
    return usage(prog,
                 "--smi-xml " + *o.smi_xml +
                     " is a folder: a fleet of captures (gpu-triage fleet --smi-xml DIR)",
                 o.json);
  if (std::optional<std::string> why = refused_input_file(o)) return usage(prog, *why, o.json);
  if ((o.data_expect || o.data_deep) && !o.data_dir)
    return usage(prog, "--expect and --deep go with --data DIR", o.json);
  if (o.timeout.count() <= 0 || o.sample_window >= o.timeout)
    return usage(prog,
                 "--sample (" + sample + ") must be shorter than --timeout (" + timeout +
                     "), and --timeout must be above 0",
                 o.json);
  if (o.nvml_lib.empty()) o.nvml_lib = env_or("GPU_TRIAGE_NVML_LIB", "libnvidia-ml.so.1");
  if (app.count("--root") == 0) o.root = env_or("GPU_TRIAGE_ROOT", "/");
  o.npd_exit_codes = exit_codes == "npd";
  if (std::optional<std::string> why = refused_python(o)) return usage(prog, *why, o.json);
  if (std::find(o.paths.begin(), o.paths.end(), "/") == o.paths.end())
    o.paths.insert(o.paths.begin(), "/");
  if (color) o.color = true;
  if (no_color) o.color = false;
  return {o, ExitCode::kOk};
}

}  // namespace gt
