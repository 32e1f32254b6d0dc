// The fleet command's command line: many hosts over ssh, a folder of
// nvidia-smi captures or a folder of saved --json reports. `gpu-triage
// fleet ...`, or the same options given to gpu-triage itself (main.cc
// hands a command line naming a fleet to this command).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/exit_code.h"

namespace gt {

/// Where the fleet's hosts come from: exactly one of these.
enum class FleetSource : uint8_t {
  kHosts,     ///< --host / --hosts-file, over ssh
  kCaptures,  ///< --smi-xml DIR: one nvidia-smi -q -x capture a host
  kReports,   ///< --reports DIR: one saved --json report a host
};

struct FleetOptions {
  FleetSource source = FleetSource::kHosts;
  std::vector<std::string> hosts;  ///< --host (repeatable, comma lists) and --hosts-file
  std::string dir;                 ///< --smi-xml DIR or --reports DIR
  std::string ssh_command = "ssh";
  uint32_t fanout = 32;
  std::chrono::milliseconds host_timeout{30000};
  bool drift = false;
  bool json = false;
  bool npd_exit_codes = false;
  std::optional<uint32_t> expect_gpus;
  std::vector<std::string> paths = {"/"};  ///< disks checked on each host ("/" always)
  bool no_kernel_log = false;
};

struct ParsedFleetArgs {
  std::optional<FleetOptions> options;
  ExitCode exit_code = ExitCode::kOk;  ///< when there are no options: 0 (--help) or 64
};

/// Parses a fleet's command line; prints help and usage errors itself,
/// prefixed with `prog`.
ParsedFleetArgs parse_fleet_args(int argc, char** argv, const std::string& prog);

/// Whether --smi-xml's value is a folder: a fleet of captures.
bool is_capture_folder(const std::string& path);

/// Whether gpu-triage's own command line names a fleet: a fleet-only option
/// (--host, --hosts-file, --reports, --drift, --ssh-command, --fanout,
/// --host-timeout) or --smi-xml naming a directory.
bool names_a_fleet(int argc, char** argv);

}  // namespace gt
