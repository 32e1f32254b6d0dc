#include "model/fabric_state.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gt {

TEST(FabricState, EveryStateHasOneNameThatParsesBack) {
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(FabricState::kUnknown); ++i) {
    const auto s = static_cast<FabricState>(i);
    const std::string name = fabric_state_name(s);
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_EQ(parse_fabric_state(name), s) << name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"not_supported", "not_started", "in_progress",
                                          "completed", "unknown"}));
  EXPECT_EQ(parse_fabric_state("Completed"), std::nullopt);
  EXPECT_EQ(parse_fabric_state("unknown(5)"), std::nullopt);  // the reader takes the number
}

TEST(FabricState, EverySummaryHasOneNameThatParsesBack) {
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(FabricHealthSummary::kUnknown); ++i) {
    const auto s = static_cast<FabricHealthSummary>(i);
    const std::string name = fabric_health_summary_name(s);
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_EQ(parse_fabric_health_summary(name), s) << name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"healthy", "unhealthy", "limited_capacity", "unknown"}));
  EXPECT_EQ(parse_fabric_health_summary("limited capacity"), std::nullopt);
}

TEST(FabricState, AValueWithoutANameKeepsItsNumber) {
  EXPECT_EQ(name_with_code("unknown", 5), "unknown(5)");
  EXPECT_EQ(name_with_code("unknown", std::nullopt), "unknown");
  EXPECT_EQ(name_with_code("completed", std::nullopt), "completed");
}

}  // namespace gt
