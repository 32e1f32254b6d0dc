#include "data/layouts.h"

#include <gtest/gtest.h>

namespace gt {
namespace layouts_test {

TEST(DataLayoutsTest, SpecForgeIndexIsGlobal) {
  LayoutSpec s{Layout::kSpecForge};
  EXPECT_EQ(sample_key(s, "rows_2000-4000/data_2345.ckpt")->index, 2345);
  EXPECT_EQ(sample_key(s, "rows_0-2000/data_7.ckpt.gz")->index, 7);
  EXPECT_FALSE(sample_key(s, "rows_0-2000/data_7.ckpt.tmp"));
  EXPECT_FALSE(sample_key(s, "vocab_mapping/vocab_mapping.pt"));
  EXPECT_FALSE(sample_key(s, "data_7.ckpt"));
}

TEST(DataLayoutsTest, EagleKeysArePerWorker) {
  LayoutSpec s{Layout::kEagle};
  std::optional<SampleKey> k = sample_key(s, "3/data_12.ckpt");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->group, "3");
  EXPECT_EQ(k->index, 12);
  EXPECT_EQ(k->text(), "3/12");
  EXPECT_FALSE(sample_key(s, "x/data_12.ckpt"));
}

TEST(DataLayoutsTest, SpeculatorsAndFlat) {
  EXPECT_EQ(sample_key(LayoutSpec{Layout::kSpeculators}, "data_41.pt")->index, 41);
  LayoutSpec flat =
      detect_layout(Layout::kAuto, {"s_0001.npy", "s_0002.npy", "s_0010.npy", "readme.txt"});
  EXPECT_EQ(flat.kind, Layout::kFlat);
  EXPECT_EQ(flat.stem, "s_");
  EXPECT_EQ(flat.ext, ".npy");
  EXPECT_EQ(sample_key(flat, "s_0010.npy")->index, 10);
  EXPECT_FALSE(sample_key(flat, "t_0010.npy"));
}

TEST(DataLayoutsTest, AutoDetectionPicksThePipeline) {
  EXPECT_EQ(detect_layout(Layout::kAuto,
                          {"rows_0-4/data_0.ckpt", "rows_0-4/data_1.ckpt", "rows_4-8/data_4.ckpt"})
                .kind,
            Layout::kSpecForge);
  EXPECT_EQ(detect_layout(Layout::kAuto, {"0/data_0.ckpt", "0/data_1.ckpt", "1/data_0.ckpt"}).kind,
            Layout::kEagle);
  EXPECT_EQ(detect_layout(Layout::kAuto, {"data_0.pt", "data_1.pt", "data_config.json"}).kind,
            Layout::kSpeculators);
  EXPECT_EQ(detect_layout(Layout::kAuto, {"notes.txt"}).kind, Layout::kNone);
}

TEST(DataLayoutsTest, StaleTemporaryNames) {
  EXPECT_TRUE(is_stale_temp(".tmpab12cd"));
  EXPECT_TRUE(is_stale_temp("data_3.ckpt.tmp"));
  EXPECT_TRUE(is_stale_temp("data_3.ckpt.partial"));
  EXPECT_FALSE(is_stale_temp("data_3.ckpt"));
  EXPECT_FALSE(is_stale_temp("tmp_notes.txt"));
}

}  // namespace layouts_test
}  // namespace gt
