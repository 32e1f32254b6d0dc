#include "model/nvml_init.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gt {

TEST(NvmlInit, EveryOutcomeHasOneNameThatParsesBack) {
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(NvmlInitError::kOtherNvmlError); ++i) {
    const auto e = static_cast<NvmlInitError>(i);
    const std::string name = nvml_init_error_name(e);
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_EQ(parse_nvml_init_error(name), e) << name;
  }
  EXPECT_EQ(parse_nvml_init_error("NVML_ERROR_UNKNOWN"), std::nullopt);
  EXPECT_EQ(parse_nvml_init_error("timeout"), std::nullopt);
}

TEST(NvmlInit, NvmlsOwnReturnsAreTheirNames) {
  EXPECT_STREQ(nvml_init_error_name(NvmlInitError::kVersionMismatch),
               "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
  EXPECT_STREQ(nvml_init_error_name(NvmlInitError::kDriverNotLoaded),
               "NVML_ERROR_DRIVER_NOT_LOADED");
  EXPECT_STREQ(nvml_init_error_name(NvmlInitError::kNoPermission), "NVML_ERROR_NO_PERMISSION");
  EXPECT_STREQ(nvml_init_error_name(NvmlInitError::kGpuNotFound), "NVML_ERROR_GPU_NOT_FOUND");
  EXPECT_FALSE(nvml_returned(NvmlInitError::kLibraryNotFound));
  EXPECT_FALSE(nvml_returned(NvmlInitError::kLibraryUnusable));
  EXPECT_FALSE(nvml_returned(NvmlInitError::kTimeout));
  EXPECT_TRUE(nvml_returned(NvmlInitError::kDriverNotLoaded));
  EXPECT_TRUE(nvml_returned(NvmlInitError::kOtherNvmlError));
}

TEST(NvmlInit, TheWordIsNvmlsNameWhenItHasOne) {
  EXPECT_EQ(nvml_init_error_word(NvmlInitError::kOtherNvmlError, "NVML_ERROR_UNKNOWN"),
            "NVML_ERROR_UNKNOWN");
  EXPECT_EQ(nvml_init_error_word(NvmlInitError::kTimeout, std::nullopt), "TIMEOUT");
}

}  // namespace gt
