// Damaged copies of real files (PyTorch 1.13, NumPy 1.24): each damage gives
// its exact problem code; intact files are never flagged, in either mode.
#include "data/verify.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <fstream>
#include <iterator>
#include <tuple>

#include "data/data_test_util.h"
#include "data/format.h"
#include "data/formats/pickle_scan.h"
#include "data/stream.h"

namespace gt {
namespace verify_test {

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

// Zero bytes at the end, counted from the end (the first non-zero byte
// before them bounds the run).
size_t zero_tail(const std::string& b) {
  size_t n = 0;
  while (n < b.size() && b[b.size() - 1 - n] == '\0') ++n;
  return n;
}

TEST(DataVerifyTest, ZeroFilledTailSaysHowManyBytesAreZero) {
  // The case: 1,782 zero bytes where the central directory was
  // (it said "last 22 bytes are zero").
  std::string bytes = real_fixture(kSpecforge0);
  std::fill(bytes.end() - 1782, bytes.end(), '\0');
  const size_t n = zero_tail(bytes);
  ASSERT_GE(n, 1782u);
  EXPECT_EQ(first_message(check_bytes(bytes, false)),
            "last " + std::to_string(n) + " bytes are zero (from byte " +
                std::to_string(bytes.size() - n) + "): no end-of-central-directory");
  // Beyond the tail quick mode reads first (64 KiB and more): counted on.
  std::string big = real_fixture(kSpecforge0) + std::string(300000, '\0');
  const size_t m = zero_tail(big);
  EXPECT_EQ(first_message(check_bytes(big, false)),
            "last " + std::to_string(m) + " bytes are zero (from byte " +
                std::to_string(big.size() - m) + "): no end-of-central-directory");
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

TEST(DataPickleScanTest, InvalidOpcodesAreErrorsUnmodelledOnesUnsupported) {
  using namespace std::string_view_literals;
  PickleScan bad = scan_pickle("\x80\x02}\xff."sv);
  EXPECT_FALSE(bad.complete || bad.unsupported || bad.cut);
  EXPECT_EQ(*bad.error, "pickle byte 3: 0xff is not a pickle opcode (Python: invalid load key)");
  PickleScan text = scan_pickle("\x80\x02I1\n."sv);  // INT, text mode: valid, not modelled
  EXPECT_TRUE(text.unsupported);
  EXPECT_FALSE(text.complete || text.cut);
  PickleScan cut = scan_pickle("\x80\x02X\x10\0\0\0ab"sv);
  EXPECT_TRUE(cut.cut);
  EXPECT_FALSE(scan_pickle("\x80\x02N"sv).unsupported);
  EXPECT_TRUE(scan_pickle("\x80\x02N"sv).cut);
  // A memo index far beyond the memo: not a 56 MB allocation from 8 bytes.
  std::string_view sparse = "\x80\x02Nr\xff\xff\x0f\x00."sv;
  EXPECT_TRUE(scan_pickle(sparse).unsupported);
  save_regression("pickle", "pickle-long-binput-sparse-index.bin", std::string(sparse));
  // Protocol 2-5 opcodes that are now modelled: the walk reaches STOP.
  for (std::string_view ok :
       {"\x80\x04(\x8f(\x90\x91(d(l\x8b\x01\0\0\0\x05\x85."sv,
        "\x80\x04\x8d\x01\0\0\0\0\0\0\0a\x8e\0\0\0\0\0\0\0\0\x96\0\0\0\0\0\0\0\0."sv,
        "\x80\x02\x82\x01\x83\x01\0\x84\x01\0\0\0NN\x92."sv}) {
    PickleScan s = scan_pickle(ok);
    EXPECT_TRUE(s.complete) << s.error.value_or("");
  }
}

// Found by a sanitizer build and a mutation fuzzer: each was a crash, a read
// outside a buffer, or a silent "intact". The reproducers are kept in
// tests/fuzz/regressions/<target>/ (GT_WRITE_REGRESSIONS=1 rewrites them).

const char* kSpeculators0 = "torch/speculators/data_0.pt";
const char* kLegacy0 = "torch/legacy/0/data_0.ckpt";

bool has(const FileCheck& c, const std::string& text) {
  return first_message(c).find(text) != std::string::npos;
}

TEST(DataByteSourceTest, ReadsAtAnyOffsetStayInsideTheSource) {
  std::string bytes(100000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char(i * 13 + (i >> 8));
  TempTree t;
  for (size_t size : {size_t{0}, size_t{1000}, bytes.size()}) {
    std::string content = bytes.substr(0, size);
    t.write("/f", content);
    Result<std::unique_ptr<FileSource>> file = FileSource::open(t.path("/f"));
    ASSERT_TRUE(file);
    ASSERT_TRUE((*file)->prefetch(64 << 10, 4 << 10, 64 << 10));
    MemorySource memory(content);
    for (const ByteSource* src :
         {static_cast<const ByteSource*>(file->get()), static_cast<const ByteSource*>(&memory)}) {
      uint8_t buf[64];
      for (uint64_t off : {UINT64_MAX, UINT64_MAX - 55, UINT64_MAX - 10, uint64_t{1} << 63,
                           uint64_t(size), uint64_t(size) + 1})
        EXPECT_EQ(*src->read_at(off, buf, 56), 0u) << "size " << size << " offset " << off;
      EXPECT_EQ(*src->read_at(0, nullptr, 0), 0u);  // memcpy is never given a null pointer
      if (size < 10) continue;
      for (uint64_t off : {uint64_t{0}, uint64_t{50000}, uint64_t(size) - 10}) {
        if (off > size - 10) continue;
        Result<size_t> n = src->read_at(off, buf, 56);
        ASSERT_TRUE(n);
        EXPECT_EQ(*n, std::min<uint64_t>(56, size - off));
        EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), *n), content.substr(off, *n));
      }
    }
  }
}

// then_deep in one pass is the quick check followed, when it found nothing
// wrong, by the deep one: on every real format, intact, cut short at several
// points and with a byte flipped at several offsets (safetensors too).
TEST(DataVerifyTest, ThenDeepIsTheQuickCheckThenTheDeepOne) {
  std::vector<std::pair<std::string, std::string>> files;  // name, bytes
  for (const Real& r : kReal) files.emplace_back(r.path, real_fixture(r.path));
  files.emplace_back("m.safetensors", make_safetensors(20000));
  VerifyOptions quick, deep{true}, then_deep;
  then_deep.then_deep = true;
  std::vector<uint8_t> buffer;
  size_t compared = 0, bad = 0;
  for (const auto& [name, intact] : files) {
    std::vector<std::string> variants{intact};
    for (size_t cut : {size_t{1}, size_t{20}, intact.size() / 3, intact.size() - 5})
      if (cut < intact.size()) variants.push_back(intact.substr(0, cut));
    for (size_t at : {size_t{0}, size_t{9}, size_t{300}, intact.size() / 2, intact.size() - 30})
      if (at < intact.size()) {
        variants.push_back(intact);
        variants.back()[at] ^= 0x10;
      }
    for (const std::string& bytes : variants) {
      MemorySource src(bytes);
      FileCheck want = verify_source(src, name, quick, buffer);
      const bool quick_clean = !want.io_error && want.problems.empty();
      if (quick_clean) want = verify_source(src, name, deep, buffer);
      FileCheck got = verify_source(src, name, then_deep, buffer);
      EXPECT_EQ(first_code(got), first_code(want)) << name << " " << bytes.size();
      EXPECT_EQ(first_message(got), first_message(want)) << name << " " << bytes.size();
      EXPECT_EQ(got.problems.size(), want.problems.size()) << name << " " << bytes.size();
      EXPECT_EQ(got.deep_checked, quick_clean) << name << " " << bytes.size();
      ++compared;
      bad += !quick_clean;
    }
  }
  EXPECT_GT(bad, compared / 3);  // the damaged ones are mostly caught by the quick check
}

// The scan stats each file once, on the open file (FileSource::open_at): a
// file that grew or shrank between that stat and its reads is told by the
// lengths of the reads, small (one read) and big (head and tail), with no
// second stat.
TEST(DataByteSourceTest, ASizeChangedSinceTheStatShowsInTheReads) {
  TempTree t;
  const std::string small = real_fixture(kSpecforge0), big = big_torch_zip();
  const std::string path = t.path("/f");
  auto open = [&] {
    Result<FileSource::Opened> o = FileSource::open_at(AT_FDCWD, path.c_str(), path);
    EXPECT_TRUE(o && o->file) << (o ? "no regular file" : o.error().message);
    return o ? std::move(o->file) : nullptr;
  };
  for (const std::string& bytes : {small, big}) {
    std::vector<uint8_t> buffer;
    for (bool deep : {false, true}) {
      t.write("/f", bytes);
      FileCheck same = verify_file(open(), path, VerifyOptions{deep}, buffer);
      EXPECT_EQ(first_code(same), "ok") << bytes.size();
      EXPECT_FALSE(same.changed_while_read) << bytes.size() << " deep " << deep;
      EXPECT_EQ(same.deep_checked, deep);
      for (int moved : {-1, 1}) {
        t.write("/f", bytes);
        std::unique_ptr<FileSource> file = open();
        // Written between the stat and the reads: one byte longer, or shorter.
        t.write("/f", moved > 0 ? bytes + "x" : bytes.substr(0, bytes.size() - 1));
        FileCheck check = verify_file(std::move(file), path, VerifyOptions{deep}, buffer);
        EXPECT_TRUE(check.changed_while_read) << bytes.size() << " moved " << moved;
      }
    }
  }
}

// What open_at finds at a name that is no regular file: its kind, and no
// file to read (a FIFO is never read: it would block). A name gone is an error.
TEST(DataByteSourceTest, OpenAtTellsWhatANameIsWithoutReadingIt) {
  TempTree t;
  t.write("/f", "x");
  t.symlink(t.path("/f"), "/link");
  ASSERT_EQ(::mkfifo(t.path("/fifo").c_str(), 0600), 0);
  ASSERT_EQ(::mkdir(t.path("/dir").c_str(), 0700), 0);
  // Each its own mtime (the link's, not its target's): a name made there is
  // dated by itself.
  const struct timespec target[2] = {{2'000'000, 0}, {2'000'000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, t.path("/f").c_str(), target, 0), 0);
  for (const char* name : {"/link", "/fifo", "/dir"}) {
    const struct timespec own[2] = {{1'000'000, 0}, {1'000'000, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, t.path(name).c_str(), own, AT_SYMLINK_NOFOLLOW), 0) << name;
  }
  for (const auto& [name, mode] :
       {std::pair<std::string, mode_t>{"/link", S_IFLNK}, {"/fifo", S_IFIFO}, {"/dir", S_IFDIR}}) {
    const std::string p = t.path(name);
    Result<FileSource::Opened> o = FileSource::open_at(AT_FDCWD, p.c_str(), p);
    ASSERT_TRUE(o) << name << ": " << o.error().message;
    EXPECT_EQ(o->file, nullptr) << name;
    EXPECT_EQ(o->mode, mode) << name;
    EXPECT_EQ(o->mtime_unix_s, 1'000'000) << name;
  }
  const std::string gone = t.path("/gone");
  Result<FileSource::Opened> o = FileSource::open_at(AT_FDCWD, gone.c_str(), gone);
  ASSERT_FALSE(o);
  EXPECT_NE(o.error().message.find("opening " + gone), std::string::npos) << o.error().message;
}

// Quick mode's recent files: the quick check, then the deep one on the same
// open file; the deep one only when the quick one found nothing wrong.
TEST(DataByteSourceTest, ThenDeepChecksWholeOnlyWhatTheQuickCheckPassed) {
  TempTree t;
  std::string bad = real_fixture(kSpecforge0);
  bad[1100] ^= 0x01;  // inside data_0/data/2: only its CRC tells
  std::string cut = real_fixture(kSpecforge0).substr(0, 3000);  // the quick check tells
  std::vector<uint8_t> buffer;
  VerifyOptions then_deep;
  then_deep.then_deep = true;
  using Case = std::tuple<std::string, std::string, bool>;  // bytes, first code, deep-checked
  for (const auto& [bytes, code, deep] :
       {Case{real_fixture(kSpecforge0), "ok", true}, Case{bad, "checksum", true},
        Case{cut, first_code(check_bytes(cut, false)), false}}) {
    t.write("/f", bytes);
    FileCheck check = verify_path(t.path("/f"), then_deep, buffer);
    EXPECT_EQ(first_code(check), code);
    EXPECT_EQ(check.deep_checked, deep) << code;
    EXPECT_FALSE(check.changed_while_read);
  }
}

TEST(DataByteSourceTest, LengthsBeyondTheSourceAreNeverAllocated) {
  MemorySource m(std::string(100, 'x'));
  FileCheck c;
  std::optional<std::vector<uint8_t>> r = read_or_note(m, 10, SIZE_MAX, c);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), 90u);
  EXPECT_TRUE(read_or_note(m, UINT64_MAX, SIZE_MAX, c)->empty());
  EXPECT_TRUE(read_or_note(m, 100, 0, c)->empty());
  EXPECT_FALSE(read_exact(m, 10, SIZE_MAX));
  EXPECT_FALSE(read_exact(m, UINT64_MAX, 8));
  EXPECT_TRUE(read_exact(m, 100, 0));
  EXPECT_EQ(read_exact(m, 96, 8).error().message, "read 8 bytes at 96: end of file");
  EXPECT_EQ(checked_add(UINT64_MAX, 1), std::nullopt);
  EXPECT_EQ(checked_mul(uint64_t{1} << 61, 8), std::nullopt);
  EXPECT_EQ(checked_mul(uint64_t{1} << 60, 8), uint64_t{1} << 63);
  EXPECT_FALSE(range_within(UINT64_MAX, 56, 1000));
  EXPECT_TRUE(range_within(944, 56, 1000));
}

