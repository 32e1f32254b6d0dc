// Fuzz-like inputs: every prefix of small real files, random bytes behind
// each magic number. Each must give a clear problem (or none for random
// bytes of no format), never a crash, a hang or a huge allocation.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "data/data_test_util.h"
#include "data/formats/pickle_scan.h"

namespace gt {
namespace fuzz_test {

TEST(DataFuzzTest, EveryTruncationOfSmallRealFilesIsFlagged) {
  for (const char* path : {"torch/eagle/0/data_0.ckpt", "torch/legacy/0/data_0.ckpt",
                           "torch/specforge-gz/rows_0-2000/data_1.ckpt.gz", "numpy/ids_i64.npy",
                           "numpy/sample_deflated.npz"}) {
    std::string bytes = real_fixture(path);
    ASSERT_FALSE(bytes.empty());
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::string cut = bytes.substr(0, n);
      for (bool deep : {false, true}) {
        std::string code = first_code(check_bytes(cut, deep, path));
        EXPECT_TRUE(code == "truncated" || code == "empty" || (n < 600 && code == "malformed") ||
                    code == "zero-filled")
            << path << " cut at " << n << (deep ? " deep: " : " quick: ") << code;
      }
    }
  }
}

TEST(DataFuzzTest, RandomBytesBehindEachMagicNeverCrash) {
  std::mt19937_64 rng(42);
  const std::string magics[] = {"PK\x03\x04",
                                std::string("\x1f\x8b\x08\0", 4),
                                "\x93NUMPY\x01",
                                "\x93NUMPY\x02",
                                std::string("\x10\0\0\0\0\0\0\0{", 9),
                                "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19",
                                ""};
  for (int round = 0; round < 400; ++round) {
    for (const std::string& magic : magics) {
      std::string bytes = magic;
      size_t n = rng() % 3000;
      for (size_t i = 0; i < n; ++i) bytes += char(rng());
      if (round % 3 == 0) bytes += std::string("PK\x05\x06", 4) + std::string(18, char(rng()));
      for (bool deep : {false, true}) check_bytes(bytes, deep, "data_1.ckpt");
    }
  }
  SUCCEED();
}

TEST(DataFuzzTest, RandomByteFlipsInRealFilesNeverCrash) {
  std::mt19937_64 rng(7);
  for (const char* path : {"torch/specforge/rows_0-4/data_1.ckpt", "numpy/sample_stored.npz",
                           "torch/specforge-gz/rows_0-2000/data_0.ckpt.gz",
                           "torch/legacy/0/data_1.ckpt", "numpy/hidden_f16.npy"}) {
    std::string bytes = real_fixture(path);
    for (int round = 0; round < 300; ++round) {
      std::string copy = bytes;
      for (int k = 0; k < 4; ++k) copy[rng() % copy.size()] = char(rng());
      check_bytes(copy, true, path);
      check_bytes(copy, false, path);
    }
  }
  SUCCEED();
}

// Every reproducer kept in tests/fuzz/regressions/<target>/ (the libFuzzer
// targets replay them too): never intact, never a crash, read from memory or
// from a file, quick or deep. The pickle target's files are bare pickles.
TEST(DataFuzzTest, RegressionReproducersAreNeverIntact) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(GT_SOURCE_DIR) / "tests/fuzz/regressions";
  size_t files = 0;
  for (const char* target :
       {"zip", "npz", "pickle", "npy", "safetensors", "gzip", "torch_legacy"}) {
    ASSERT_TRUE(fs::is_directory(root / target)) << target;
    for (const fs::directory_entry& e : fs::directory_iterator(root / target)) {
      std::ifstream in(e.path(), std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_LE(bytes.size(), 200u << 10) << e.path();
      ++files;
      if (std::string(target) == "pickle") {
        EXPECT_FALSE(scan_pickle(bytes).complete) << e.path();
        continue;
      }
      for (bool deep : {false, true}) {
        EXPECT_NE(first_code(check_bytes(bytes, deep, "data_0.ckpt")), "ok") << e.path();
        EXPECT_NE(first_code(check_file_bytes(bytes, deep, "data_0.ckpt")), "ok") << e.path();
      }
    }
  }
  EXPECT_GE(files, 6u);
}

}  // namespace fuzz_test
}  // namespace gt
