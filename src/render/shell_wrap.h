// A plan's command as printed under its step: "      $ cmd", broken before
// the width at spaces outside quotes with " \" continuations, so the
// command still pastes as one (render/table_report.cc, render/first_screen.cc).
#pragma once

#include <cstddef>
#include <string>

namespace gt {

/// "      $ cmd\n", or its lines joined by " \\\n" continuations (indented
/// ten spaces) when it is wider than `width`; a comment is never broken.
std::string shell_wrap(const std::string& cmd, size_t width);

}  // namespace gt
