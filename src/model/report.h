// Report: a snapshot with what the checks concluded about it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/cuda_probe_result.h"
#include "model/finding.h"
#include "model/snapshot.h"

namespace gt {

/// One numbered step of the recovery plan.
struct PlanStep {
  std::string text;                      ///< what to do and why, one or two sentences
  std::vector<std::string> commands;     ///< the commands, in order
  std::vector<std::string> finding_ids;  ///< the findings it addresses
  /// The GPU a per-GPU step is about (bus id, else "index N" or the UUID):
  /// every finding about that GPU's hardware is in this one step.
  std::optional<std::string> gpu;
  bool operator==(const PlanStep&) const = default;
};

/// The step's fields (model/describe.h); its number is its place in the plan.
void describe(SelfOf<PlanStep> auto& p, auto& v) {
  v("text", p.text);
  v("commands", p.commands);
  v("finding_ids", p.finding_ids);
  v("gpu", p.gpu);
}

struct Report {
  NodeSnapshot snapshot;
  std::vector<Finding> findings;  ///< worst first
  Severity verdict = Severity::kOk;
  bool could_not_check = false;  ///< nothing to judge (no GPU anywhere): UNKNOWN
  std::vector<PlanStep> plan;
  int exit_code = 0;  ///< as the chosen --exit-codes profile maps the verdict
  bool operator==(const Report&) const = default;
};

/// A report's verdict, in rank order for a fleet's worst host: OK <
/// WARNING < UNKNOWN < CRITICAL. A report with info findings only is OK;
/// one where nothing could be checked is UNKNOWN.
enum class Verdict : uint8_t { kOk, kWarning, kUnknown, kCritical };
inline constexpr std::array kVerdicts{Verdict::kOk, Verdict::kWarning, Verdict::kUnknown,
                                      Verdict::kCritical};

Verdict report_verdict(const Report& r);

/// "OK", "WARNING", "UNKNOWN" or "CRITICAL": the verdict word.
const char* verdict_name(Verdict v);

/// verdict_name(report_verdict(r)).
std::string verdict_word(const Report& r);

/// The exit code of a verdict: Nagios's (0, 1, 3, 2) or, with `npd`, Node
/// Problem Detector's (0 ok, 1 problem, 2 unknown).
int verdict_exit_code(Verdict v, bool npd);

}  // namespace gt