// The same bytes held by a source that lends none of them (ByteSource::held
// is nullptr): every read goes through read_at into a scratch buffer.
class LendsNothing : public ByteSource {
 public:
  explicit LendsNothing(const ByteSource& inner) : inner_(inner) {}
  uint64_t size() const override { return inner_.size(); }
  Result<size_t> read_at(uint64_t offset, uint8_t* out, size_t len) const override {
    return inner_.read_at(offset, out, len);
  }

 private:
  const ByteSource& inner_;
};

// view_or_note lends what the source holds and reads the rest: the same
// bytes and the same count as read_or_note, for any offset and length.
TEST(DataByteSourceTest, ViewsAreTheBytesAReadWouldCopy) {
  const std::string big = big_torch_zip();
  TempTree t;
  t.write("/big", big);
  Result<std::unique_ptr<FileSource>> file = FileSource::open(t.path("/big"));
  ASSERT_TRUE(file);
  ASSERT_TRUE((*file)->prefetch(64 << 10, 4 << 10, 64 << 10));
  MemorySource memory(big);
  LendsNothing nothing(memory);
  EXPECT_NE(memory.held(0, big.size()), nullptr);
  EXPECT_NE((*file)->held(0, 4 << 10), nullptr);             // the head
  EXPECT_NE((*file)->held(big.size() - 100, 100), nullptr);  // the tail
  ASSERT_GT(big.size(), (68u << 10) + 1000);
  EXPECT_EQ((*file)->held(5000, 100), nullptr);            // between: read with pread
  EXPECT_EQ((*file)->held(big.size() - 10, 11), nullptr);  // past the end
  for (const ByteSource* src :
       {static_cast<const ByteSource*>(file->get()), static_cast<const ByteSource*>(&memory),
        static_cast<const ByteSource*>(&nothing)})
    for (uint64_t off : {uint64_t{0}, uint64_t{4000}, uint64_t{5000}, uint64_t(big.size()) - 30,
                         uint64_t(big.size()), UINT64_MAX})
      for (size_t len : {size_t{0}, size_t{1}, size_t{200}, size_t{70000}, SIZE_MAX}) {
        FileCheck copied, lent;
        std::vector<uint8_t> scratch;
        std::optional<std::vector<uint8_t>> want = read_or_note(*src, off, len, copied);
        std::optional<std::span<const uint8_t>> got = view_or_note(*src, off, len, scratch, lent);
        ASSERT_TRUE(want && got);
        EXPECT_EQ(std::vector<uint8_t>(got->begin(), got->end()), *want) << off << " " << len;
        EXPECT_EQ(lent.bytes_read, copied.bytes_read) << off << " " << len;
      }
}

