// --values through the verifiers: real files (PyTorch 1.13, NumPy 1.24)
// have no non-finite value; a NaN or Inf written into one (its CRC put
// right, so that only the value is wrong) is `non-finite`.
#include "data/formats/value_consumer.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "data/data_test_util.h"
#include "data/formats/pickle_scan.h"

namespace gt {
namespace value_consumer_test {

FileCheck check_values(const std::string& bytes, const std::string& name, bool allow = false) {
  MemorySource src(bytes);
  std::vector<uint8_t> buffer;
  VerifyOptions o;
  o.values = true;
  o.allow_non_finite = allow;
  return verify_source(src, name, o, buffer);
}

const char* kSpecforge0 = "torch/specforge/rows_0-4/data_0.ckpt";

// Element counts of the real files' float tensors (torch.load / np.load).
struct Real {
  const char* path;
  uint64_t tensors, elements, uncounted;
};
const Real kReal[] = {
    {"torch/specforge/rows_0-4/data_0.ckpt", 2, 20 * 32 + 20 * 96, 2},
    {"torch/eagle/0/data_0.ckpt", 1, 288, 2},
    {"torch/speculators/data_0.pt", 3, 1440, 2},
    {"torch/legacy/0/data_0.ckpt", 1, 128, 2},
    {"numpy/fortran_f32.npy", 1, 35, 0},
    {"numpy/hidden_f16.npy", 1, 12 * 32, 0},
    {"numpy/ids_i64.npy", 0, 0, 1},
    {"numpy/sample_deflated.npz", 1, 12 * 32, 1},
    {"numpy/sample_stored.npz", 1, 12 * 32, 1},
};

TEST(ValueConsumerTest, RealFilesHaveNoNonFiniteValues) {
  for (const Real& r : kReal) {
    FileCheck c = check_values(real_fixture(r.path), r.path);
    EXPECT_EQ(first_code(c), "ok") << r.path << ": " << first_message(c);
    ASSERT_TRUE(c.values) << r.path;
    EXPECT_EQ(c.values->non_finite(), 0u) << r.path;
    EXPECT_EQ(c.values->tensors, r.tensors) << r.path;
    EXPECT_EQ(c.values->elements, r.elements) << r.path;
    EXPECT_EQ(c.values->uncounted_tensors, r.uncounted) << r.path;
    EXPECT_EQ(c.values->zero_tensors, 0u) << r.path;
  }
  // gzip-wrapped torch zips are not decoded: values stay unknown.
  FileCheck gz =
      check_values(real_fixture("torch/specforge-gz/rows_0-2000/data_0.ckpt.gz"), "data_0.ckpt.gz");
  EXPECT_EQ(first_code(gz), "ok");
  EXPECT_FALSE(gz.values);
}

// `zip` with `bytes` written at `at` inside record `name`, and the record's
// CRC32 in its data descriptor and central entry put right.
std::string patch_record(std::string zip, const std::string& name, size_t at,
                         const std::string& bytes) {
  MemorySource src(zip);
  FileCheck ignored;
  std::optional<ZipDirectory> dir = read_zip_directory(src, ignored);
  EXPECT_TRUE(dir);
  for (const ZipEntry& e : dir->entries) {
    if (e.name != name) continue;
    size_t h = e.local_header_offset;
    size_t begin = h + 30 + (uint8_t(zip[h + 26]) | uint8_t(zip[h + 27]) << 8) +
                   (uint8_t(zip[h + 28]) | uint8_t(zip[h + 29]) << 8);
    zip.replace(begin + at, bytes.size(), bytes);
    uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(zip.data() + begin), e.compressed_bytes);
    put_le(zip, begin + e.compressed_bytes + 4, crc, 4);  // after "PK\x07\x08"
    size_t central = zip.find("PK\x01\x02", dir->cd_offset);
    while (zip.compare(central + 46, name.size(), name) != 0)
      central = zip.find("PK\x01\x02", central + 4);
    put_le(zip, central + 16, crc, 4);
    return zip;
  }
  ADD_FAILURE() << "no record " << name;
  return zip;
}

// The key of the first storage of `dtype` in a torch zip's data.pkl.
std::string storage_key(const std::string& zip, const std::string& prefix,
                        const std::string& dtype) {
  MemorySource src(zip);
  FileCheck ignored;
  std::optional<ZipDirectory> dir = read_zip_directory(src, ignored);
  for (const ZipEntry& e : dir->entries) {
    if (e.name != prefix + "/data.pkl") continue;
    size_t h = e.local_header_offset;
    size_t begin = h + 30 + (uint8_t(zip[h + 26]) | uint8_t(zip[h + 27]) << 8) +
                   (uint8_t(zip[h + 28]) | uint8_t(zip[h + 29]) << 8);
    for (const StorageRef& s : scan_pickle(zip.substr(begin, e.compressed_bytes)).storages)
      if (s.dtype == dtype) return s.key;
  }
  ADD_FAILURE() << "no " << dtype << " storage";
  return "";
}

TEST(ValueConsumerTest, NanInBFloat16TorchStorage) {
  std::string zip = real_fixture(kSpecforge0);
  std::string key = storage_key(zip, "data_0", "BFloat16");
  std::string bad = patch_record(zip, "data_0/data/" + key, 2 * 7, std::string("\xc0\x7f", 2));
  FileCheck deep = check_bytes(bad, true);
  EXPECT_EQ(first_code(deep), "ok") << "the CRC was put right: " << first_message(deep);
  FileCheck c = check_values(bad, "data_0.ckpt");
  EXPECT_EQ(first_code(c), "non-finite") << first_message(c);
  EXPECT_NE(first_message(c).find("1 NaN"), std::string::npos) << first_message(c);
  EXPECT_NE(first_message(c).find("storage " + key + " (BFloat16)"), std::string::npos);
  ASSERT_TRUE(c.values);
  EXPECT_EQ(c.values->nan, 1u);
  // Allowed: counted, not a problem.
  FileCheck allowed = check_values(bad, "data_0.ckpt", true);
  EXPECT_EQ(first_code(allowed), "ok");
  ASSERT_TRUE(allowed.values);
  EXPECT_EQ(allowed.values->nan, 1u);
}

TEST(ValueConsumerTest, ZeroStorageIsInformation) {
  std::string zip = real_fixture(kSpecforge0);
  std::string key = storage_key(zip, "data_0", "BFloat16");
  // hidden_state is 20 x 32 bf16 = 1280 bytes: under one 4 KiB zero block.
  std::string bytes(1280, '\0');
  bytes[1] = '\x80';  // -0.0 is zero too
  std::string zeroed = patch_record(zip, "data_0/data/" + key, 0, bytes);
  FileCheck c = check_values(zeroed, "data_0.ckpt");
  ASSERT_TRUE(c.values);
  if (c.values->zero_tensors == 0) GTEST_FAIL() << "storage " << key << " is not 1280 bytes";
  EXPECT_EQ(first_code(c), "ok");
  EXPECT_EQ(c.values->zero_tensors, 1u);
  EXPECT_EQ(c.values->zero_tensor_names.at(0), "storage " + key + " (BFloat16)");
  EXPECT_FALSE(c.values->all_zero());  // the other storage is not zero
}

TEST(ValueConsumerTest, InfInFloat16Safetensors) {
  std::string st = make_safetensors(100);
  size_t data = st.size() - 200;
  st[data + 2 * 40] = '\x00';
  st[data + 2 * 40 + 1] = '\x7c';  // +Inf
  st[data + 2 * 41 + 1] = '\xfc';  // -Inf (low byte already 0)
  FileCheck c = check_values(st, "m.safetensors");
  EXPECT_EQ(first_code(c), "non-finite") << first_message(c);
  ASSERT_TRUE(c.values);
  EXPECT_EQ(c.values->pos_inf, 1u);
  EXPECT_EQ(c.values->neg_inf, 1u);
  EXPECT_EQ(c.values->elements, 100u);
  EXPECT_EQ(c.values->uncounted_dtypes, std::vector<std::string>{"I64"});
  EXPECT_EQ(first_code(check_values(make_safetensors(100), "m.safetensors")), "ok");
}

TEST(ValueConsumerTest, NpyNanAndAllZero) {
  std::string npy = make_npy_f32(100);
  npy.replace(npy.size() - 4, 4, std::string("\x01\x00\xc0\x7f", 4));  // a NaN with a payload
  FileCheck c = check_values(npy, "a.npy");
  EXPECT_EQ(first_code(c), "non-finite") << first_message(c);
  EXPECT_EQ(c.values->nan, 1u);
  std::string zeros = make_npy_f32(100);
  std::fill(zeros.end() - 400, zeros.end(), '\0');
  FileCheck z = check_values(zeros, "z.npy");
  EXPECT_EQ(first_code(z), "ok");
  ASSERT_TRUE(z.values);
  EXPECT_TRUE(z.values->all_zero());
}

TEST(ValueConsumerTest, QuickModeAndDeepModeCountNothing) {
  FileCheck deep = check_bytes(make_npy_f32(10), true, "a.npy");
  EXPECT_FALSE(deep.values);
}

}  // namespace value_consumer_test
}  // namespace gt
