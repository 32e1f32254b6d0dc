// One remote host over OpenSSH: the ssh command line, the script that runs
// there in a single connection, and turning what comes back into a report.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/registry.h"
#include "collect/collect.h"
#include "collect/gathered.h"
#include "fleet/fleet_report.h"
#include "model/snapshot.h"
#include "sources/kernel_log/command_runner.h"
#include "util/result.h"

namespace gt {

/// What every host is checked with.
struct RemoteOptions {
  std::string ssh_command = "ssh";  ///< split on blanks: program, then its own options
  std::chrono::milliseconds host_timeout{30000};  ///< the whole exchange; ssh killed after it
  std::vector<std::string> paths = {"/"};         ///< disks to check there (--path)
  /// What is collected of each host: the fleet command's stages, less the
  /// kernel log with --no-kernel-log (the gather script then skips it too).
  Stages stages = kAllStages;
  /// How each host is judged: the same options as a local run
  /// (make_check_options), e.g. --expect-gpus.
  CheckOptions checks;
};

/// Hosts from --host values (each may be a comma list) and the lines of
/// --hosts-file (blank lines and # comments skipped), duplicates dropped,
/// first order kept. kMalformed for a name that starts with '-' or holds a
/// blank or control character; kNotFound for an unreadable file; a hosts
/// file with no host is an error too.
Result<std::vector<std::string>> collect_hosts(const std::vector<std::string>& host_args,
                                               const std::optional<std::string>& hosts_file);

/// ConnectTimeout in seconds: a third of the deadline, within 1..10.
int connect_timeout_s(std::chrono::milliseconds host_timeout);

/// argv for one host: ssh_command's words, then -o BatchMode=yes
/// -o ConnectTimeout=N -T, then "--", the host, and the remote command.
std::vector<std::string> ssh_argv(const RemoteOptions& o, const std::string& host,
                                  const std::string& remote_command);

/// The remote command: `sh -c '<script>'`. The script runs gpu-triage
/// --json if the host has it; otherwise it prints, as one record a line,
/// nvidia-smi -q -x (under `timeout`), the kernel log's NVIDIA lines,
/// df of the paths, the hostname, and base64 copies of the /proc, /sys and
/// /etc files the local readers need (GPU processes, NVIDIA PCI devices,
/// the module version, /proc/stat, passwd entries of the processes' users).
std::string remote_command(const RemoteOptions& o);

/// Parses the script's stdout (the records listed atop remote.cc) into the
/// answer collect_gathered reads; unknown records are ignored.
Gathered parse_gathered(std::string_view out);

/// Judges a gathered host locally with the same readers and checks as a
/// local run: collected by collect_gathered (collect/gathered.h), judged
/// here; an answer that cannot be collected is UNKNOWN with its reason.
HostReport judge_gathered(const std::string& host, const Gathered& g, const RemoteOptions& o);

/// Runs one host: ssh through `runner` within host_timeout, then
/// judge_gathered or the merged native report; an ssh failure, a timeout
/// or an unreadable answer is UNKNOWN with ssh's own words.
HostReport check_host(const std::string& host, const RemoteOptions& o, const CommandRunner& runner);

}  // namespace gt
