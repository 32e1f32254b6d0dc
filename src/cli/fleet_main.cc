// The fleet path of the main job: hosts -> check_host() on a bounded pool
// (or a folder of captures, or saved --json reports) -> correlation across
// hosts -> output in the order the hosts were given (not the order they
// answered), so two runs over the same fleet print the same text.
#include "cli/fleet_main.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "bundle/archive.h"
#include "cli/fleet_args.h"
#include "cli/run_triage.h"
#include "collect/bundle_replay.h"
#include "collect/origin.h"
#include "fleet/correlate.h"
#include "fleet/drift.h"
#include "fleet/fanout.h"
#include "fleet/fleet_report.h"
#include "fleet/remote.h"
#include "render/fleet_render.h"
#include "util/errno_error.h"
#include "util/read_capped.h"

namespace gt {
namespace {

namespace fs = std::filesystem;

/// What an entry of a fleet's folder is when it is no regular file (a link
/// followed): "a FIFO", "a device", ...; "" for a folder (not read: the
/// folder's own files are the hosts) or a regular file.
std::string not_a_file(const fs::directory_entry& e) {
  std::error_code ec, link_ec;
  const fs::file_status st = e.status(ec);  // its own code: is_symlink may clear one
  const bool link = e.is_symlink(link_ec);
  if (ec.value() == ELOOP) return "a link that loops";
  if (!fs::exists(st)) return link ? "a link to nothing" : "gone while listed";
  if (fs::is_regular_file(st) || fs::is_directory(st)) return "";
  const std::string what = fs::is_fifo(st)                                      ? "FIFO"
                           : fs::is_character_file(st) || fs::is_block_file(st) ? "device"
                           : fs::is_socket(st)                                  ? "socket"
                                                                                : "special file";
  return (link ? "a link to a " : "a ") + what;
}

/// The regular files of `dir`, sorted by name, or the error in words (a
/// folder with none is one). An entry that is no file (a FIFO, a device, a
/// link to nothing) is in `unread` with what it is: a host whose report
/// cannot be read, never left out without a word.
std::vector<fs::path> files_in(const std::string& dir, std::string& error,
                               std::vector<std::pair<fs::path, std::string>>& unread) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (it->is_regular_file(ec2))
      out.push_back(it->path());
    else if (std::string what = not_a_file(*it); !what.empty())
      unread.emplace_back(it->path(), what + ", not a file");
  }
  // A std::filesystem error is an errno (system_category) here.
  if (ec) error = errno_error(ec.value(), dir).message;
  // No file is no host checked: UNKNOWN, never "0 hosts" and OK.
  if (!ec && out.empty() && unread.empty())
    error = dir + ": no files in the folder: no host to check";
  std::sort(out.begin(), out.end());
  std::sort(unread.begin(), unread.end());
  return out;
}

/// Host names must be unique in the output: a second entry of the same
/// name (an unreadable file named like a host) is shown as "host (file)".
std::string unique_name(std::string name, const fs::path& file, std::map<std::string, int>& seen) {
  if (seen[name]++ == 0) return name;
  return name + " (" + file.filename().string() + ")";
}

std::vector<HostReport> from_captures(const FleetOptions& o, Stages stages) {
  std::string error;
  std::vector<HostReport> out;
  std::map<std::string, int> seen;
  std::vector<std::pair<fs::path, std::string>> unread;
  for (const fs::path& f : files_in(o.dir, error, unread)) {
    Report r = std::move(collect_capture(f.string(), stages).report);
    judge_report(r, o.expect_gpus, o.npd_exit_codes);
    std::string host = unique_name(f.stem().string(), f, seen);
    if (r.could_not_check) {
      out.push_back(host_unknown(host, HostVia::kCapture,
                                 "not a readable nvidia-smi -q -x capture: " +
                                     r.snapshot.nvml.error_message.value_or(f.string())));
      continue;
    }
    out.push_back(host_report(host, HostVia::kCapture, std::move(r)));
  }
  for (const auto& [f, what] : unread)
    out.push_back(host_unknown(unique_name(f.stem().string(), f, seen), HostVia::kCapture,
                               f.string() + ": " + what));
  if (!error.empty()) out.push_back(host_unknown(o.dir, HostVia::kCapture, error));
  return out;
}

/// A bundle's file name without its archive suffix: "b" of b.tar.zst, else
/// its stem (a bundle recognised by its bytes).
std::string bundle_stem(const fs::path& f) {
  const std::string name = f.filename().string();
  const std::string stem = archive_stem(name);
  return stem != name ? stem : f.stem().string();
}

/// One file of `--reports DIR` before hosts are counted: its host as read,
/// named by the host name its report recorded (`recorded`), else by its file.
struct SavedHost {
  HostReport host;
  fs::path file;
  bool recorded = false;
};

/// A bundle of `--reports DIR` judged here as `gpu-triage --bundle FILE`
/// judges it, under the host it recorded.
SavedHost from_bundle(const FleetOptions& o, const fs::path& f) {
  // A bundle holds what the triage collects: the triage's stages, not the
  // fleet's (an ssh gather has fewer).
  Report r = std::move(replay_bundle(f.string(), CollectInputs{}, default_command().stages).report);
  const bool unread = bundle_unread(r);
  const bool named = r.snapshot.hostname && !r.snapshot.hostname->empty() && !unread;
  const std::string name = named ? *r.snapshot.hostname : bundle_stem(f);
  if (unread) return {host_unknown(name, HostVia::kBundle, *r.snapshot.nvml.error_message), f};
  judge_report(r, o.expect_gpus, o.npd_exit_codes);
  return {host_report(name, HostVia::kBundle, std::move(r)), f, named};
}

