// Helpers for the kernel-log unit tests: the real fixtures, local time, and
// every line's event before folding.
#pragma once

#include <gtest/gtest.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sources/kernel_log/nvrm_events.h"

namespace gt {

inline const std::string kFixtures = GT_SOURCE_DIR "/tests/fixtures/real/kernel-log/";

inline std::string read_fixture(const std::string& name) {
  std::ifstream in(kFixtures + name, std::ios::binary);
  if (!in) ADD_FAILURE() << "fixture missing from tests/fixtures/real: " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The fixtures live in the repository: a missing one is a failure, never a skip.
#define REQUIRE_FIXTURES()                              \
  ASSERT_TRUE(std::filesystem::is_directory(kFixtures)) \
      << "kernel-log fixtures missing: " << kFixtures

inline ParsedKernelLog parse_fixture(const std::string& name) {
  return parse_kernel_log_text(read_fixture(name), LogBoot::kFile);
}

inline int64_t local_unix(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d;
  tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = s, tm.tm_isdst = -1;
  return std::mktime(&tm);
}

/// Every event line of `text` as parsed, before folding (continuation lines
/// are not joined: a line is seen when it starts).
inline std::vector<KernelLogEvent> each_line(std::string_view text, LogBoot boot) {
  std::vector<KernelLogEvent> lines;
  klog::parse_text(text, boot, [&](KernelLogEvent& e) {
    lines.push_back(e);
    return false;
  });
  return lines;
}

}  // namespace gt
