// The fleet's gather answer (what the remote gather script prints over ssh,
// src/fleet/remote.cc): each input is the whole of ssh's stdout. It is
// parsed, laid out as the scratch tree, read by the ordinary readers and
// judged (or taken as the native report), and the fleet JSON printed. The
// answer is data: nothing outside the scratch tree may be read for it.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "collect/gathered.h"
#include "fleet/correlate.h"
#include "fleet/fleet_report.h"
#include "fleet/remote.h"
#include "fuzz_target.h"
#include "render/fleet_render.h"
#include "util/json_text.h"

namespace gather_fuzz {

class Answer : public gt::CommandRunner {
 public:
  explicit Answer(std::string out) : out_(std::move(out)) {}
  gt::CommandResult run(const std::vector<std::string>&, std::chrono::milliseconds) const override {
    gt::CommandResult r;
    r.exit_code = 0;
    r.out = out_;
    r.err =
        "Connexion ferm\xe9"
        "e par l'h\xf4te distant";
    return r;
  }

 private:
  std::string out_;
};

GT_FUZZ_TARGET(gather) {
  std::string out(reinterpret_cast<const char*>(data), size);
  gt::Gathered g = gt::parse_gathered(out);
  gt::RemoteOptions o;
  o.paths = {"/", "/data"};
  if (auto df = g.outs.find("df"); df != g.outs.end())
    (void)gt::parse_df(o.paths, df->second.text, df->second.text);
  // check_host needs the start marker; give it, so every input is judged.
  if (out.find("@@gt-gather") == std::string::npos) out = "@@gt-gather 1\n" + out;
  std::vector<gt::HostReport> hosts = {gt::check_host("n\xe9ud-1", o, Answer(out))};
  std::vector<gt::FleetFinding> fleet = gt::correlate_xids(hosts);
  gt::apply_fleet_findings(fleet, hosts);
  std::ostringstream text;
  gt::render_fleet_text(hosts, text);
  (void)gt::json_text(gt::fleet_to_json(hosts, false), 2);
  return 0;
}

}  // namespace gather_fuzz