// Every verifier reads through views: through a source that lends nothing
// (each read copied) each file, intact or damaged, is judged the same.
TEST(DataVerifyTest, JudgedTheSameWhetherBytesAreLentOrRead) {
  std::vector<uint8_t> buffer;
  size_t bad = 0;
  for (const Real& r : kReal) {
    const std::string intact = real_fixture(r.path);
    std::vector<std::string> variants{intact, intact.substr(0, intact.size() - 5),
                                      intact.substr(0, intact.size() / 2)};
    for (size_t at : {size_t{0}, size_t{40}, intact.size() / 2, intact.size() - 60}) {
      variants.push_back(intact);
      variants.back()[at] ^= 0x10;
    }
    for (const std::string& bytes : variants)
      for (bool deep : {false, true}) {
        MemorySource memory(bytes);
        LendsNothing nothing(memory);
        FileCheck lent = verify_source(memory, r.path, VerifyOptions{deep}, buffer);
        FileCheck read = verify_source(nothing, r.path, VerifyOptions{deep}, buffer);
        EXPECT_EQ(first_code(lent), first_code(read)) << r.path << " " << bytes.size();
        EXPECT_EQ(first_message(lent), first_message(read)) << r.path << " " << bytes.size();
        EXPECT_EQ(lent.problems.size(), read.problems.size()) << r.path;
        EXPECT_EQ(lent.unverifiable, read.unverifiable) << r.path;
        EXPECT_EQ(lent.bytes_read, read.bytes_read) << r.path << " " << bytes.size();
        EXPECT_EQ(lent.format, read.format) << r.path;
        bad += !lent.problems.empty();
      }
  }
  EXPECT_GT(bad, 40u);  // the damaged copies are judged, not only the intact ones
}

