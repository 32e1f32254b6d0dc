// gpu-triage history: show the record across boots (--state-dir), or clear
// it after a repair (--clear, one GPU with --gpu UUID).
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "cli/commands.h"
#include "cli/usage.h"
#include "history/record.h"
#include "history/state_file.h"
#include "model/exit_code.h"
#include "render/history_render.h"

namespace gt {
namespace {

constexpr const char* kHistoryProg = "gpu-triage history";

struct HistoryCli {
  std::string state_dir = default_state_dir();
  std::string gpu;  ///< empty: every GPU
  bool clear = false;
  bool json = false;
};

/// Clears under the record's lock, so a run writing meanwhile is not undone.
int clear(const HistoryCli& c) {
  size_t removed = 0;
  std::string file;
  std::vector<std::string> warnings;
  Status w = update_history(
      c.state_dir,
      [&](GpuHistory& h) {
        removed = clear_history(h, c.gpu);
        file = h.file;
      },
      warnings);
  for (const std::string& m : warnings) print_error(kHistoryProg, m);
  if (!w) {
    print_error(kHistoryProg, w.error().message);
    return static_cast<int>(ExitCode::kIoError);
  }
  std::cout << render_history_cleared(file, c.gpu, removed);
  return 0;
}

/// Why `dir` is no directory ("/x: No such file or directory"), or nullopt.
std::optional<std::string> not_a_directory(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int err = errno;
    return dir + ": " + std::strerror(err);
  }
  if (!S_ISDIR(st.st_mode)) return dir + " is not a directory";
  return std::nullopt;
}

}  // namespace

int cmd_history(const Command&, int argc, char** argv) {
  CLI::App app{
      "gpu-triage history: the record across boots of each GPU's Xid and recovery-action "
      "findings, which escalates a GPU that shows the same one after reboots "
      "(gpu.repeat_offender).",
      kHistoryProg};
  app.allow_extras();
  app.footer(
      "Exit codes: 0 done; 1 the record cannot be read; 64 bad usage (a --state-dir that is not "
      "there); 74 it cannot be written.");
  HistoryCli c;
  app.add_option("--state-dir", c.state_dir,
                 "Directory of the record (env GPU_TRIAGE_STATE_DIR; default /var/lib/gpu-triage)");
  app.add_option("--gpu", c.gpu, "Only this GPU (its UUID)");
  app.add_flag("--clear", c.clear, "Clear the record (with --gpu: that GPU's), after a repair");
  app.add_flag("--json", c.json, "The record as JSON")->excludes("--clear");
  if (std::optional<int> rc = parse_command_line(app, argc, argv, {kHistoryProg, {}})) return *rc;
  // `--gpu "$UUID"` with an empty variable must not clear every GPU.
  if (app.count("--gpu") && c.gpu.empty()) {
    return command_error(kHistoryProg, "--gpu needs a GPU UUID (an empty one would mean every GPU)",
                         static_cast<int>(ExitCode::kUsage), c.json);
  }
  // A --state-dir that is not there is a mistyped path, not an empty
  // record ("0 boots, no GPU finding recorded" would read as all clear).
  if (app.count("--state-dir"))
    if (std::optional<std::string> bad = not_a_directory(c.state_dir))
      return command_error(kHistoryProg, "--state-dir " + *bad, static_cast<int>(ExitCode::kUsage),
                           c.json);
  if (c.clear) return clear(c);
  std::vector<std::string> warnings;
  Result<GpuHistory> h = read_history(c.state_dir, warnings);
  for (const std::string& w : warnings) print_error(kHistoryProg, w);
  if (!h) return command_error(kHistoryProg, h.error().message, 1, c.json);
  std::cout << (c.json ? render_history_json(std::move(*h), c.gpu)
                       : render_history_text(*h, c.gpu));
  return 0;
}

}  // namespace gt
