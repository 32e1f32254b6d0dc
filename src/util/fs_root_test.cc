#include "util/fs_root.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/test_util.h"

namespace gt {
namespace fs_root_test {

namespace fs = std::filesystem;

TEST(FsRoot, RealRootLeavesPathsAlone) {
  EXPECT_EQ(FsRoot("/").path("/proc/1/cmdline"), "/proc/1/cmdline");
  EXPECT_EQ(FsRoot().path("/sys/module"), "/sys/module");
}

TEST(FsRoot, PrefixesFixtureRoot) {
  FsRoot root("tests/scenarios/xid79");
  EXPECT_EQ(root.path("/proc/1/cmdline"), "tests/scenarios/xid79/proc/1/cmdline");
}

TEST(FsRoot, NodePathUndoesThePrefixOnlyUnderTheRoot) {
  EXPECT_EQ(FsRoot("/").node_path("/usr/lib/a.so"), "/usr/lib/a.so");
  EXPECT_EQ(FsRoot("/t/root/").node_path("/t/root/usr/lib/a.so"), "/usr/lib/a.so");
  EXPECT_EQ(FsRoot("/t/root").node_path("/t/rootless/a.so"), "/t/rootless/a.so");
  EXPECT_EQ(FsRoot("/t/root").node_path("/t/root"), "/t/root");
  EXPECT_EQ(FsRoot("/t/root").node_path("/tmp/lib.so"), "/tmp/lib.so");
}

TEST(FsRoot, TrailingSlashesOnRootAreDropped) {
  FsRoot root("/tmp/fixture//");
  EXPECT_EQ(root.root(), "/tmp/fixture");
  EXPECT_EQ(root.path("/proc/stat"), "/tmp/fixture/proc/stat");
  EXPECT_EQ(FsRoot("/").root(), "/");
}

TEST(FsRoot, ReadsWholeFileThroughRoot) {
  TempTree t;
  t.write("/proc/driver/nvidia/version", "NVRM version: x\nGCC version: y\n");
  Result<std::string> r = FsRoot(t.dir()).read("/proc/driver/nvidia/version");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "NVRM version: x\nGCC version: y\n");
}

TEST(FsRoot, ReadMissingFileIsNotFoundNamingThePath) {
  TempTree t;
  Result<std::string> r = FsRoot(t.dir()).read("/proc/4242/status");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kNotFound);
  EXPECT_NE(r.error().message.find(t.dir() + "/proc/4242/status"), std::string::npos)
      << r.error().message;
}

TEST(FsRoot, ReadOptionalTrimmedStripsTrailingWhitespace) {
  TempTree t;
  t.write("/sys/module/nvidia/version", "590.48.01 \n\n");
  t.write("/proc/4242/cmdline", std::string("a\0b\0", 4));
  FsRoot root(t.dir());
  EXPECT_EQ(root.read_optional_trimmed("/sys/module/nvidia/version"), "590.48.01");
  EXPECT_EQ(root.read_optional_trimmed("/proc/4242/cmdline"), std::string("a\0b", 3));
}

TEST(FsRoot, ReadOptionalTrimmedMissingIsNullopt) {
  TempTree t;
  EXPECT_FALSE(FsRoot(t.dir()).read_optional_trimmed("/sys/module/nvidia/version"));
}

TEST(FsRoot, ListIsSortedWithoutDotEntries) {
  TempTree t;
  t.write("/proc/20/stat", "");
  t.write("/proc/3/stat", "");
  t.write("/proc/stat", "");
  Result<std::vector<std::string>> r = FsRoot(t.dir()).list("/proc");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<std::string>{"20", "3", "stat"}));
}

TEST(FsRoot, ListMissingDirIsNotFound) {
  TempTree t;
  Result<std::vector<std::string>> r = FsRoot(t.dir()).list("/sys/bus/pci");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kNotFound);
}

