#include "history/state_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "history/record.h"
#include "util/test_util.h"

namespace gt {
namespace {

TEST(StateFile, WrittenRecordReadsBackTheSame) {
  TempTree t;
  t.write("/proc/sys/kernel/random/boot_id", "0f2c-boot\n");
  std::vector<std::string> warnings;
  Result<GpuHistory> h = open_history(t.path("/state"), t.root(), warnings);
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->boot_id, "0f2c-boot");
  add_run(*h, 1700000000, {{"GPU-1", "gpu.xid.79"}});
  ASSERT_TRUE(write_history(*h));
  Result<GpuHistory> back = read_history(t.path("/state"), warnings);
  ASSERT_TRUE(back);
  EXPECT_EQ(history_to_json(*back), history_to_json(*h));
  EXPECT_TRUE(warnings.empty());
  EXPECT_FALSE(
      std::filesystem::exists(t.path("/state/history.json.tmp-") + std::to_string(::getpid())));
}

TEST(StateFile, CorruptFileIsSetAsideWithAWarning) {
  TempTree t;
  t.write("/state/history.json", "{\"schema\": \"gpu-triage/history\", \"boots\": [");
  std::vector<std::string> warnings;
  Result<GpuHistory> h = read_history(t.path("/state"), warnings);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->boots.empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("set aside as"), std::string::npos) << warnings[0];
  EXPECT_FALSE(std::filesystem::exists(t.path("/state/history.json")));
  int aside = 0;
  for (const auto& e : std::filesystem::directory_iterator(t.path("/state")))
    aside += e.path().filename().string().starts_with("history.json.corrupt-");
  EXPECT_EQ(aside, 1);
}

TEST(StateFile, NoBootIdOrNoDirectoryIsAnError) {
  TempTree t;
  std::vector<std::string> warnings;
  Result<GpuHistory> h = open_history(t.path("/state"), t.root(), warnings);
  ASSERT_FALSE(h);
  EXPECT_NE(h.error().message.find("no boot id"), std::string::npos);
  t.write("/proc/sys/kernel/random/boot_id", "b\n");
  t.write("/file", "x");
  h = open_history(t.path("/file"), t.root(), warnings);
  ASSERT_FALSE(h);
  EXPECT_NE(h.error().message.find("not a directory"), std::string::npos);
}

}  // namespace
}  // namespace gt
