// The bundle's collectors that are other programs: `nvidia-smi -q -x` and
// NVIDIA's nvidia-bug-report.sh. Each runs in a child process group killed
// at its own deadline (the bug report "freezes in most cases" on a wedged
// driver, open-gpu-kernel-modules #1150); what it wrote before is kept and
// the outcome says it timed out.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "bundle/tree_copy.h"
#include "model/bundle.h"
#include "sources/kernel_log/command_runner.h"

namespace gt {

struct ChildCollected {
  CollectorOutcome outcome;
  std::vector<TreeEntry> members;
};

/// The executable `name` on $PATH, or empty.
std::string find_on_path(const std::string& name);

/// `nvidia-smi -q -x` as member "nvidia-smi.xml" (stdout, even when cut at
/// the deadline); skipped when nvidia-smi is not on $PATH.
ChildCollected collect_smi_xml(const CommandRunner& runner, std::chrono::milliseconds deadline);

/// nvidia-bug-report.sh writing into a scratch folder under `scratch_parent`;
/// every file it left there becomes "bug-report/NAME" (at most `cap_bytes`
/// each, its head), its output "bug-report/output.txt". Refused when the
/// script is not on $PATH.
ChildCollected collect_bug_report(const CommandRunner& runner, std::chrono::milliseconds deadline,
                                  const std::string& scratch_parent, uint64_t cap_bytes);

}  // namespace gt
