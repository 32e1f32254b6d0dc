// Report: a snapshot with what the checks concluded about it.
#pragma once

#include <optional>
#include <string>
#include <vector>

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

struct Report {
  NodeSnapshot snapshot;
  std::vector<Finding> findings;  ///< worst first
  Severity verdict = Severity::kOk;
  bool could_not_check = false;  ///< nothing to judge (no GPU anywhere): UNKNOWN
  std::vector<PlanStep> plan;
  int exit_code = 0;  ///< as the chosen --exit-codes profile maps the verdict
  bool operator==(const Report&) const = default;
};

/// "OK", "INFO", "WARNING", "CRITICAL" or "UNKNOWN": the verdict word.
std::string verdict_word(const Report& r);

}  // namespace gt
