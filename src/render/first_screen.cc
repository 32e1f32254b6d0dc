#include "render/first_screen.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "render/shell_wrap.h"
#include "render/text_wrap.h"
#include "util/plural.h"
#include "util/terminal_text.h"

namespace gt {

namespace {

constexpr size_t kSeverityColumn = 11;  // "  critical " and "  warning  "

bool pressing(const Finding& f) {
  return f.severity == Severity::kCritical || f.severity == Severity::kWarning;
}

std::string finding_line(const Finding& f, size_t width, bool wide, const Painter& paint) {
  const std::string title = for_terminal(f.title);
  const size_t room = width > kSeverityColumn ? width - kSeverityColumn : 1;
  return "  " + paint(fmt::format("{:<9}", severity_name(f.severity)), severity_color(f.severity)) +
         (wide ? title : clip_shown(title, room)) + "\n";
}

/// The first step's text as lines (each ending "\n"), at most
/// kFirstStepTextLines, the last clipped with "~" when more would follow.
std::vector<std::string> step_text(const PlanStep& step, size_t width, bool wide) {
  std::istringstream in(wrap_words("  ", step.text, wide ? std::string::npos : width, 2));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.size() > kFirstStepTextLines) {
    lines.resize(kFirstStepTextLines);
    std::string& last = lines.back();
    last = clip_shown(last + " ~", width);
    if (!last.ends_with("~")) last += "~";
  }
  for (std::string& l : lines) l += "\n";
  return lines;
}

size_t line_count(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace

std::string first_screen(const Report& r, size_t width, bool wide, const Painter& paint) {
  std::vector<const Finding*> shown;
  for (const Finding& f : r.findings)
    if (pressing(f)) shown.push_back(&f);
  if (shown.empty()) return "";
  const size_t avail = kFirstScreenLines - 2;  // under the verdict line, above the blank one
  std::string step_lines, commands;
  if (!r.plan.empty()) {
    const PlanStep& first = r.plan.front();
    step_lines =
        paint(fmt::format("do first (step 1 of {} under \"what to do\"):", r.plan.size()), kBold) +
        "\n";
    for (const std::string& l : step_text(first, width, wide)) step_lines += l;
    for (const std::string& c : first.commands)
      commands += wide ? "      $ " + for_terminal(c) + "\n" : shell_wrap(for_terminal(c), width);
    // The commands in full only with every finding above them; else where they are.
    if (line_count(step_lines) + line_count(commands) + shown.size() > avail)
      commands = fmt::format("      ({}: step 1 below)\n",
                             count_of(first.commands.size(), "command", "commands"));
  }
  // Findings that do not fit are counted on one line of their own.
  const size_t room = avail - line_count(step_lines) - line_count(commands);
  const size_t listed = shown.size() <= room ? shown.size() : room - 1;
  std::string out;
  for (size_t i = 0; i < listed; ++i) out += finding_line(*shown[i], width, wide, paint);
  if (listed < shown.size())
    out += fmt::format("  ... and {} more (under \"findings\" below)\n", shown.size() - listed);
  return out + step_lines + commands + "\n";
}

}  // namespace gt