TEST(DataHardeningTest, BigTorchZipBuiltForTheTestsIsIntact) {
  std::string big = big_torch_zip();
  ASSERT_GT(big.size(), 64u << 10);
  for (bool deep : {false, true}) {
    FileCheck c = check_file_bytes(big, deep, "data_0.pt");
    EXPECT_EQ(first_code(c), "ok") << first_message(c);
    EXPECT_EQ(c.format, "torch-zip");
  }
}

TEST(DataHardeningTest, CompressedSizeOfAllOnesInABigZipIsMalformedNotACrash) {
  for (uint32_t csize : {0xFFFFFFFEu, 0xFFFFFFFFu}) {
    std::string bad = big_torch_zip();
    put_le(bad, bad.rfind("PK\x01\x02") + 20, csize, 4);  // the padding record's central entry
    save_regression("zip", csize & 1 ? "zip-csize-ffffffff.bin" : "zip-csize-fffffffe.bin", bad);
    for (bool deep : {false, true}) {
      FileCheck c = check_file_bytes(bad, deep, "data_0.pt");  // was SIGSEGV
      EXPECT_EQ(first_code(c), "malformed") << first_message(c);
      EXPECT_TRUE(has(c, "run past the central directory")) << first_message(c);
      EXPECT_EQ(first_code(check_bytes(bad, deep, "data_0.pt")), "malformed");
    }
  }
}

