#include "cli/fleet_args.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string_view>

#include "cli/usage.h"
#include "fleet/remote.h"
#include "model/limits.h"
#include "util/duration.h"

namespace gt {
namespace {

ParsedFleetArgs fleet_usage(const std::string& prog, const std::string& message, bool json) {
  usage_error(prog, message, json);
  return {std::nullopt, ExitCode::kUsage};
}

/// The options only a fleet has: naming one on gpu-triage's own command
/// line runs the fleet.
constexpr std::array<std::string_view, 7> kFleetOnly = {
    "--host",        "--hosts-file", "--reports",     "--drift",
    "--ssh-command", "--fanout",     "--host-timeout"};

/// "--name" or "--name=value" is option `name`.
bool is_option(std::string_view word, std::string_view name) {
  return word == name ||
         (word.starts_with(name) && word.size() > name.size() && word[name.size()] == '=');
}

/// Which source the options name, or the usage error in words.
std::optional<std::string> choose_source(FleetOptions& o, const std::optional<std::string>& smi,
                                         const std::optional<std::string>& reports) {
  const int given = (o.hosts.empty() ? 0 : 1) + (smi ? 1 : 0) + (reports ? 1 : 0);
  if (given == 0)
    return "a fleet needs hosts: --host/--hosts-file, --smi-xml DIR (captures) or --reports "
           "DIR (saved reports)";
  if (given > 1) return "--host/--hosts-file, --smi-xml DIR and --reports DIR exclude each other";
  const std::string& dir = smi ? *smi : reports ? *reports : std::string();
  if (smi || reports) {
    const char* flag = smi ? "--smi-xml " : "--reports ";
    std::error_code ec;
    if (dir == "-") return flag + dir + ": a fleet reads a folder, not stdin";
    if (!std::filesystem::exists(dir, ec)) return flag + dir + ": no such folder";
    if (!is_capture_folder(dir))
      return flag + dir + ": a fleet reads a folder, one file a host" +
             (smi ? " (one capture: gpu-triage --smi-xml FILE)" : "");
    o.source = smi ? FleetSource::kCaptures : FleetSource::kReports;
    o.dir = dir;
  }
  return std::nullopt;
}

/// What a source cannot honour is refused, never dropped: a capture has no
/// disks or kernel log, a saved report was judged where it was made.
std::optional<std::string> refuse_unusable(const FleetOptions& o, const CLI::App& app) {
  if (o.source == FleetSource::kHosts) return std::nullopt;
  const char* what = o.source == FleetSource::kCaptures ? "--smi-xml DIR" : "--reports DIR";
  for (const char* flag :
       {"--ssh-command", "--fanout", "--host-timeout", "--path", "--no-kernel-log"}) {
    if (app.count(flag) > 0)
      return std::string(flag) + " is for hosts checked over ssh, not " + what;
  }
  if (o.source == FleetSource::kReports && o.expect_gpus)
    return "--expect-gpus: a saved report was judged where it was made; give --expect-gpus to "
           "the gpu-triage that wrote it";
  return std::nullopt;
}

}  // namespace

bool is_capture_folder(const std::string& path) {
  if (path == "-") return false;  // stdin, whatever the working directory holds
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

bool names_a_fleet(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view w = argv[i];
    if (w == "--") break;
    for (std::string_view name : kFleetOnly)
      if (is_option(w, name)) return true;
    if (w == "--smi-xml" && i + 1 < argc && is_capture_folder(argv[i + 1])) return true;
    if (w.starts_with("--smi-xml=") && is_capture_folder(std::string(w.substr(10)))) return true;
  }
  return false;
}

ParsedFleetArgs parse_fleet_args(int argc, char** argv, const std::string& prog) {
  CLI::App app{
      "gpu-triage fleet: many hosts at once, a line each (the verdict word, then --oneline's "
      "fields), a summary, the events several hosts share (the same Xid at the same time) "
      "and, with --drift, what differs across them. The same options work without the word "
      "fleet: gpu-triage --host h1,h2.",
      prog};
  app.allow_extras();
  app.footer(
      "Each host is checked as gpu-triage checks one node: over ssh, its own gpu-triage "
      "--json when installed, else nvidia-smi -q -x, the kernel log, df and /proc copies judged "
      "here (docs/fleet.md).\n\n"
      "Exit codes: the worst host's (--exit-codes nagios: 0 OK, 1 WARNING, 2 CRITICAL, 3 "
      "UNKNOWN; npd: 0 ok, 1 problem, 2 unknown), at least 1 when the fleet has a finding of "
      "its own; 64 bad usage.");
  FleetOptions o;
  std::vector<std::string> host_args;
  std::optional<std::string> hosts_file, smi, reports;
  std::string host_timeout = "30s", exit_codes = "nagios";
  bool oneline = false;
  CLI::Option* json = app.add_flag("--json", o.json, "One gpu-triage/fleet JSON document");
  app.add_flag("--oneline", oneline, "A line a host (what the fleet prints anyway)")
      ->excludes(json);
  app.add_option("--host", host_args,
                 "Check HOST over ssh (repeatable, comma lists); many hosts run in parallel");
  app.add_option("--hosts-file", hosts_file,
                 "Check the hosts listed in FILE (one a line, # comments)");
  app.add_option("--smi-xml", smi, "A folder of nvidia-smi -q -x captures, one a host");
  app.add_option("--reports", reports,
                 "A folder of saved --json reports and gpu-triage bundles: every file in DIR "
                 "is one host");
  app.add_option("--ssh-command", o.ssh_command,
                 "ssh program and its options for --host (default ssh; e.g. \"ssh -J jump\")");
  app.add_option("--fanout", o.fanout, "Hosts checked at once (default 32)")
      ->check(whole_number(1, 1024));
  app.add_option("--host-timeout", host_timeout,
                 "Deadline per host, connection included (default 30s); ssh is killed after it");
  app.add_flag("--drift", o.drift,
               "List what differs across the hosts (driver, library, CUDA, module and kernel "
               "versions, VBIOS per model, GPU count and model, ECC/persistence/MIG modes, "
               "power limit, PCIe generation) with the majority value and the hosts that "
               "differ");
  app.add_option("--expect-gpus", o.expect_gpus, "Number of GPUs each host should have")
      ->check(whole_number(0, kMaxGpus));
  std::vector<std::string> paths;
  app.add_option("--path", paths,
                 "Over ssh: check free space and inodes of the filesystem holding DIR on each "
                 "host (repeatable; / always)");
  app.add_flag("--no-kernel-log", o.no_kernel_log, "Over ssh: do not read the hosts' kernel log");
  app.add_option("--exit-codes", exit_codes, "Exit code convention: nagios (default) or npd")
      ->check(CLI::IsMember({"nagios", "npd"}));
  bool color = false, version = false;
  app.add_flag("--color,--no-color", color,
               "Accepted as gpu-triage takes them (the fleet's lines have no colour)");
  app.add_flag("-V,--version", version, "Print the version");
  if (std::optional<int> rc = parse_command_line(app, argc, argv, {prog, {}}))
    return {std::nullopt, *rc == 0 ? ExitCode::kOk : ExitCode::kUsage};
  if (version) {
    std::cout << "gpu-triage " << GT_VERSION << "\n";
    return {std::nullopt, ExitCode::kOk};
  }
  Result<std::chrono::milliseconds> t = parse_duration(host_timeout);
  if (!t) return fleet_usage(prog, t.error().with_context("--host-timeout").message, o.json);
  if (t->count() <= 0)
    return fleet_usage(prog, "--host-timeout must be above 0, got '" + host_timeout + "'", o.json);
  o.host_timeout = *t;
  if (!host_args.empty() || hosts_file) {
    Result<std::vector<std::string>> h = collect_hosts(host_args, hosts_file);
    if (!h) return fleet_usage(prog, h.error().message, o.json);
    o.hosts = std::move(*h);
  }
  if (std::optional<std::string> bad = choose_source(o, smi, reports))
    return fleet_usage(prog, *bad, o.json);
  if (std::optional<std::string> bad = refuse_unusable(o, app))
    return fleet_usage(prog, *bad, o.json);
  o.npd_exit_codes = exit_codes == "npd";
  for (const std::string& p : paths)
    if (std::find(o.paths.begin(), o.paths.end(), p) == o.paths.end()) o.paths.push_back(p);
  return {o, ExitCode::kOk};
}

}  // namespace gt
