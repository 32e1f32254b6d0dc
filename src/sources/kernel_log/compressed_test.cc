// A compressed --kernel-log (compressed.h): each format inflated by its
// library and read like the plain file, recognised by magic bytes whatever
// its name; a cut-short or corrupt one, and a file that is no kernel log,
// are errors, never a clean log.
#include "sources/kernel_log/compressed.h"

#include <gtest/gtest.h>
#include <lzma.h>
#include <zstd.h>

#include "sources/kernel_log/kernel_log.h"
#include "util/gzip.h"
#include "util/test_util.h"

namespace gt {
namespace compressed_test {

using klog::Compression;

const std::string kXid79 =
    "[ 1843.308145] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off "
    "the bus.\n";

std::string gzip(const std::string& in) { return gzip_bytes(in, 6); }

std::string xz(const std::string& in) {
  std::string out(lzma_stream_buffer_bound(in.size()), '\0');
  size_t pos = 0;
  EXPECT_EQ(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr,
                                    reinterpret_cast<const uint8_t*>(in.data()), in.size(),
                                    reinterpret_cast<uint8_t*>(out.data()), &pos, out.size()),
            LZMA_OK);
  out.resize(pos);
  return out;
}

std::string zstd(const std::string& in) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

KernelLog read_saved(const TempTree& t, const std::string& name, const std::string& bytes) {
  t.write("/saved/" + name, bytes);
  KernelLogOptions o;
  o.file = t.path("/saved/" + name);
  return read_kernel_log(t.root(), o);
}

TEST(CompressedKernelLog, MagicBytesNameTheFormat) {
  EXPECT_EQ(klog::compression_of(gzip("x")), Compression::kGzip);
  EXPECT_EQ(klog::compression_of(xz("x")), Compression::kXz);
  EXPECT_EQ(klog::compression_of(zstd("x")), Compression::kZstd);
  EXPECT_EQ(klog::compression_of(kXid79), Compression::kNone);
  EXPECT_EQ(klog::compression_of(""), Compression::kNone);
  EXPECT_EQ(klog::compression_of("\x1f"), Compression::kNone);
}

// Each format holding an Xid 79 gives the Xid 79, whatever the file's name
// (a .log that is gzip, a .gz that is zstd).
TEST(CompressedKernelLog, EachFormatIsReadLikeThePlainFile) {
  TempTree t;
  const std::string text = "[    0.000000] Linux version 6.1.0\n" + kXid79;
  const std::pair<const char*, std::string> files[] = {{"dmesg.gz", gzip(text)},
                                                       {"dmesg.xz", xz(text)},
                                                       {"kern.log.zst", zstd(text)},
                                                       {"plain-name.log", gzip(text)},
                                                       {"wrong-suffix.gz", zstd(text)}};
  for (const auto& [name, bytes] : files) {
    KernelLog log = read_saved(t, name, bytes);
    ASSERT_EQ(log.sources.size(), 1u) << name;
    EXPECT_TRUE(log.sources[0].read) << name << ": " << log.sources[0].error.value_or("");
    EXPECT_EQ(log.sources[0].lines, 2u) << name;
    ASSERT_EQ(log.events.size(), 1u) << name;
    EXPECT_EQ(log.events[0].code, 79) << name;
  }
}

TEST(CompressedKernelLog, ConcatenatedGzipMembersAreAllRead) {
  TempTree t;
  const std::string second =
      "[ 1900.000000] NVRM: Xid (PCI:0000:5d:00): 48, pid=1, name=a, An uncorrectable double "
      "bit error\n";
  KernelLog log = read_saved(t, "two.gz", gzip(kXid79) + gzip(second));
  ASSERT_EQ(log.events.size(), 2u) << log.sources[0].error.value_or("");
  EXPECT_EQ(log.events[1].code, 48);
}

TEST(CompressedKernelLog, CutShortOrCorruptIsAnErrorNamingTheFormat) {
  TempTree t;
  const std::string big = kXid79 + std::string(4000, 'x') + "\n";
  const std::pair<const char*, std::string> files[] = {
      {"cut.gz", gzip(big).substr(0, 20)},
      {"cut.xz", xz(big).substr(0, 30)},
      {"cut.zst", zstd(big).substr(0, 12)},
      {"junk.gz", std::string("\x1f\x8b\x08\x00", 4) + std::string(64, '\x55')}};
  const char* formats[] = {"gzip", "xz", "zstd", "gzip"};
  for (size_t i = 0; i < std::size(files); ++i) {
    KernelLog log = read_saved(t, files[i].first, files[i].second);
    ASSERT_EQ(log.sources.size(), 1u);
    EXPECT_FALSE(log.sources[0].read) << files[i].first;
    ASSERT_TRUE(log.sources[0].error) << files[i].first;
    EXPECT_NE(log.sources[0].error->find(formats[i]), std::string::npos) << *log.sources[0].error;
    EXPECT_TRUE(log.events.empty());
  }
}

// A file none of whose lines is a kernel log line is not "read, no Xid".
TEST(CompressedKernelLog, WholeIsAllOrNothingAndStopsAtTheCap) {
  // A bomb: 64 MiB of zeros in a few KiB. Whole, it is cut at 1 MiB and
  // holds nothing; under the cap it is all there.
  const std::string bomb = gzip(std::string(64u << 20, '\0'));
  klog::Inflated cut = klog::inflate_log(bomb, Compression::kGzip, "b.gz", 1u << 20, true);
  EXPECT_TRUE(cut.cut);
  EXPECT_FALSE(cut.error);
  EXPECT_TRUE(cut.data.empty());
  klog::Inflated all = klog::inflate_log(gzip(kXid79), Compression::kGzip, "x.gz", 1u << 20, true);
  EXPECT_FALSE(all.cut);
  EXPECT_EQ(all.data, kXid79);
}

TEST(CompressedKernelLog, AFileThatIsNoKernelLogIsNotRead) {
  TempTree t;
  std::string random(3000, '\0');
  uint32_t x = 2463534242u;
  for (char& c : random) {  // xorshift: bytes with no newline pattern of a log
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    c = static_cast<char>(x & 0xff);
  }
  random[0] = 'q';  // no compression magic
  const std::pair<const char*, std::string> files[] = {
      {"shopping.txt", "milk\neggs\n2 apples\n"}, {"random.bin", random}, {"empty.log", ""}};
  for (const auto& [name, bytes] : files) {
    KernelLog log = read_saved(t, name, bytes);
    ASSERT_EQ(log.sources.size(), 1u);
    EXPECT_FALSE(log.sources[0].read) << name;
    ASSERT_TRUE(log.sources[0].error) << name;
    EXPECT_TRUE(log.sources[0].error->starts_with(
        std::string(name) == "empty.log" ? "empty" : "not a kernel log"))
        << *log.sources[0].error;
  }
  // One line of a log's form is enough: a clean dmesg is read.
  KernelLog clean = read_saved(t, "clean.txt", "milk\n[    1.000000] usb 1-1: new device\n");
  EXPECT_TRUE(clean.sources[0].read);
  EXPECT_TRUE(clean.events.empty());
}

}  // namespace compressed_test
}  // namespace gt