TEST(DataHardeningTest, Zip64LocatorOffsetsOutsideTheFileAreMalformed) {
  for (const std::string& zip : {real_fixture(kSpeculators0), big_torch_zip()}) {
    const size_t loc = zip.size() - 22 - 20;
    ASSERT_EQ(zip.substr(loc, 4), std::string("PK\x06\x07", 4));
    for (uint64_t off : {UINT64_MAX, UINT64_MAX - 55, uint64_t(zip.size()), uint64_t(loc) - 55}) {
      std::string bad = zip;
      put_le(bad, loc + 8, off, 8);
      if (off == UINT64_MAX && zip.size() < 10000)
        save_regression("zip", "zip-zip64-locator-offset-all-ones.bin", bad);
      for (bool deep : {false, true}) {
        FileCheck c = check_file_bytes(bad, deep, "data_0.pt");  // was a heap overflow (ASan)
        EXPECT_EQ(first_code(c), "malformed") << off << ": " << first_message(c);
        EXPECT_TRUE(has(c, "zip64 locator points at byte " + std::to_string(off)));
        EXPECT_EQ(first_code(check_bytes(bad, deep, "data_0.pt")), "malformed");
      }
    }
  }
}

TEST(DataHardeningTest, InvalidOpcodeInTorchDataPklIsMalformed) {
  std::string bytes = real_fixture(kSpeculators0);
  size_t at = bytes.find("data_0/data.pkl");
  at = bytes.find(std::string("\x80\x02", 2), at);  // the pickle's PROTO
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(bytes[at + 2], '}');  // EMPTY_DICT, replaced by a byte that is no opcode
  bytes[at + 2] = '\xff';
  save_regression("zip", "torch-zip-datapkl-invalid-opcode.bin", bytes);
  FileCheck c = check_bytes(bytes, false, "data_0.pt");  // was intact in quick mode
  EXPECT_EQ(first_code(c), "malformed");
  EXPECT_TRUE(has(c, "invalid load key")) << first_message(c);
}

