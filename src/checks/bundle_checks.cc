// A bundle's replay (gpu-triage --bundle, fleet --reports) judges what the
// archive holds. The archive carries its own record, manifest.json, with
// each member's size and sha256 as written: a member changed, lost or added
// since (an edited fstab, a copy cut short) is judged as it is now, so the
// replay is not the node's record and is never called clean.
#include <algorithm>
#include <iterator>
#include <set>

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

void compare_with_record(Report& report) {
  if (!report.snapshot.bundle_replay) return;
  BundleReplay& b = *report.snapshot.bundle_replay;
  b.replayed_verdict = verdict_word(report);
  std::multiset<std::string> recorded(b.recorded_findings.begin(), b.recorded_findings.end());
  std::multiset<std::string> replayed;
  for (const Finding& f : report.findings) replayed.insert(replay_finding_key(f));
  b.differences.clear();
  std::vector<std::string> only;
  std::set_difference(recorded.begin(), recorded.end(), replayed.begin(), replayed.end(),
                      std::back_inserter(only));
  for (const std::string& k : only) b.differences.push_back("recorded only: " + k);
  only.clear();
  std::set_difference(replayed.begin(), replayed.end(), recorded.begin(), recorded.end(),
                      std::back_inserter(only));
  for (const std::string& k : only) b.differences.push_back("replayed only: " + k);
  // A hostile report can hold thousands of findings: the line stays a line.
  constexpr size_t kMaxDifferences = 20;
  if (b.differences.size() > kMaxDifferences) {
    const size_t more = b.differences.size() - kMaxDifferences;
    b.differences.resize(kMaxDifferences);
    b.differences.push_back("and " + std::to_string(more) + " more");
  }
  if (b.differences.empty() && *b.replayed_verdict == b.recorded_verdict) return;
  std::string line = "the replay differs from the bundle's recorded report: recorded " +
                     b.recorded_verdict + ", replayed " + *b.replayed_verdict;
  for (const std::string& d : b.differences) line += "; " + d;
  report.snapshot.warnings.push_back(line);
}

}  // namespace gt
