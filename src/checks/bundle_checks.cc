// A bundle's replay (gpu-triage --bundle, fleet --reports) judges what the
// archive holds. The archive carries its own record, manifest.json, with
// each member's size and sha256 as written: a member changed, lost or added
// since (an edited fstab, a copy cut short) is judged as it is now, so the
// replay is not the node's record and is never called clean.
#include "checks/checks.h"
#include "util/shell_word.h"

namespace gt {

void check_bundle_replay(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.bundle_replay || s.bundle_replay->unverified.empty()) return;
  const BundleReplay& b = *s.bundle_replay;
  Finding f = node_finding("bundle.unverified");
  f.title =
      "The bundle's members differ from its manifest.json: the replay judges what the "
      "archive holds now, not what was recorded";
  for (const std::string& u : b.unverified) f.evidence += (f.evidence.empty() ? "" : "; ") + u;
  f.action =
      "Get the bundle again from the node (or from whoever sent it) and compare; until then "
      "read this replay's verdict as unconfirmed.";
  f.commands = {"tar -tvf " + shell_word(b.file)};
  out.push_back(f);
}

}  // namespace gt