TEST(DataHardeningTest, LegacyPickleWithAnInsertedByteIsMalformedNotIntact) {
  const std::string good = real_fixture(kLegacy0);
  ASSERT_EQ(good.substr(137, 3), "\x80\x02}");  // pickle 4 of 5: PROTO 2, EMPTY_DICT
  std::string bad = good;
  bad.insert(139, 1, '\xff');  // Python: "invalid load key, '\xff'"
  save_regression("torch_legacy", "legacy-pickle4-inserted-0xff.bin", bad);
  save_regression("pickle", "pickle-invalid-opcode-0xff.bin", bad.substr(137, 354));
  for (bool deep : {false, true}) {
    FileCheck c = check_bytes(bad, deep);  // was intact: the scan stopped, no check ran
    EXPECT_EQ(first_code(c), "malformed");
    EXPECT_TRUE(has(c, "pickle 4 of 5")) << first_message(c);
    EXPECT_TRUE(has(c, "invalid load key")) << first_message(c);
  }
  // A valid opcode we do not model (text INT, then POP: Python loads this
  // file): the storage sizes are unknown, so unverifiable, never intact.
  std::string text = good;
  text.insert(139, "I1\n0");
  save_regression("torch_legacy", "legacy-pickle4-text-int-unmodelled.bin", text);
  for (bool deep : {false, true}) {
    FileCheck c = check_bytes(text, deep);
    EXPECT_EQ(first_code(c), "unverifiable");
    EXPECT_TRUE(has(c, "not modelled")) << first_message(c);
  }
}

