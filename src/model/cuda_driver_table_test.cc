#include "model/cuda_driver_table.h"

#include <gtest/gtest.h>

namespace gt {

TEST(CudaDriverTable, ParsesReleasesAndRefusesOtherText) {
  EXPECT_EQ(parse_cuda_release("12.8"), (CudaRelease{12, 8}));
  EXPECT_EQ(parse_cuda_release("12.8.57"), (CudaRelease{12, 8}));
  EXPECT_EQ(parse_cuda_release("13.0"), (CudaRelease{13, 0}));
  for (const char* bad : {"", "12", "12.", ".8", "12.x", "12.8a", "cu128", "-1.2", "123.4"})
    EXPECT_FALSE(parse_cuda_release(bad)) << bad;
  EXPECT_LT((CudaRelease{12, 4}), (CudaRelease{12, 8}));
  EXPECT_LT((CudaRelease{12, 9}), (CudaRelease{13, 0}));
}

TEST(CudaDriverTable, NvidiasPublishedDrivers) {
  EXPECT_EQ(toolkit_driver_for({12, 8}), "570.26");
  EXPECT_EQ(toolkit_driver_for({12, 4}), "550.54.14");
  EXPECT_EQ(toolkit_driver_for({13, 0}), "580.65.06");
  EXPECT_FALSE(toolkit_driver_for({12, 7}));  // there is no CUDA 12.7
  EXPECT_EQ(minor_compat_driver_for(12), "525.60.13");
  EXPECT_EQ(minor_compat_driver_for(11), "450.80.02");
  EXPECT_FALSE(minor_compat_driver_for(10));
}

}  // namespace gt
