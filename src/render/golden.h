// Golden-file comparison for renderer tests. GT_UPDATE_GOLDEN=1 rewrites the
// files instead of comparing (review the diff before committing).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace gt {

inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(GT_SOURCE_DIR) + "/tests/golden/" + name;
  if (const char* u = std::getenv("GT_UPDATE_GOLDEN"); u && *u == '1') {
    std::ofstream(path) << actual;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing golden file " << path
                         << " (run with GT_UPDATE_GOLDEN=1 to create it)";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(want.str(), actual) << "golden file " << path << " differs";
}

}  // namespace gt