TEST(DataHardeningTest, NpyHeadersThatNumPyWouldRefuseOrWeCannotSizeAreNeverIntact) {
  const std::string npy = real_fixture("numpy/ids_i64.npy");
  EXPECT_EQ(first_code(check_bytes(
                npy_with_dict(npy, "{'descr': '<i8', 'fortran_order': False, 'shape': (12,), }"),
                false, "a.npy")),
            "ok");
  struct Case {
    const char* file;
    const char* dict;
    const char* code;
    const char* message;
  };
  const Case cases[] = {
      {"npy-dict-not-closed.bin", "{'descr': '<i8', 'fortran_order': False, 'shape': (12,), ",
       "malformed", "not a Python dict literal"},
      {"npy-dict-closed-by-paren.bin", "{'descr': '<i8', 'fortran_order': False, 'shape': (12,), )",
       "malformed", "not a Python dict literal"},
      {"npy-dict-extra-key.bin", "{'descr': '<i8', 'fortran_order': False, 'shape': (12,), 'x': 1}",
       "malformed", "not one NumPy writes"},
      {"npy-fortran-order-not-bool.bin", "{'descr': '<i8', 'fortran_order': 7, 'shape': (12,), }",
       "malformed", "not a bool"},
      {"npy-shape-not-a-tuple.bin", "{'descr': '<i8', 'fortran_order': False, 'shape': (12), }",
       "malformed", "not a tuple"},
      {"npy-shape-times-itemsize-overflows.bin",
       "{'descr': '<i8', 'fortran_order': False, 'shape': (2305843009213693952,), }", "malformed",
       "overflow 64 bits"},
      {"npy-shape-product-overflows.bin",
       "{'descr': '<i8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "malformed",
       "overflows 64 bits"},
      {"npy-descr-without-itemsize.bin",
       "{'descr': '<f', 'fortran_order': False, 'shape': (12,), }", "malformed",
       "not a NumPy dtype"},
      {"npy-descr-unknown-kind.bin", "{'descr': '<x8', 'fortran_order': False, 'shape': (12,), }",
       "malformed", "not a NumPy dtype"},
      {"npy-object-array.bin", "{'descr': '|O', 'fortran_order': False, 'shape': (12,), }",
       "unverifiable", "object array"},
      {"npy-structured-dtype.bin",
       "{'descr': [('a', '<i4'), ('b', '<i4')], 'fortran_order': False, 'shape': (12,), }",
       "unverifiable", "structured dtype"},
  };
  for (const Case& k : cases) {
    std::string bytes = npy_with_dict(npy, k.dict);
    save_regression("npy", k.file, bytes);
    for (bool deep : {false, true}) {
      FileCheck c = check_bytes(bytes, deep, "a.npy");
      EXPECT_EQ(first_code(c), k.code) << k.dict << ": " << first_message(c);
      EXPECT_TRUE(has(c, k.message)) << k.dict << ": " << first_message(c);
    }
  }
}

