// The fleet path of the main job: hosts -> check_host() on a bounded pool
// -> output in the order the hosts were given (not the order they
// answered), so two runs over the same fleet print the same text.
#include "cli/fleet_main.h"

#include <iostream>

#include "fleet/fanout.h"
#include "fleet/fleet_report.h"
#include "fleet/remote.h"

namespace gt {

int run_fleet(const Options& o) {
  RemoteOptions ro;
  ro.ssh_command = o.ssh_command;
  ro.host_timeout = o.host_timeout;
  ro.paths = o.paths;
  const RealCommandRunner runner;
  std::vector<HostReport> reports(o.hosts.size());
  run_bounded(o.hosts.size(), o.fanout,
              [&](size_t i) { reports[i] = check_host(o.hosts[i], ro, runner); });
  if (o.json) {
    std::cout << fleet_to_json(reports, o.npd_exit_codes).dump(2) << "\n";
  } else {
    render_fleet_text(reports, std::cout);
  }
  return fleet_exit_code(reports, o.npd_exit_codes);
}

}  // namespace gt
