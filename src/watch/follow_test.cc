// The followers over real files: a kernel log that grows, and a data folder
// a writer fills.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "util/test_util.h"
#include "watch/data_follow.h"
#include "watch/kernel_follow.h"

namespace gt {
namespace {

void append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app | std::ios::binary) << text;
}

const char* kXid79 =
    "[  200.1] NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen "
    "off the bus.\n";

TEST(KernelLogFollower, BaselineIsJudgedNotAnnouncedThenNewKeysOnce) {
  TempTree t;
  const std::string log = t.path("/kern.log");
  append(log,
         "[  100.0] NVRM: Xid (PCI:0000:2a:00): 13, pid=42, name=python3, Graphics Exception\n");
  KernelLogFollower f("/", log);
  ASSERT_TRUE(f.readable());
  EXPECT_TRUE(f.poll().empty()) << "the baseline is not news";
  ASSERT_EQ(f.log().events.size(), 1u);
  // A record split over two writes is read whole, once.
  const std::string line = kXid79;
  append(log, line.substr(0, 40));
  EXPECT_TRUE(f.poll().empty());
  append(log, line.substr(40));
  std::vector<KernelLogEvent> fresh = f.poll();
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0].code, 79);
  EXPECT_EQ(fresh[0].pci_bus_id, "0000:9a:00.0");
  // A storm of the same key folds into that event, said no more.
  for (int i = 0; i < 50; ++i) append(log, kXid79);
  EXPECT_TRUE(f.poll().empty());
  ASSERT_EQ(f.log().events.size(), 2u);
  EXPECT_EQ(f.log().events[1].count, 51u);
}

TEST(KernelLogFollower, UnreadableIsASourceErrorNotAFailure) {
  KernelLogFollower f("/", std::string("/nonexistent/kern.log"));
  EXPECT_FALSE(f.readable());
  EXPECT_TRUE(f.poll().empty());
  ASSERT_EQ(f.log().sources.size(), 1u);
  EXPECT_EQ(f.log().sources[0].error, "not found");
  EXPECT_FALSE(f.log().sources[0].read);
}

TEST(KernelLogFollower, TruncatedFileIsReadFromTheStart) {
  TempTree t;
  const std::string log = t.path("/kern.log");
  append(log, std::string(200, 'x') + "\n");
  KernelLogFollower f("/", log);
  f.poll();
  std::filesystem::resize_file(log, 0);
  append(log, kXid79);
  EXPECT_EQ(f.poll().size(), 1u);
}

std::string gzip_of(const std::string& payload) {
  std::string out(compressBound(payload.size()) + 64, '\0');
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(payload.data()));
  z.avail_in = static_cast<uInt>(payload.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(DataFollower, SettledNewFilesVerifiedBadOnesOnceStallAndGone) {
  TempTree t;
  const std::string dir = t.path("/out");
  std::filesystem::create_directories(dir);
  const int64_t t0 = 1764585600000;
  DataFollower d(dir, 10, t0);
  EXPECT_TRUE(d.poll(t0).empty());
  std::string good = gzip_of(std::string(5000, 'a'));
  write_file(dir + "/sample_00000.gz", good);
  write_file(dir + "/sample_00001.gz", good.substr(0, good.size() / 2));
  // Not settled yet: nothing verified.
  EXPECT_TRUE(d.poll(t0 + 1000).empty());
  EXPECT_EQ(d.progress().pending, 2u);
  std::vector<Change> c = d.poll(t0 + 1000 + DataFollower::kSettleS * 1000);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kBadFile);
  EXPECT_EQ(c[0].path, dir + "/sample_00001.gz");
  EXPECT_NE(c[0].text.find("truncated"), std::string::npos) << c[0].text;
  EXPECT_EQ(d.progress().new_intact, 1u);
  EXPECT_EQ(d.progress().new_bad, 1u);
  EXPECT_TRUE(d.poll(t0 + 6000).empty()) << "said once";
  // A second good file gives a pace; then nothing: a stall, said once.
  write_file(dir + "/sample_00002.gz", good);
  d.poll(t0 + 7000);
  d.poll(t0 + 11000);
  ASSERT_TRUE(d.progress().per_min.has_value());
  EXPECT_EQ(d.progress().remaining, 8);
  ASSERT_TRUE(d.progress().eta_s.has_value());
  std::vector<Change> stall = d.poll(t0 + 11000 + 60000);
  ASSERT_EQ(stall.size(), 1u);
  EXPECT_EQ(stall[0].kind, ChangeKind::kStall);
  EXPECT_TRUE(d.poll(t0 + 11000 + 61000).empty());
  // The folder goes away: raised, not a crash; back: said too.
  std::filesystem::rename(dir, dir + ".moved");
  std::vector<Change> gone = d.poll(t0 + 80000);
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].kind, ChangeKind::kDataGone);
  EXPECT_TRUE(d.poll(t0 + 81000).empty());
  std::filesystem::rename(dir + ".moved", dir);
  std::vector<Change> back = d.poll(t0 + 82000);
  ASSERT_FALSE(back.empty());
  EXPECT_EQ(back[0].kind, ChangeKind::kDataBack);
}

}  // namespace
}  // namespace gt
