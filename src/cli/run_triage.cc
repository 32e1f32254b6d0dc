#include "cli/run_triage.h"

#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "checks/checks.h"
#include "checks/pin_advice.h"
#include "checks/registry.h"
#include "cli/fleet_args.h"
#include "cli/usage.h"
#include "collect/bundle_replay.h"
#include "collect/collect.h"
#include "collect/origin.h"
#include "history/run_history.h"
#include "render/oneline_report.h"
#include "render/prometheus.h"
#include "render/table_report.h"
#include "render/terminal_width.h"
#include "render/textfile.h"
#include "report/json_report.h"
#include "util/plural.h"

namespace gt {
namespace {

/// Turns a failed init into the one clear line the operator needs.
void explain_nvml_failure(NodeSnapshot& snap) {
  NvmlStatus& n = snap.nvml;
  // A capture that could not be read has said why (collect_report); this
  // machine's NVML was never asked.
  if (n.initialized || snap.source != Origin::kNvml) return;
  const std::string module = snap.kernel_module_version.value_or("unknown");
  const std::string library = n.library_version.value_or("unknown");
  if (no_nvidia_gpu(snap)) {
    // Whatever NVIDIA software is installed, there is no GPU for it: say
    // what was found (a CPU node with the driver packages, a VM whose GPUs
    // were not passed through).
    std::string lib =
        !n.loaded
            ? "no NVML library"
            : "NVML library " + n.library_version.value_or("(version unknown)") + " installed";
    n.error_message =
        "no NVIDIA GPU on this machine: nothing on the PCI bus, no nvidia module, " + lib +
        (n.library_path == "libnvidia-ml.so.1" ? "" : " (" + n.library_path.value_or("?") + ")");
  } else if (!n.loaded) {
    std::string bus =
        snap.pci_devices.empty()
            ? "no NVIDIA GPU on the PCI bus either"
            : count_of(snap.pci_devices.size(), "NVIDIA GPU", "NVIDIA GPUs") + " on the PCI bus";
    std::string mod = snap.kernel_module_version ? "kernel module " + module + " is loaded"
                                                 : "no nvidia kernel module loaded";
    n.error_message = "no NVIDIA driver: the NVML library " + n.library_path.value_or("?") +
                      " cannot be loaded; " + mod + "; " + bus;
  } else if (n.init_error == NvmlInitError::kVersionMismatch) {
    n.error_message = "driver/library version mismatch: kernel module " + module +
                      ", NVML library " + library +
                      ". Reboot (or unload and reload the nvidia modules) so the running "
                      "module matches the installed library, and pin the driver packages "
                      "so an unattended upgrade cannot split them again.";
  } else if (n.init_error == NvmlInitError::kDriverNotLoaded) {
    n.error_message = "the NVIDIA kernel driver is not loaded (NVML library " + library +
                      " is installed; " +
                      count_of(snap.pci_devices.size(), "NVIDIA GPU", "NVIDIA GPUs") +
                      " on the PCI bus). Load it with 'modprobe nvidia' and "
                      "check dmesg if that fails.";
  } else if (n.init_error == NvmlInitError::kNoPermission) {
    n.error_message =
        "no permission to open the NVIDIA devices (/dev/nvidia*): run as root "
        "or as a member of the group that owns them.";
  }
}

}  // namespace

CollectInputs collect_inputs(const Options& o) {
  CollectInputs in;
  in.root = o.root;
  in.nvml_lib = o.nvml_lib;
  in.timeout = o.timeout;
  in.sample_window = o.sample_window;
  in.paths = o.paths;
  in.kernel_log_file = o.kernel_log_file;
  in.data_dir = o.data_dir;
  in.data_expect = o.data_expect;
  in.data_deep = o.data_deep;
  in.state_dir = o.state_dir;
  in.no_state = o.no_state;
  in.python = o.python;
  return in;
}

void judge_report(Report& report, std::optional<uint32_t> expect_gpus, bool npd) {
  explain_nvml_failure(report.snapshot);
  judge(report, make_check_options(expect_gpus, report.snapshot.source));
  compare_with_record(report);  // a bundle's replay against what it recorded
  report.exit_code = verdict_exit_code(report_verdict(report), npd);
}

Report collect_report(const Options& o, Stages stages, bool& abandoned_threads,
                      std::shared_ptr<ReadLog> read_log) {
  if (o.no_kernel_log) stages = without(stages, Stage::kKernelLog);
  if (o.cuda) stages = stages | Stage::kCudaProbe;
  // Phase 1: collect, through the one pipeline (src/collect/).
  CollectInputs in = collect_inputs(o);
  in.read_log = std::move(read_log);
  Collected c = collect_origin({o.bundle, o.smi_xml}, in, stages);
  abandoned_threads = c.abandoned_threads;
  Report report = std::move(c.report);
  if (o.bundle && bundle_unread(report))
    print_error("gpu-triage", *report.snapshot.nvml.error_message);
  if (o.smi_xml && !report.snapshot.nvml.loaded && report.snapshot.nvml.error_message)
    print_error("gpu-triage", "--smi-xml: " + *report.snapshot.nvml.error_message);
  // Phase 2: explain what failed, in words; judge.
  judge_report(report, o.expect_gpus, o.npd_exit_codes);
  return report;
}

namespace {

int run_triage(const Command& self, const Options& o, bool& abandoned_threads) {
  const auto start = std::chrono::steady_clock::now();
  Report report = collect_report(o, self.stages, abandoned_threads);
  // After judging: this run joins the record across boots.
  // A bundle's replay judges another node's record: it never writes it.
  // The table report is read by a person: the notes said once are said.
  // A line, JSON or a textfile is read by a program (a timer, a fleet, a
  // scrape): the notes wait for a person's triage.
  const bool to_a_person = !o.json && !o.oneline && !o.textfile;
  if (has(self.steps, Step::kRecord) && !o.bundle) record_run(report, to_a_person);
  const NodeSnapshot& snap = report.snapshot;
  std::optional<std::string> textfile_error;  // printed last, after the report
  if (o.textfile) {
    PrometheusContext ctx;
    ctx.version = GT_VERSION;
    ctx.collection_duration_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Status written = write_textfile_atomically(*o.textfile, render_prometheus(report, ctx));
    if (!written) {
      // Not a verdict on the node: exit 74 (EX_IOERR), docs/fleet-integration.md.
      std::string why = "--textfile: cannot write " + *o.textfile + "/" + kTextfileName + ": " +
                        written.error().message;
      report.snapshot.warnings.push_back(why);  // in the table's notes and JSON's warnings
      report.exit_code = static_cast<int>(ExitCode::kIoError);
      textfile_error = why;
    }
  }
  // Phase 3: render.
  if (o.json) {
    render_json(report, std::cout);
  } else if (o.oneline) {
    if (textfile_error) {
      // No line: its verdict word ("OK ...") would read as success.
    } else if (o.npd_exit_codes)
      render_oneline_npd(report, std::cout);
    else
      render_oneline(report, std::cout);
  } else {
    TableOptions t;
    t.wide = o.wide;
    t.width = table_width(STDOUT_FILENO);
    const char* no_color = std::getenv("NO_COLOR");
    bool tty = isatty(STDOUT_FILENO) == 1;
    t.color = o.color.value_or(tty && (no_color == nullptr || *no_color == '\0'));
    render_table(report, t, std::cout);
  }
  // An unreadable capture said why on stderr already (collect_report).
  const bool capture_unread =
      (o.smi_xml && !snap.nvml.loaded) || (o.bundle && bundle_unread(report));
  if (!snap.nvml.initialized && o.json && !capture_unread)
    print_error("gpu-triage", snap.nvml.error_message.value_or("NVML unusable"));
  if (textfile_error) {
    std::cout.flush();
    print_error("gpu-triage", *textfile_error);
  }
  return report.exit_code;
}

}  // namespace

int cmd_triage(const Command& self, int argc, char** argv) {
  // `gpu-triage triage --host h1`: named, the triage takes no fleet (main.cc
  // hands an unnamed one to the fleet command).
  if (std::string(argv[0]) == self.name && names_a_fleet(argc, argv))
    return usage_error("gpu-triage triage",
                       "a fleet's options are the fleet command's: gpu-triage fleet --host ...",
                       asks_json(argc, argv));
  ParsedArgs parsed = parse_args(argc, argv);
  if (!parsed.options) return static_cast<int>(parsed.exit_code);
  bool abandoned = false;
  int code = run_triage(self, *parsed.options, abandoned);
  if (abandoned) {
    // A thread is stuck inside the driver: running destructors or
    // nvmlShutdown could block on it. Flush and leave now.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    _exit(code);
  }
  return code;
}

}  // namespace gt
