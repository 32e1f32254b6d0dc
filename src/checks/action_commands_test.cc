#include "checks/action_commands.h"

#include <gtest/gtest.h>

#include "model/xid_catalog.h"

namespace gt {
namespace action_commands_test {

TEST(ActionCommands, NamedCommandsBecomeCommandsWithTheGpu) {
  EXPECT_EQ(action_commands("Drain and reset it (nvidia-smi -r -i <index>); if it recurs, run "
                            "diagnostics (dcgmi diag -r 3)",
                            "2"),
            (std::vector<std::string>{"sudo nvidia-smi -r -i 2", "dcgmi diag -r 3 -i 2"}));
  EXPECT_EQ(action_commands("Monitor corrected ECC counts (nvidia-smi -q -d ECC)", "0000:47:00.0"),
            std::vector<std::string>{"nvidia-smi -q -d ECC -i 0000:47:00.0"});
  EXPECT_TRUE(action_commands("Restart the application", "2").empty());
  EXPECT_TRUE(action_commands("reset (nvidia-smi -r -i <index>)", "").empty());
  EXPECT_EQ(fill_target("reset (nvidia-smi -r -i <index>)", "3"), "reset (nvidia-smi -r -i 3)");
}

// Every catalogue action that names a command in its text gets it as a
// command: no "(nvidia-smi ...)" left as words only.
TEST(ActionCommands, EveryCatalogueCommandIsRecognised) {
  int with_command = 0;
  for (int code = 1; code < 1000; ++code) {
    const XidEntry* e = find_xid(code);
    if (!e) e = find_sxid(code);
    if (!e) continue;
    const std::string text = e->action_text;
    const bool names =
        text.find("nvidia-smi") != std::string::npos || text.find("dcgmi") != std::string::npos;
    if (!names) continue;
    ++with_command;
    EXPECT_FALSE(action_commands(text, "5").empty()) << "Xid " << code << ": " << text;
    EXPECT_EQ(fill_target(text, "5").find("<index>"), std::string::npos);
  }
  EXPECT_GE(with_command, 22);
}

TEST(DrasticCommands, RebootAndResetLinesAreKnownByEveryStep) {
  EXPECT_TRUE(is_reboot_command("reboot"));
  EXPECT_TRUE(is_reboot_command("sudo reboot"));
  EXPECT_TRUE(is_reboot_command("sudo systemctl reboot"));
  EXPECT_FALSE(is_reboot_command("journalctl -b -1 | grep reboot"));
  EXPECT_TRUE(is_reset_command("sudo nvidia-smi -r -i 3"));
  EXPECT_TRUE(is_reset_command("nvidia-smi --gpu-reset -i 5   # after stopping its processes"));
  EXPECT_FALSE(is_reset_command("nvidia-smi -q -i 3"));
}

}  // namespace action_commands_test
TEST(ActionCommands, TheEvidenceComesBeforeAResetOrAReboot) {
  std::vector<std::string> reset = {"sudo nvidia-smi -r -i 3", "nvidia-smi -q -i 3"};
  bundle_before_drastic(reset);
  EXPECT_EQ(reset, (std::vector<std::string>{"sudo gpu-triage bundle", "sudo nvidia-smi -r -i 3",
                                             "nvidia-smi -q -i 3"}));
  bundle_before_drastic(reset);  // never twice
  EXPECT_EQ(reset.size(), 3u);
  std::vector<std::string> reboot = {"systemctl reboot"};  // as root: no sudo
  bundle_before_drastic(reboot);
  EXPECT_EQ(reboot, (std::vector<std::string>{"gpu-triage bundle", "systemctl reboot"}));
  std::vector<std::string> mild = {"sudo systemctl restart nvidia-persistenced"};
  bundle_before_drastic(mild);
  EXPECT_EQ(mild.size(), 1u);
}

}  // namespace gt