/// A saved --json report: named by the host it names, else by its file; one
/// that cannot be read is named by its file with report_from_json's words.
SavedHost from_saved_report(const fs::path& f) {
  Result<Report> report = collect_saved_report(f.string());
  const bool named = report && report->snapshot.hostname && !report->snapshot.hostname->empty();
  const std::string name = named ? *report->snapshot.hostname : f.stem().string();
  if (!report) return {host_unknown(name, HostVia::kReport, report.error().message), f};
  return {host_report(name, HostVia::kReport, std::move(*report)), f, named};
}

/// Whether `a` was collected after `b` (the later file name on a tie).
bool newer_than(const SavedHost& a, const SavedHost& b) {
  const int64_t at = a.host.report->snapshot.collected_at_unix_ms;
  const int64_t bt = b.host.report->snapshot.collected_at_unix_ms;
  return at != bt ? at > bt : a.file.filename() > b.file.filename();
}

/// The note the newest report of a host gets: which files it stands for
/// (the first ten named: a folder can hold thousands).
std::string older_reports_note(const std::vector<std::string>& files) {
  std::string named;
  for (size_t i = 0; i < files.size() && i < 10; ++i) named += (i ? ", " : "") + files[i];
  if (files.size() > 10) named += " and " + std::to_string(files.size() - 10) + " more";
  return "the newest of " + std::to_string(files.size() + 1) +
         " reports of this host in the folder; not counted: " + named;
}

/// One host, one entry: of several reports (or bundles) recording one host
/// name, the newest counts and says which older files it stands for;
/// others keep their file's name ("host (file)" where names clash).
std::vector<HostReport> one_per_host(std::vector<SavedHost> saved) {
  std::map<std::string, size_t> newest;
  for (size_t i = 0; i < saved.size(); ++i) {
    if (!saved[i].recorded) continue;
    auto [it, fresh] = newest.emplace(saved[i].host.host, i);
    if (!fresh && newer_than(saved[i], saved[it->second])) it->second = i;
  }
  std::map<std::string, std::vector<std::string>> older;  // host -> its older files
  for (size_t i = 0; i < saved.size(); ++i)
    if (saved[i].recorded && newest[saved[i].host.host] != i)
      older[saved[i].host.host].push_back(saved[i].file.filename().string());
  std::vector<HostReport> out;
  std::map<std::string, int> seen;
  for (size_t i = 0; i < saved.size(); ++i) {
    SavedHost& h = saved[i];
    if (h.recorded && newest[h.host.host] != i) continue;
    if (h.recorded && older.count(h.host.host))
      h.host.report->snapshot.warnings.push_back(older_reports_note(older[h.host.host]));
    h.host.host = unique_name(h.host.host, h.file, seen);
    out.push_back(std::move(h.host));
  }
  return out;
}

std::vector<HostReport> from_saved_reports(const FleetOptions& o) {
  const std::string& dir = o.dir;
  std::string error;
  std::vector<SavedHost> saved;
  std::vector<std::pair<fs::path, std::string>> unread;
  for (const fs::path& f : files_in(dir, error, unread))
    saved.push_back(looks_like_bundle(f.string()) ? from_bundle(o, f) : from_saved_report(f));
  for (const auto& [f, what] : unread)
    saved.push_back(
        {host_unknown(f.stem().string(), HostVia::kReport, f.string() + ": " + what), f});
  std::vector<HostReport> out = one_per_host(std::move(saved));
  if (!error.empty()) out.push_back(host_unknown(dir, HostVia::kReport, error));
  return out;
}

std::vector<HostReport> over_ssh(const FleetOptions& o, Stages stages) {
  RemoteOptions ro;
  ro.ssh_command = o.ssh_command;
  ro.host_timeout = o.host_timeout;
  ro.paths = o.paths;
  ro.stages = stages;
  ro.checks = make_check_options(o.expect_gpus, Origin::kGathered);
  const RealCommandRunner runner;
  std::vector<HostReport> reports(o.hosts.size());
  run_bounded(o.hosts.size(), o.fanout,
              [&](size_t i) { reports[i] = check_host(o.hosts[i], ro, runner); });
  return reports;
}

}  // namespace

int cmd_fleet(const Command& self, int argc, char** argv) {
  // Errors name the fleet even when its options came without the word
  // (main.cc): "gpu-triage fleet: unknown option '--textfile'" says why.
  ParsedFleetArgs parsed = parse_fleet_args(argc, argv, std::string("gpu-triage ") + self.name);
  if (!parsed.options) return static_cast<int>(parsed.exit_code);
  const FleetOptions& o = *parsed.options;
  Stages stages = self.stages;
  if (o.no_kernel_log) stages = without(stages, Stage::kKernelLog);
  std::vector<HostReport> reports = o.source == FleetSource::kHosts     ? over_ssh(o, stages)
                                    : o.source == FleetSource::kReports ? from_saved_reports(o)
                                                                        : from_captures(o, stages);
  std::vector<FleetFinding> fleet = correlate_xids(reports);
  apply_fleet_findings(fleet, reports);
  std::optional<DriftReport> drift;
  if (o.drift) drift = find_drift(reports);
  std::cout << render_fleet(reports, fleet, drift, o.json, o.npd_exit_codes);
  int rc = fleet_exit_code(reports, o.npd_exit_codes);
  // A fleet finding is a warning of the fleet: at least "warning".
  if (!fleet.empty() && rc == 0) rc = 1;
  return rc;
}

}  // namespace gt
