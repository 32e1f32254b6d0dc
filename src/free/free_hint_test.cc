#include "free/free_hint.h"

#include <gtest/gtest.h>

namespace gt {
namespace free_hint_test {

TEST(FreeHint, GpuListsAreWrittenAsGpusTakesThem) {
  EXPECT_EQ(gpus_arg({0, 2, 5, 6}), "0,2,5-6");
  EXPECT_EQ(gpus_arg({7}), "7");
  // What --gpus parses back is what was written.
  EXPECT_EQ(**parse_gpu_list(gpus_arg({6, 0, 2, 5})), (std::vector<uint32_t>{0, 2, 5, 6}));
}

TEST(FreeHint, CommandLinesCarryTheSelection) {
  FreeOptions o;
  o.gpus = std::vector<uint32_t>{0, 1, 3};
  o.pids = {3141, 3187};
  std::vector<std::string> args = selection_args(o);
  args.push_back("--whole-server");
  EXPECT_EQ(free_command(args),
            "`gpu-triage free --gpus 0-1,3 --pid 3141 --pid 3187 --whole-server`");
  EXPECT_EQ(whole_server_command(42), "`gpu-triage free --pid 42 --whole-server`");
  EXPECT_TRUE(selection_args(FreeOptions{}).empty());  // all GPUs: nothing to add
  FreeOptions w;
  w.gpus = std::vector<uint32_t>{2};
  w.whole_server = true;
  w.include_busy = true;  // not part of the selection
  EXPECT_EQ(free_command_adding(w, {"--whole-server", "--sample", "3s"}),
            "`gpu-triage free --gpus 2 --whole-server --sample 3s`");
}

}  // namespace free_hint_test
}  // namespace gt
