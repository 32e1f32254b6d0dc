// The answer first (issue 52): the operator's habit is `nvidia-smi | head
// -40`, so `gpu-triage | head -24` at 80 columns carries the verdict, one
// line per critical and warning finding, and what to do first (the plan's
// first step, its commands when they fit); the details follow as before.
#pragma once

#include <cstddef>
#include <string>

#include "model/report.h"
#include "render/painter.h"

namespace gt {

/// The lines the verdict line and this block fill together, at most.
inline constexpr size_t kFirstScreenLines = 24;
/// The most lines of the first step's text shown in the block.
inline constexpr size_t kFirstStepTextLines = 3;

/// The block printed under the verdict line, ending with a blank line; empty
/// when no finding is critical or warning. Each such finding is one line (its
/// severity and title, clipped to `width` with "~" unless `wide`); then "do
/// first" with the plan's first step (its text in at most
/// kFirstStepTextLines lines) and its commands, or, when they do not fit in
/// kFirstScreenLines, one line saying where they are. Findings that do not fit
/// are counted on one line. Every outside string is shown through
/// for_terminal.
std::string first_screen(const Report& r, size_t width, bool wide, const Painter& paint);

}  // namespace gt
