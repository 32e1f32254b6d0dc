#include "model/cpu_list.h"

#include <gtest/gtest.h>

namespace gt {
namespace cpu_list_test {

TEST(CpuList, ParsesTheKernelsListFormat) {
  std::optional<CpuList> c = parse_cpu_list("0-31,64-95\n");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->count(), 64u);
  EXPECT_EQ(format_cpu_list(*c), "0-31,64-95");
  EXPECT_EQ(format_cpu_list(*parse_cpu_list("7")), "7");
  EXPECT_EQ(format_cpu_list(*parse_cpu_list(" 3,1,2,9-10,0 ")), "0-3,9-10") << "merged";
  EXPECT_EQ(format_cpu_list(*parse_cpu_list("0-4,2-8")), "0-8") << "overlapping";
}

TEST(CpuList, AnEmptyLineIsTheEmptyListOfAMemoryOnlyNode) {
  std::optional<CpuList> c = parse_cpu_list("\n");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->empty());
  EXPECT_EQ(c->count(), 0u);
}

TEST(CpuList, GarbageIsNoList) {
  for (const char* bad : {"a", "1-", "-3", "5-2", "1,,2", "1 2", "0-70000", "0x3",
                          "18446744073709551616", "1-2-3", ","})
    EXPECT_FALSE(parse_cpu_list(bad)) << bad;
  std::string many;
  for (int i = 0; i < 5000; ++i) many += std::to_string(2 * i) + ",";
  many += "0";
  EXPECT_FALSE(parse_cpu_list(many)) << "bounded";
}

TEST(CpuList, IntersectsAndContains) {
  const CpuList node0 = *parse_cpu_list("0-15,32-47");
  const CpuList node1 = *parse_cpu_list("16-31,48-63");
  const CpuList pinned = *parse_cpu_list("8-11");
  EXPECT_TRUE(node0.intersects(pinned));
  EXPECT_FALSE(node1.intersects(pinned));
  EXPECT_FALSE(node0.intersects(node1));
  EXPECT_TRUE(node0.contains(pinned));
  EXPECT_FALSE(node1.contains(pinned));
  EXPECT_FALSE(pinned.contains(node0));
  EXPECT_FALSE(CpuList{}.intersects(node0));
  EXPECT_TRUE(node0.contains(CpuList{}));
}

}  // namespace cpu_list_test
}  // namespace gt