TEST(DataHardeningTest, NpzMemberHeadersAreCheckedStoredOrDeflated) {
  std::string stored = real_fixture("numpy/sample_stored.npz");
  size_t at = stored.find("'<f4'");
  ASSERT_NE(at, std::string::npos);
  stored[at + 2] = 'x';  // '<x4': no NumPy dtype (the CRC no longer matches: quick mode)
  save_regression("npz", "npz-stored-member-descr-x4.bin", stored);
  FileCheck c = check_bytes(stored, false, "s.npz");  // was intact
  EXPECT_EQ(first_code(c), "malformed");
  EXPECT_TRUE(has(c, "member hidden.npy: descr '<x4'")) << first_message(c);
  // The same damage inside a deflated member (made with Python's zipfile):
  // quick mode inflates the header.
  std::ifstream in(
      std::string(GT_SOURCE_DIR) + "/tests/fuzz/regressions/npz/npz-deflated-member-descr-x4.bin",
      std::ios::binary);
  std::string deflated((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(deflated.empty());
  for (bool deep : {false, true}) {
    FileCheck d = check_bytes(deflated, deep, "d.npz");
    EXPECT_EQ(first_code(d), "malformed") << first_message(d);
    EXPECT_TRUE(has(d, "member hidden.npy: descr '<x4'")) << first_message(d);
  }
}

TEST(DataHardeningTest, SafetensorsUnknownDtypeAndOverflowingOffsets) {
  auto make = [](const std::string& header, size_t data_bytes) {
    std::string h = header;
    h.append((8 - h.size() % 8) % 8, ' ');
    return le_bytes(h.size(), 8) + h + std::string(data_bytes, '\x01');
  };
  std::string unknown = make(
      "{\"ids\":{\"dtype\":\"I64\",\"shape\":[4],\"data_offsets\":[0,32]},"
      "\"h\":{\"dtype\":\"X16\",\"shape\":[10],\"data_offsets\":[32,52]}}",
      52);
  save_regression("safetensors", "safetensors-dtype-unknown.bin", unknown);
  FileCheck c = check_bytes(unknown, false, "m.safetensors");  // was intact
  EXPECT_EQ(first_code(c), "unverifiable");
  EXPECT_TRUE(has(c, "tensor h: dtype X16")) << first_message(c);
  std::string wraps = make(
      "{\"ids\":{\"dtype\":\"I64\",\"shape\":[4],\"data_offsets\":[0,32]},"
      "\"h\":{\"dtype\":\"X16\",\"shape\":[10],\"data_offsets\":[32,18446744073709551615]}}",
      52);
  save_regression("safetensors", "safetensors-offset-end-all-ones.bin", wraps);
  FileCheck w = check_bytes(wraps, false, "m.safetensors");
  EXPECT_EQ(first_code(w), "malformed") << first_message(w);
  EXPECT_TRUE(has(w, "past 64 bits")) << first_message(w);
}

TEST(DataHardeningTest, GzipHeaderCrcFlagAfterAnUnterminatedNameIsTruncated) {
  // FNAME without its NUL, then FHCRC: the header length wrapped to 1 and
  // the file was inflated from its second byte.
  std::string gz = std::string("\x1f\x8b\x08\x0a\0\0\0\0\0\x03", 10) + std::string(40, 'n');
  save_regression("gzip", "gzip-fname-unterminated-fhcrc.bin", gz);
  for (bool deep : {false, true}) {
    FileCheck c = check_bytes(gz, deep, "data_0.ckpt.gz");
    EXPECT_EQ(first_code(c), "truncated") << first_message(c);
    EXPECT_TRUE(has(c, "the gzip header and trailer do not fit")) << first_message(c);
  }
}

// Zip members a format requires: torch.load reads <folder>/data.pkl first,
// numpy.load of an .npz gives arrays only for .npy members. Without them the
// file is malformed, even when every CRC is right (--deep).
std::string renamed(std::string bytes, const std::string& from, const std::string& to) {
  for (size_t at = bytes.find(from); at != std::string::npos; at = bytes.find(from, at + 1))
    bytes.replace(at, from.size(), to);
  return bytes;
}

TEST(DataHardeningTest, ZipsWithoutTheMembersTheirFormatRequiresAreMalformed) {
  // The pickle renamed (same length: every offset stays right).
  const std::string no_pkl = renamed(real_fixture(kSpecforge0), "/data.pkl", "/data.pkX");
  save_regression("zip", "torch-zip-without-data-pkl.bin", no_pkl);
  // An empty central directory: an EOCD alone.
  const std::string empty_zip = "PK\x05\x06" + std::string(18, '\0');
  save_regression("zip", "zip-no-entries.bin", empty_zip);
  const std::string no_arrays = renamed(real_fixture("numpy/sample_stored.npz"), ".npy", ".bin");
  save_regression("npz", "npz-without-arrays.bin", no_arrays);
  for (bool deep : {false, true}) {
    for (const char* name : {"data_0.pt", "data_0.ckpt", "m.pth"}) {
      FileCheck c = check_bytes(no_pkl, deep, name);
      EXPECT_EQ(first_code(c), "malformed") << name << ": " << first_message(c);
      EXPECT_TRUE(has(c, "without a <folder>/data.pkl record")) << first_message(c);
    }
    FileCheck e = check_bytes(empty_zip, deep, "data_0.pt");
    EXPECT_EQ(first_code(e), "malformed") << first_message(e);
    EXPECT_TRUE(has(e, "no entries")) << first_message(e);
    EXPECT_EQ(first_code(check_bytes(empty_zip, deep, "archive.zip")), "malformed");
    FileCheck n = check_bytes(no_arrays, deep, "sample.npz");
    EXPECT_EQ(first_code(n), "malformed") << first_message(n);
    EXPECT_TRUE(has(n, "without arrays")) << first_message(n);
    // The same bytes under a name that requires nothing: a generic zip.
    EXPECT_EQ(first_code(check_bytes(no_arrays, deep, "sample.zip")), "ok");
  }
}

}  // namespace verify_test
}  // namespace gt
