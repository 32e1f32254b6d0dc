// gpu-triage history: show the record across boots (--state-dir), or clear
// it after a repair (--clear, one GPU with --gpu UUID).
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/usage.h"
#include "history/record.h"
#include "history/state_file.h"
#include "model/exit_code.h"
#include "util/json_text.h"
#include "util/time_format.h"

namespace gt {
namespace {

constexpr const char* kProg = "gpu-triage history";

struct HistoryCli {
  std::string state_dir = kDefaultStateDir;
  std::string gpu;  ///< empty: every GPU
  bool clear = false;
  bool json = false;
};

std::string when(int64_t unix_s) { return format_utc(unix_s, "%Y-%m-%d %H:%M UTC"); }

void print_text(const GpuHistory& h, const std::string& gpu, std::ostream& out) {
  out << "Record: " << h.file << " (" << h.boots.size() << " boot"
      << (h.boots.size() == 1 ? "" : "s") << ", at most " << kMaxHistoryBoots << " kept)\n";
  for (const HistoryBoot& b : h.boots)
    out << "  boot " << b.boot_id << "  first run " << when(b.first_seen_unix_s) << ", last "
        << when(b.last_seen_unix_s) << "\n";
  bool any = false;
  for (const GpuRecord& g : h.gpus) {
    if (!gpu.empty() && g.uuid != gpu) continue;
    any = true;
    out << g.uuid << "\n";
    for (const FindingBoots& f : g.findings) {
      out << "  " << f.finding_id << " in " << f.boot_ids.size() << " boot"
          << (f.boot_ids.size() == 1 ? "" : "s") << ":";
      for (const std::string& b : f.boot_ids) {
        const HistoryBoot* hb = find_boot(h, b);
        out << " " << b.substr(0, 8) << (hb ? " (" + when(hb->first_seen_unix_s) + ")" : "");
      }
      out << "\n";
    }
  }
  if (!any)
    out << (gpu.empty() ? "No GPU finding recorded.\n" : "Nothing recorded for " + gpu + ".\n");
}

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
  for (const std::string& m : warnings) std::cerr << kProg << ": " << m << "\n";
  if (!w) {
    std::cerr << kProg << ": " << w.error().message << "\n";
    return static_cast<int>(ExitCode::kIoError);
  }
  if (c.gpu.empty())
    std::cout << "Cleared the record in " << file << ".\n";
  else if (removed == 0)
    std::cout << "Nothing recorded for " << c.gpu << " in " << file << ".\n";
  else
    std::cout << "Cleared the record of " << c.gpu << " in " << file << ".\n";
  return 0;
}

}  // namespace

int cmd_history(int argc, char** argv) {
  CLI::App app{
      "gpu-triage history: the record across boots of each GPU's Xid and recovery-action "
      "findings, which escalates a GPU that shows the same one after reboots "
      "(gpu.repeat_offender).",
      kProg};
  app.allow_extras();
  app.footer(
      "Exit codes: 0 done; 1 the record cannot be read; 64 bad usage; 74 it cannot be written.");
  HistoryCli c;
  app.add_option("--state-dir", c.state_dir,
                 "Directory of the record (default /var/lib/gpu-triage)");
  app.add_option("--gpu", c.gpu, "Only this GPU (its UUID)");
  app.add_flag("--clear", c.clear, "Clear the record (with --gpu: that GPU's), after a repair");
  app.add_flag("--json", c.json, "The record as JSON")->excludes("--clear");
  if (std::optional<int> rc = parse_command_line(app, argc, argv, {kProg, {}})) return *rc;
  // `--gpu "$UUID"` with an empty variable must not clear every GPU.
  if (app.count("--gpu") && c.gpu.empty()) {
    return command_error(kProg, "--gpu needs a GPU UUID (an empty one would mean every GPU)",
                         static_cast<int>(ExitCode::kUsage), c.json);
  }
  if (c.clear) return clear(c);
  std::vector<std::string> warnings;
  Result<GpuHistory> h = read_history(c.state_dir, warnings);
  for (const std::string& w : warnings) std::cerr << kProg << ": " << w << "\n";
  if (!h) return command_error(kProg, h.error().message, 1, c.json);
  if (c.json) {
    if (!c.gpu.empty()) std::erase_if(h->gpus, [&](const GpuRecord& g) { return g.uuid != c.gpu; });
    std::cout << json_text(history_to_json(*h), 2) << "\n";
    return 0;
  }
  print_text(*h, c.gpu, std::cout);
  return 0;
}

}  // namespace gt
