#include "render/first_screen.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace gt {
namespace first_screen_test {

Finding finding(Severity s, std::string id, std::string title) {
  Finding f;
  f.severity = s;
  f.id = std::move(id);
  f.title = std::move(title);
  return f;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string screen(const Report& r, size_t width = 80) {
  return first_screen(r, width, false, Painter(false));
}

TEST(FirstScreen, NothingPressingAddsNothing) {
  Report r;
  r.findings = {finding(Severity::kInfo, "a.b", "a note"), finding(Severity::kOk, "c.d", "fine")};
  EXPECT_EQ(screen(r), "");
}

TEST(FirstScreen, EachPressingFindingOneLineThenTheFirstStepWithItsCommands) {
  Report r;
  r.findings = {finding(Severity::kCritical, "mount.missing", "/data is not mounted"),
                finding(Severity::kWarning, "memory.held_idle", std::string(120, 'w')),
                finding(Severity::kInfo, "x.y", "said below only")};
  r.plan = {{"Mount /data before resuming.", {"mount /data", "findmnt /data"}, {}, {}},
            {"Then the rest.", {"true"}, {}, {}}};
  std::vector<std::string> l = lines_of(screen(r));
  ASSERT_EQ(l.size(), 7u);
  EXPECT_EQ(l[0], "  critical /data is not mounted");
  EXPECT_EQ(l[1].size(), 80u);  // clipped to the width
  EXPECT_TRUE(l[1].starts_with("  warning  www") && l[1].ends_with("~")) << l[1];
  EXPECT_EQ(l[2], "do first (step 1 of 2 under \"what to do\"):");
  EXPECT_EQ(l[3], "  Mount /data before resuming.");
  EXPECT_EQ(l[4], "      $ mount /data");
  EXPECT_EQ(l[5], "      $ findmnt /data");
  EXPECT_EQ(l[6], "");
}

TEST(FirstScreen, CommandsThatDoNotFitAreSaidWhereTheyAre) {
  Report r;
  for (int i = 0; i < 10; ++i)
    r.findings.push_back(finding(Severity::kCritical, "gpu.lost", "GPU " + std::to_string(i)));
  PlanStep step{"Reboot.", {}, {}, {}};
  for (int i = 0; i < 14; ++i) step.commands.push_back("echo " + std::to_string(i));
  r.plan = {step};
  const std::string text = screen(r);
  std::vector<std::string> l = lines_of(text);
  EXPECT_LE(l.size() + 1, kFirstScreenLines);  // with the verdict line
  EXPECT_NE(text.find("GPU 9"), std::string::npos);
  EXPECT_NE(text.find("      (14 commands: step 1 below)"), std::string::npos) << text;
  EXPECT_EQ(text.find("echo 0"), std::string::npos);
}

TEST(FirstScreen, FindingsThatDoNotFitAreCounted) {
  Report r;
  for (int i = 0; i < 40; ++i)
    r.findings.push_back(finding(Severity::kWarning, "w", "warning " + std::to_string(i)));
  std::string long_text;
  for (int i = 0; i < 80; ++i) long_text += "word ";
  r.plan = {{long_text, {"a", "b"}, {}, {}}};
  std::vector<std::string> l = lines_of(screen(r));
  EXPECT_EQ(l.size() + 1, kFirstScreenLines);
  size_t step = 0;
  while (step < l.size() && !l[step].starts_with("do first")) ++step;
  ASSERT_LT(step, l.size());
  EXPECT_EQ(l[step - 1],
            "  ... and " + std::to_string(40 - (step - 1)) + " more (under \"findings\" below)");
  // The step's text: three lines at most, the last marked as cut.
  EXPECT_TRUE(l[step + 3].ends_with("~")) << l[step + 3];
  EXPECT_EQ(l[step + 4], "      (2 commands: step 1 below)");
}

TEST(FirstScreen, OutsideTextIsShownNotActedOn) {
  Report r;
  r.findings = {finding(Severity::kWarning, "w", "name\033[2J\nforged line")};
  const std::string text = screen(r);
  EXPECT_EQ(text.find('\033'), std::string::npos);
  EXPECT_EQ(lines_of(text).size(), 2u) << text;  // the finding and the blank line
}

}  // namespace first_screen_test
}  // namespace gt
