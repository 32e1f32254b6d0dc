#include "util/read_log.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "util/test_util.h"

namespace gt {
namespace {

TEST(ReadLog, AnFsRootLogsWhatItReadsAsTheNodeSeesIt) {
  TempTree t;
  t.write("/proc/7/stat", "7 (python) S");
  t.write("/etc/fstab", "x");
  t.symlink("../../devices/pci0000:00/0000:01:00.0", "/sys/bus/pci/devices/0000:01:00.0");
  FsRoot root = t.root();
  auto log = std::make_shared<ReadLog>();
  root.set_read_log(log);
  ASSERT_TRUE(root.read("/proc/7/stat"));
  EXPECT_FALSE(root.read("/proc/8/stat"));  // not there: nothing logged
  ASSERT_TRUE(root.list("/proc"));
  ASSERT_TRUE(root.read_link("/sys/bus/pci/devices/0000:01:00.0"));
  Result<int> fd = root.open("/etc/fstab", O_RDONLY);
  ASSERT_TRUE(fd);
  ::close(*fd);
  FsRoot copy = root;  // a copy logs into the same log
  EXPECT_TRUE(copy.read("/proc/7/stat"));
  const std::vector<ReadEntry> e = log->entries();
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].path, "/proc/7/stat");
  EXPECT_EQ(e[0].kind, ReadEntry::Kind::kFile);
  EXPECT_EQ(e[0].bytes, "7 (python) S");
  EXPECT_EQ(e[1].kind, ReadEntry::Kind::kFolder);
  EXPECT_EQ(e[2].kind, ReadEntry::Kind::kLink);
  EXPECT_EQ(e[2].target, "../../devices/pci0000:00/0000:01:00.0");
  EXPECT_EQ(e[3].kind, ReadEntry::Kind::kOpened);
  EXPECT_EQ(e[3].path, "/etc/fstab");
}

TEST(ReadLog, BytesPastTheCapAreDroppedThePathKept) {
  ReadLog log(10);
  log.file("/a", "12345678");
  log.file("/b", "12345");
  const std::vector<ReadEntry> e = log.entries();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_TRUE(e[0].bytes);
  EXPECT_FALSE(e[1].bytes);
  EXPECT_TRUE(e[1].cut);
}

TEST(ReadLog, ThreadsLogTogether) {
  ReadLog log;
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&log, i] {
      for (int k = 0; k < 100; ++k) log.file("/proc/" + std::to_string(i * 100 + k), "x");
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(log.entries().size(), 800u);
}

}  // namespace
}  // namespace gt
