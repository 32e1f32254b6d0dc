// Command-line options of gpu-triage (parsed with CLI11).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "model/exit_code.h"

namespace gt {

struct Options {
  bool json = false;
  bool wide = false;
  std::optional<bool> color;  ///< --color / --no-color; default: a terminal and no NO_COLOR
  std::chrono::milliseconds sample_window{1000};
  std::chrono::milliseconds timeout{5000};
  std::string nvml_lib;         ///< --nvml-lib, else GPU_TRIAGE_NVML_LIB, else libnvidia-ml.so.1
  std::string root = "/";       ///< --root, else GPU_TRIAGE_ROOT
  bool oneline = false;         ///< --oneline: one line, verdict word first
  bool npd_exit_codes = false;  ///< --exit-codes npd (0 ok, 1 problem, 2 unknown)
  std::optional<uint32_t> expect_gpus;
  std::vector<std::string> paths;              ///< --path DIR (disk checks); "/" always added
  std::optional<std::string> kernel_log_file;  ///< --kernel-log FILE
  bool no_kernel_log = false;
  std::optional<std::string> textfile;   ///< --textfile DIR: also write DIR/gpu-triage.prom
  std::optional<std::string> smi_xml;    ///< --smi-xml FILE|-: judge an nvidia-smi -q -x capture
  std::optional<std::string> bundle;     ///< --bundle FILE: judge the node a bundle recorded
  std::optional<std::string> data_dir;   ///< --data DIR: check the job's output too
  std::optional<int64_t> data_expect;    ///< --expect N: samples 0..N-1 expected in DIR
  bool data_deep = false;                ///< --deep: every CRC of DIR
  std::optional<std::string> state_dir;  ///< --state-dir: the record across boots
  bool no_state = false;                 ///< --no-state: neither read nor write it
  bool cuda = false;                     ///< --cuda: gpu-triage cuda's probe, judged with the rest
  /// --python PATH: the interpreter of a job not running yet (in the root)
  std::optional<std::string> python;
};

/// Either options to run with, or an exit code to leave with right away
/// (--help, --version: 0; bad usage: 64) after the text was printed.
struct ParsedArgs {
  std::optional<Options> options;
  ExitCode exit_code = ExitCode::kOk;
};

/// Parses argv and the environment: the options of one node (a fleet's are
/// cli/fleet_args.h's, the fleet command's). Prints help, version or the usage
/// error itself, prefixed with `prog` ("gpu-triage serve" when serve passes
/// on its collection options); `more_names` are options the caller took
/// already, offered too when an unknown one is close to them.
ParsedArgs parse_args(int argc, char** argv, const std::string& prog = "gpu-triage",
                      const std::vector<std::string>& more_names = {});

}  // namespace gt