TEST(FsRoot, ReadLinkAndExists) {
  TempTree t;
  t.write("/sys/bus/pci/devices/0000:19:00.0/vendor", "0x10de\n");
  fs::create_symlink("../../../bus/pci/drivers/nvidia",
                     t.dir() + "/sys/bus/pci/devices/0000:19:00.0/driver");
  FsRoot root(t.dir());
  EXPECT_EQ(root.read_link("/sys/bus/pci/devices/0000:19:00.0/driver"),
            "../../../bus/pci/drivers/nvidia");
  EXPECT_FALSE(root.read_link("/sys/bus/pci/devices/0000:19:00.0/vendor"));
  EXPECT_TRUE(root.exists("/sys/bus/pci/devices/0000:19:00.0"));
  EXPECT_FALSE(root.exists("/sys/bus/pci/devices/0000:3b:00.0"));
}

TEST(FsRoot, ReadsLiveProcSelf) {
  Result<std::string> r = FsRoot("/").read("/proc/self/stat");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->substr(0, r->find(' ')), std::to_string(::getpid()));
}

TEST(FsRoot, PathsFromTheNodeResolveInsideTheRoot) {
  // Issue 32: a --config of "/../../x" on a gathered host's command line
  // opened the fleet machine's own file. ".." stops at the root, a link's
  // absolute target starts again at the root, a link out is followed in.
  TempTree outside, t;
  outside.write("/secret.yaml", "port: 1\n");
  t.write("/etc/inside.yaml", "port: 2\n");
  const std::string up = "/../../../../../../../.." + outside.dir() + "/secret.yaml";
  const FsRoot root(t.dir());
  EXPECT_FALSE(root.read(up).ok()) << "read beside the root";
  EXPECT_FALSE(root.exists(up));
  EXPECT_EQ(*root.resolve("/../../etc/inside.yaml"), t.dir() + "/etc/inside.yaml");
  t.symlink(outside.dir() + "/secret.yaml", "/cfg/abs.yaml");        // absolute: inside
  t.symlink("../../../../../../../.." + outside.dir(), "/cfg/rel");  // relative: clamped
  t.symlink("/etc", "/cfg/etc");
  EXPECT_FALSE(root.read("/cfg/abs.yaml").ok());
  EXPECT_FALSE(root.read("/cfg/rel/secret.yaml").ok());
  ASSERT_TRUE(root.read("/cfg/etc/inside.yaml").ok());
  EXPECT_EQ(*root.read("/cfg/etc/inside.yaml"), "port: 2\n");
  EXPECT_FALSE(root.list("/cfg/rel").ok() && root.list("/cfg/rel")->size() == 1);
  t.symlink("loop", "/cfg/loop");
  // The one resolver's words (util/path_in_root.h), as the kernel's ELOOP.
  EXPECT_EQ(root.resolve("/cfg/loop/x").error().kind, ErrorKind::kIo);
  EXPECT_NE(root.resolve("/cfg/loop/x").error().message.find("too many levels of symbolic links"),
            std::string::npos);
  // As open(2) walks: a ".." after a missing component is not taken.
  EXPECT_FALSE(root.read("/missing/../etc/inside.yaml").ok());
  EXPECT_TRUE(root.read("/cfg/../etc/inside.yaml").ok());
  // The live root reads the node's own paths as given.
  EXPECT_EQ(*FsRoot("/").resolve("/a/../b"), "/a/../b");
}

}  // namespace fs_root_test
}  // namespace gt

namespace gt {

// Trial finding (issue 34): a FIFO as a process's environ blocked the
// triage in open(2) for good; it is refused at once.
TEST(FsRoot, AFifoIsRefusedNotWaitedFor) {
  TempTree t;
  t.write("/proc/7/cmdline", "x");
  ASSERT_EQ(::mkfifo(t.path("/proc/7/environ").c_str(), 0600), 0);
  Result<std::string> r = t.root().read("/proc/7/environ");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("FIFO"), std::string::npos);
  EXPECT_TRUE(t.root().read("/proc/7/cmdline"));
}

}  // namespace gt
