// make bench, the readers of saved reports and the redaction (issue 48).
// Each figure is against a baseline measured in the same run, on the same
// machine, so the ratios, not the seconds, are what to compare:
//   - report_from_json_text over a report holding an array of N small
//     objects (N = 100,000 and 400,000), against nlohmann's own parser
//     without a callback over the same text (linear). nlohmann's callback
//     parser, which the depth bound used before, took 32 s for N = 100,000
//     (816 KB): quadratic.
//   - redact_secrets over a log of N distinct secret names (A1_TOKEN=x ...),
//     against the same number of bytes of a kernel log with no secret. The
//     list of names said was searched once per name: quadratic (a 3.6 MB
//     kernel log: bundle 17 s).
// Linear means: the ratio to the baseline stays about the same when N grows
// fourfold.
#include <chrono>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "render/test_snapshot.h"
#include "report/json_report.h"
#include "report/json_report_read.h"
#include "util/json_text.h"
#include "util/redact.h"

namespace {

using J = nlohmann::ordered_json;

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string report_with_objects(int n) {
  J j = gt::report_to_json(gt::make_test_report());
  J many = J::array();
  for (int i = 0; i < n; ++i) many.push_back(J{{"a", i}});
  j["unknown_array"] = std::move(many);
  return gt::json_text(j);
}

void saved_report(int n) {
  const std::string text = report_with_objects(n);
  bool ok = false;
  const double ours = seconds([&] { ok = gt::report_from_json_text(text).ok(); });
  const double base = seconds([&] { (void)J::parse(text); });
  std::printf(
      "  %7d objects (%5.1f MB)  report_from_json_text %7.3f s  J::parse %7.3f s  %5.2fx%s\n", n,
      text.size() / 1e6, ours, base, ours / base, ok ? "" : "  (NOT READ)");
}

void redaction(int n) {
  std::string names, plain;
  for (int i = 0; i < n; ++i) names += "A" + std::to_string(i) + "_TOKEN=x\n";
  while (plain.size() < names.size())
    plain += "[12.3] NVRM: Xid (PCI:0000:3b:00): 79, pid=123, GPU has fallen off the bus.\n";
  plain.resize(names.size());
  size_t said = 0;
  const double ours = seconds([&] { said = gt::redact_secrets(names).what.size(); });
  const double base = seconds([&] { (void)gt::redact_secrets(plain); });
  std::printf(
      "  %7d names   (%5.1f MB)  distinct names %7.3f s  no secret %7.3f s  %5.2fx (%zu said)\n", n,
      names.size() / 1e6, ours, base, ours / base, said);
}

}  // namespace

int main() {
  std::printf(
      "saved report: an array of small objects, against nlohmann's parser without a callback\n");
  saved_report(100000);
  saved_report(400000);
  std::printf("redaction: distinct secret names, against as many bytes of a plain kernel log\n");
  redaction(25000);
  redaction(100000);
  return 0;
}
