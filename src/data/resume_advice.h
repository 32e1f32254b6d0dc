// "How to resume", said plainly for the layout's pipeline: which files to
// move away so its own resume redoes them, and the command's shape.
// SpecForge resumes by file existence, speculators after the highest index,
// EAGLE not at all (shared/reference/data-formats.md, section 1).
#pragma once

#include <string>
#include <vector>

#include "data/analysis.h"

namespace gt {

/// What the operator typed that the advice repeats.
struct ResumeContext {
  std::string resume_list;  ///< --resume-list, "" when not given
  std::string move_bad_to;  ///< --move-bad-to, "" when not given
  /// The options that decided which files are bad or changed ("--manifest
  /// M", "--values"), repeated in the move command so it moves the same set.
  std::vector<std::string> selection_options;
  /// Why the move is not offered yet ("a process still writes into DIR"):
  /// the advice says so instead of giving a command.
  std::string move_withheld;
  /// A live process writes under DIR: what a rerun redoes is not known yet,
  /// so the rerun step waits for it to stop (no command given as if ready).
  bool writer_running = false;
};

/// The paragraph's lines (empty when there is nothing to redo).
std::vector<std::string> resume_advice(const DataReport& r, const ResumeContext& c);

/// Whether the layout's pipeline skips samples by design, so a missing index
/// may be expected (SpecForge does not save a sample with NaN).
bool layout_skips_samples(Layout l);

/// The advice for stale temporary files (never "the writer died" while
/// `writer_running`).
std::string stale_advice(bool writer_running);

}  // namespace gt
