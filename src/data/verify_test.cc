// Damaged copies of real files (PyTorch 1.13, NumPy 1.24): each damage gives
// its exact problem code; intact files are never flagged, in either mode.
#include "data/verify.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "data/data_test_util.h"
#include "data/format.h"
#include "data/stream.h"

namespace gt {
namespace {

const char* kSpecforge0 = "torch/specforge/rows_0-4/data_0.ckpt";

struct Real {
  const char* path;
  const char* format;
};
const Real kReal[] = {
    {"torch/specforge/rows_0-4/data_0.ckpt", "torch-zip"},
    {"torch/specforge/rows_0-4/data_1.ckpt", "torch-zip"},
    {"torch/specforge/rows_0-4/data_2.ckpt", "torch-zip"},
    {"torch/specforge/rows_0-4/data_3.ckpt", "torch-zip"},
    {"torch/specforge/rows_4-8/data_4.ckpt", "torch-zip"},
    {"torch/specforge/rows_4-8/data_5.ckpt", "torch-zip"},
    {"torch/specforge-gz/rows_0-2000/data_0.ckpt.gz", "gzip"},
    {"torch/specforge-gz/rows_0-2000/data_1.ckpt.gz", "gzip"},
    {"torch/specforge-gz/rows_0-2000/data_2.ckpt.gz", "gzip"},
    {"torch/eagle/0/data_0.ckpt", "torch-zip"},
    {"torch/eagle/1/data_1.ckpt", "torch-zip"},
    {"torch/speculators/data_0.pt", "torch-zip"},
    {"torch/speculators/data_2.pt", "torch-zip"},
    {"torch/legacy/0/data_0.ckpt", "torch-legacy"},
    {"torch/legacy/0/data_1.ckpt", "torch-legacy"},
    {"numpy/fortran_f32.npy", "npy"},
    {"numpy/hidden_f16.npy", "npy"},
    {"numpy/ids_i64.npy", "npy"},
    {"numpy/sample_deflated.npz", "npz"},
    {"numpy/sample_stored.npz", "npz"},
};

TEST(DataVerifyTest, IntactRealFilesAreNeverFlagged) {
  for (const Real& r : kReal) {
    std::string bytes = real_fixture(r.path);
    ASSERT_FALSE(bytes.empty()) << r.path;
    for (bool deep : {false, true}) {
      FileCheck c = check_bytes(bytes, deep, r.path);
      EXPECT_EQ(first_code(c), "ok")
          << r.path << (deep ? " deep: " : " quick: ") << first_message(c);
      EXPECT_EQ(c.format, r.format) << r.path;
    }
  }
  for (bool deep : {false, true}) {
    EXPECT_EQ(first_code(check_bytes(make_safetensors(20000), deep, "m.safetensors")), "ok");
    EXPECT_EQ(first_code(check_bytes(make_npy_f32(10000), deep, "a.npy")), "ok");
  }
}

TEST(DataVerifyTest, EmptyFile) {
  FileCheck c = check_bytes("", false);
  EXPECT_EQ(first_code(c), "empty");
}

TEST(DataVerifyTest, TruncatedCopiesOfEachFormat) {
  for (const Real& r : kReal) {
    std::string bytes = real_fixture(r.path);
    std::string half = bytes.substr(0, bytes.size() / 2);
    for (bool deep : {false, true})
      EXPECT_EQ(first_code(check_bytes(half, deep, r.path)), "truncated")
          << r.path << ": " << first_message(check_bytes(half, deep, r.path));
  }
  FileCheck c = check_bytes(real_fixture(kSpecforge0).substr(0, 5000), false);
  EXPECT_EQ(first_message(c), "no end-of-central-directory record (truncated at byte 5000)");
  std::string st = make_safetensors(1000);
  EXPECT_EQ(first_code(check_bytes(st.substr(0, st.size() - 10), false, "m.safetensors")),
            "truncated");
}

TEST(DataVerifyTest, ZeroFilledFilesAndTails) {
  for (const Real& r : kReal) {
    std::string zeros(real_fixture(r.path).size(), '\0');
    EXPECT_EQ(first_code(check_bytes(zeros, false, r.path)), "zero-filled") << r.path;
  }
  // A full-size torch file whose tail (the central directory) reads back as zeros.
  std::string bytes = real_fixture(kSpecforge0);
  std::fill(bytes.end() - 512, bytes.end(), '\0');
  EXPECT_EQ(first_code(check_bytes(bytes, false)), "zero-filled");
  // gzip: the trailer zeroed.
  std::string gz = real_fixture("torch/specforge-gz/rows_0-2000/data_0.ckpt.gz");
  std::fill(gz.end() - 8, gz.end(), '\0');
  EXPECT_EQ(first_code(check_bytes(gz, false, "data_0.ckpt.gz")), "zero-filled");
}

TEST(DataVerifyTest, ZeroBlockInsideTensorDataIsFoundByDeepMode) {
  std::string npy = make_npy_f32(10000);  // 40 KB of 1.0f
  std::fill(npy.begin() + 8192, npy.begin() + 8192 + 4096, '\0');
  EXPECT_EQ(first_code(check_bytes(npy, false, "a.npy")), "ok");  // sizes still agree
  FileCheck c = check_bytes(npy, true, "a.npy");
  EXPECT_EQ(first_code(c), "zero-filled");
  EXPECT_EQ(first_message(c), "array data: 1 all-zero 4 KiB block(s), the first at byte 8192");
  std::string st = make_safetensors(20000);
  std::fill(st.end() - 12288, st.end(), '\0');  // preallocated, never written
  EXPECT_EQ(first_code(check_bytes(st, true, "m.safetensors")), "zero-filled");
  EXPECT_EQ(first_code(check_bytes(st, false, "m.safetensors")), "ok");
}

TEST(DataVerifyTest, FlippedByteInTorchRecordIsAChecksumFailureInDeepModeOnly) {
  std::string bytes = real_fixture(kSpecforge0);
  bytes[1100] ^= 0x01;  // inside data_0/data/2 (hidden_state, bf16)
  EXPECT_EQ(first_code(check_bytes(bytes, false)), "ok");  // torch.load would accept it too
  FileCheck c = check_bytes(bytes, true);
  EXPECT_EQ(first_code(c), "checksum");
  EXPECT_EQ(first_message(c).substr(0, 49), "record data_0/data/2: CRC32 want 0xE25228DD, got ");
}

TEST(DataVerifyTest, ChecksumFailuresInGzipAndNpz) {
  std::string gz = real_fixture("torch/specforge-gz/rows_0-2000/data_1.ckpt.gz");
  gz[gz.size() - 6] ^= 0x40;  // the trailer's CRC/length
  EXPECT_EQ(first_code(check_bytes(gz, true, "data_1.ckpt.gz")), "checksum");
  std::string stored = real_fixture("numpy/sample_stored.npz");
  stored[1000] ^= 0x01;  // inside hidden.npy's data
  EXPECT_EQ(first_code(check_bytes(stored, false, "s.npz")), "ok");
  EXPECT_EQ(first_code(check_bytes(stored, true, "s.npz")), "checksum");
  std::string deflated = real_fixture("numpy/sample_deflated.npz");
  deflated[600] ^= 0x10;
  EXPECT_EQ(first_code(check_bytes(deflated, true, "d.npz")), "checksum");
}

TEST(DataVerifyTest, SizeMismatches) {
  // data.pkl says storage 0 has 21 elements; its record holds 20 x int64.
  std::string bytes = real_fixture(kSpecforge0);
  size_t at = bytes.find(std::string("cpuq\x06K\x14t", 8));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 6] = 0x15;
  FileCheck c = check_bytes(bytes, false);
  EXPECT_EQ(first_code(c), "size-mismatch");
  EXPECT_EQ(first_message(c), "record data_0/data/0: 160 bytes, data.pkl says 168 (21 x Long)");
  // Bytes appended after the end.
  EXPECT_EQ(first_code(check_bytes(real_fixture(kSpecforge0) + "junk", false)), "size-mismatch");
  EXPECT_EQ(first_code(check_bytes(real_fixture("numpy/ids_i64.npy") + "x", false, "a.npy")),
            "size-mismatch");
  EXPECT_EQ(first_code(check_bytes(make_safetensors(10) + "x", false, "m.safetensors")),
            "size-mismatch");
  EXPECT_EQ(first_code(check_bytes(real_fixture("torch/legacy/0/data_0.ckpt") + "x", false)),
            "size-mismatch");
}

TEST(DataVerifyTest, MalformedHeaders) {
  std::string bytes = real_fixture(kSpecforge0);
  size_t cd = bytes.rfind("PK\x01\x02");
  bytes[cd + 2] = 'X';
  EXPECT_EQ(first_code(check_bytes(bytes, false)), "malformed");
  std::string npy = real_fixture("numpy/ids_i64.npy");
  npy.replace(11, 5, "xxxxx");  // 'descr' key gone
  EXPECT_EQ(first_code(check_bytes(npy, false, "a.npy")), "malformed");
  std::string st = make_safetensors(10);
  st[9] = '[';
  EXPECT_EQ(first_code(check_bytes(st, false, "m.safetensors")), "malformed");
  EXPECT_EQ(first_code(check_bytes("just some text", false, "data_9.pt")), "malformed");
  EXPECT_EQ(first_code(check_bytes("just some text", false, "notes.txt")), "ok");
}

TEST(DataVerifyTest, AbsurdHeaderLengthsAreProblemsNotAllocations) {
  std::string npy = real_fixture("numpy/ids_i64.npy");
  npy[6] = 2;  // v2.0: a 4-byte header length, here 0xFFFF0076
  npy[10] = '\xff';
  npy[11] = '\xff';
  EXPECT_EQ(first_code(check_bytes(npy, false, "a.npy")), "malformed");
  std::string st = make_safetensors(10);
  std::string absurd = st;
  absurd[7] = '\x7f';  // header length ~ 2^63
  std::vector<std::unique_ptr<StreamConsumer>> consumers;
  EXPECT_EQ(first_code(check_bytes(absurd, false, "m.safetensors")), "malformed");
  // A zip whose EOCD claims a 4 GiB central directory.
  std::string zip = real_fixture("numpy/sample_stored.npz");
  size_t eocd = zip.size() - 22;
  zip[eocd + 12] = zip[eocd + 13] = zip[eocd + 14] = zip[eocd + 15] = '\xff';
  EXPECT_EQ(first_code(check_bytes(zip, false, "s.npz")), "malformed");
}

TEST(DataVerifyTest, Crc32MatchesZlib) {
  std::string data(100000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = char(i * 7 + (i >> 5));
  for (size_t n : {0, 1, 3, 64, 4095, 100000}) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(data.data());
    EXPECT_EQ(crc32_update(0, p, n), crc32(0, p, n)) << n;
    EXPECT_EQ(crc32_update(crc32_update(0, p, n / 2), p + n / 2, n - n / 2), crc32(0, p, n));
  }
}

TEST(DataVerifyTest, FormatDetectionByMagicNotName) {
  EXPECT_EQ(detect_format(real_fixture(kSpecforge0).substr(0, 512), 6809), FileFormat::kZip);
  EXPECT_EQ(detect_format(real_fixture("numpy/ids_i64.npy"), 224), FileFormat::kNpy);
  FileCheck c = check_bytes(real_fixture("numpy/ids_i64.npy"), false, "data_3.ckpt");
  EXPECT_EQ(c.format, "npy");
  EXPECT_EQ(first_code(c), "ok");
}

}  // namespace
}  // namespace gt
