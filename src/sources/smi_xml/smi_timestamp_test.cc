#include "sources/smi_xml/smi_timestamp.h"

#include <gtest/gtest.h>

namespace gt {
namespace smi_timestamp_test {

TEST(SmiTimestamp, CtimeFormReadAsUtc) {
  EXPECT_EQ(smi_timestamp_unix_s("Wed Jun  7 19:32:16 2023"), 1686166336);
  EXPECT_EQ(smi_timestamp_unix_s("Thu Sep 15 13:53:22 2022"), 1663250002);
  EXPECT_EQ(smi_timestamp_unix_s("Mon Aug 7 11:10:06 2023"), 1691406606);  // padding collapsed
  EXPECT_EQ(smi_timestamp_unix_s("Thu Feb 29 00:00:00 2024"), 1709164800);
  EXPECT_EQ(smi_timestamp_unix_s("Thu Jan  1 00:00:00 1970"), 0);
}

TEST(SmiTimestamp, OtherFormsAndImpossibleDatesAreNull) {
  for (const char* t :
       {"", "N/A", "2026/07/14 08:12:53.353", "Wed Jun 7 19:32:16", "Wed Jun 7 19:32 2023",
        "Wed Foo 7 19:32:16 2023", "Xyz Jun 7 19:32:16 2023", "Wed Jun 31 19:32:16 2023",
        "Wed Feb 29 19:32:16 2023", "Wed Jun 7 24:00:00 2023", "Wed Jun 0 10:00:00 2023",
        "Wed Jun 7 10:00:00 1969", "Wed Jun 7 10:00:00 2023 UTC", "Wed Jun -7 10:00:00 2023",
        "Wed Jun 7 1a:00:00 2023"})
    EXPECT_EQ(smi_timestamp_unix_s(t), std::nullopt) << t;
}

}  // namespace smi_timestamp_test
}  // namespace gt
