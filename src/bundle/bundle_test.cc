#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "bundle/archive.h"
#include "bundle/bundle_file.h"
#include "bundle/child_collectors.h"
#include "bundle/tree_copy.h"
#include "util/test_util.h"

namespace gt {
namespace {

std::string manifest_of(const BundleManifest& m) {
  return "{\"members\": " + std::to_string(m.members.size()) + "}\n";
}

const TreeEntry* find(const std::vector<TreeEntry>& e, const std::string& name) {
  for (const TreeEntry& t : e)
    if (t.name == name) return &t;
  return nullptr;
}

TEST(BundleArchive, CompressionByName) {
  EXPECT_EQ(compression_for("b.tar.zst"), ArchiveCompression::kZstd);
  EXPECT_EQ(compression_for("/x/b.tgz"), ArchiveCompression::kGzip);
  EXPECT_EQ(compression_for("b.tar.gz"), ArchiveCompression::kGzip);
  EXPECT_FALSE(compression_for("b.zip"));
  EXPECT_FALSE(compression_for("b.tar"));
}

TEST(BundleArchive, StemWithoutTheArchiveSuffix) {
  EXPECT_EQ(archive_stem("node1.tar.zst"), "node1");
  EXPECT_EQ(archive_stem("node1.tzst"), "node1");
  EXPECT_EQ(archive_stem("a.b.tar.gz"), "a.b");
  EXPECT_EQ(archive_stem("node1.tgz"), "node1");
  EXPECT_EQ(archive_stem("node1.tar"), "node1.tar");
  EXPECT_EQ(archive_stem(".tgz"), ".tgz");
}

TEST(BundleArchive, RoundTripsFilesFoldersAndLinks) {
  TempTree t;
  const std::vector<TreeEntry> in = {
      {TreeEntry::Type::kFolder, "root/proc", {}, {}},
      {TreeEntry::Type::kFile, "root/proc/1/cmdline", std::string("a\0b\0", 4), {}},
      {TreeEntry::Type::kLink, "root/proc/1/exe", {}, "/usr/bin/python3"},
      {TreeEntry::Type::kFile, "empty", "", {}},
  };
  for (ArchiveCompression c : {ArchiveCompression::kZstd, ArchiveCompression::kGzip}) {
    Result<std::string> bytes = archive_bytes(in, c, 1700000000);
    ASSERT_TRUE(bytes) << bytes.error().message;
    t.write("/b", *bytes);
    Result<std::vector<TreeEntry>> out = read_archive(t.path("/b"), 1 << 20);
    ASSERT_TRUE(out) << out.error().message;
    ASSERT_EQ(out->size(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      EXPECT_EQ((*out)[i].name, in[i].name);
      EXPECT_EQ((*out)[i].type, in[i].type);
      EXPECT_EQ((*out)[i].bytes, in[i].bytes);
      EXPECT_EQ((*out)[i].target, in[i].target);
    }
  }
}

TEST(BundleArchive, DamagedOrOversizedIsAnError) {
  TempTree t;
  Result<std::string> bytes = archive_bytes(
      {{TreeEntry::Type::kFile, "f", std::string(100000, 'x'), {}}}, ArchiveCompression::kGzip, 0);
  ASSERT_TRUE(bytes);
  t.write("/cut", bytes->substr(0, bytes->size() / 2));
  EXPECT_FALSE(read_archive(t.path("/cut"), 1 << 20));
  t.write("/whole", *bytes);
  Result<std::vector<TreeEntry>> small = read_archive(t.path("/whole"), 1000);
  ASSERT_FALSE(small);
  EXPECT_NE(small.error().message.find("more than 1000 bytes"), std::string::npos);
  EXPECT_FALSE(read_archive(t.path("/none"), 1000));
}

TEST(BundleArchive, ExtractingWritesNothingOutsideTheFolder) {
  TempTree t;
  std::filesystem::create_directories(t.path("/in"));
  const std::string outside = t.path("/outside");
  std::filesystem::create_directories(outside);
  for (const std::vector<TreeEntry>& hostile : std::vector<std::vector<TreeEntry>>{
           {{TreeEntry::Type::kFile, "../escaped", "x", {}}},
           {{TreeEntry::Type::kFile, "/tmp/escaped", "x", {}}},
           {{TreeEntry::Type::kLink, "root/l", {}, outside},
            {TreeEntry::Type::kFile, "root/l/escaped", "x", {}}},
       }) {
    EXPECT_FALSE(extract_entries(hostile, t.path("/in")));
    EXPECT_TRUE(std::filesystem::is_empty(outside));
  }
  EXPECT_FALSE(std::filesystem::exists(t.path("/escaped")));
  std::filesystem::create_directories(t.path("/in3"));
  ASSERT_TRUE(extract_entries({{TreeEntry::Type::kFolder, "root/proc/", {}, {}},
                               {TreeEntry::Type::kFile, "root/proc/1/stat", "1 (x) S", {}}},
                              t.path("/in3")));
  EXPECT_EQ(t.root().read("/in3/root/proc/1/stat").value(), "1 (x) S");
}

TEST(BundleTreeCopy, CopiesWhatWasReadInTheFixtureLayout) {
  TempTree t;
  t.write("/proc/7/environ", std::string("HF_TOKEN=x\0", 11));
  t.write("/proc/7/stat", "7 (python) S");
  t.write("/sys/devices/pci0000:00/0000:01:00.0/vendor", "0x10de\n");
  t.symlink("../../../devices/pci0000:00/0000:01:00.0", "/sys/bus/pci/devices/0000:01:00.0");
  t.write("/var/log/kern.log", std::string(1000, 'a') + "NEWEST");
  t.write("/etc/not-read", "secret");
  FsRoot root = t.root();
  auto log = std::make_shared<ReadLog>();
  root.set_read_log(log);
  ASSERT_TRUE(root.read("/proc/7/stat"));
  ASSERT_TRUE(root.list("/sys/bus/pci/devices"));
  ASSERT_TRUE(root.read_link("/sys/bus/pci/devices/0000:01:00.0"));
  ASSERT_TRUE(root.read("/sys/bus/pci/devices/0000:01:00.0/vendor"));
  Result<int> fd = root.open("/var/log/kern.log", O_RDONLY);
  ASSERT_TRUE(fd);
  ::close(*fd);
  // The stat changes after the read: the copy holds what was read.
  t.write("/proc/7/stat", "7 (python) Z");
  TreeCopy c = copy_read_files(t.root(), log->entries(), 100);
  ASSERT_NE(find(c.entries, "root/proc/7/stat"), nullptr);
  EXPECT_EQ(find(c.entries, "root/proc/7/stat")->bytes, "7 (python) S");
  EXPECT_EQ(find(c.entries, "root/proc/7/environ"), nullptr);  // never read
  EXPECT_EQ(find(c.entries, "root/etc/not-read"), nullptr);
  // The device's link was read and gone through: the link is kept (its
  // target is the device's place in the PCIe tree) and its files sit where
  // it leads.
  const TreeEntry* link = find(c.entries, "root/sys/bus/pci/devices/0000:01:00.0");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->type, TreeEntry::Type::kLink);
  EXPECT_EQ(link->target, "../../../devices/pci0000:00/0000:01:00.0");
  EXPECT_EQ(find(c.entries, "root/sys/bus/pci/devices/0000:01:00.0/vendor"), nullptr);
  ASSERT_NE(find(c.entries, "root/sys/devices/pci0000:00/0000:01:00.0/vendor"), nullptr);
  // An opened log keeps its newest bytes, the cut noted.
  const TreeEntry* kern = find(c.entries, "root/var/log/kern.log");
  ASSERT_NE(kern, nullptr);
  EXPECT_EQ(kern->bytes.size(), 100u);
  EXPECT_TRUE(kern->bytes.ends_with("NEWEST"));
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("/var/log/kern.log: its last 100 of 1006 bytes"), std::string::npos);
}

TEST(BundleTreeCopy, OnlyASysLinkReadAsALinkIsKept) {
  TempTree t;
  t.write("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/aer_dev_fatal", "TOTAL_ERR_FATAL 0\n");
  t.symlink("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0",
            "/sys/bus/pci/devices/0000:01:00.0");
  t.write("/work/job/out.txt", "x");
  t.symlink("/work/job", "/proc/7/cwd");
  t.write("/sys/class/block/vda/size", "100\n");
  FsRoot root = t.root();
  auto log = std::make_shared<ReadLog>();
  root.set_read_log(log);
  ASSERT_TRUE(root.read_link("/sys/bus/pci/devices/0000:01:00.0"));
  ASSERT_TRUE(root.read("/sys/bus/pci/devices/0000:01:00.0/aer_dev_fatal"));
  ASSERT_TRUE(root.read_link("/proc/7/cwd"));
  ASSERT_TRUE(root.read("/proc/7/cwd/out.txt"));
  ASSERT_TRUE(root.read("/sys/class/block/vda/size"));  // gone through, never read as a link
  TreeCopy c = copy_read_files(t.root(), log->entries(), 100);
  ASSERT_NE(find(c.entries, "root/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/aer_dev_fatal"),
            nullptr);
  ASSERT_NE(find(c.entries, "root/sys/bus/pci/devices/0000:01:00.0"), nullptr);
  // Outside /sys a link gone through stays a folder of what was read.
  EXPECT_EQ(find(c.entries, "root/proc/7/cwd"), nullptr);
  EXPECT_NE(find(c.entries, "root/proc/7/cwd/out.txt"), nullptr);
  EXPECT_NE(find(c.entries, "root/sys/class/block/vda/size"), nullptr);
  // Extracted, the replay reads the file through the link and finds its path.
  std::filesystem::create_directories(t.path("/out"));
  ASSERT_TRUE(extract_entries(c.entries, t.path("/out")));
  FsRoot replay(t.path("/out/root"));
  EXPECT_EQ(replay.read("/sys/bus/pci/devices/0000:01:00.0/aer_dev_fatal").value(),
            "TOTAL_ERR_FATAL 0\n");
  EXPECT_EQ(replay.read_link("/sys/bus/pci/devices/0000:01:00.0"),
            "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
}

TEST(BundleFile, TheCapCutsTheLogsFirstAndSaysSo) {
  std::string noise;
  for (int i = 0; i < 200000; ++i) noise += std::to_string(i * 7919 % 100003) + " ";
  std::vector<TreeEntry> entries = {{TreeEntry::Type::kFile, "report.json", "{}", {}},
                                    {TreeEntry::Type::kFile, "root/dev/kmsg", noise, {}}};
  BundleManifest m;
  Result<std::string> whole =
      fit_archive(entries, m, ArchiveCompression::kZstd, 64ull << 20, manifest_of);
  ASSERT_TRUE(whole);
  EXPECT_TRUE(m.cuts.empty());
  const uint64_t cap = whole->size() / 3;
  BundleManifest cut;
  Result<std::string> fitted =
      fit_archive(entries, cut, ArchiveCompression::kZstd, cap, manifest_of);
  ASSERT_TRUE(fitted) << fitted.error().message;
  EXPECT_LE(fitted->size(), cap);
  ASSERT_EQ(cut.cuts.size(), 1u);
  EXPECT_EQ(cut.cuts[0].member, "root/dev/kmsg");
  EXPECT_GT(cut.cuts[0].dropped_bytes, 0u);
  EXPECT_EQ(cut.cuts[0].kept_bytes + cut.cuts[0].dropped_bytes, noise.size());
  // The report is never cut: too small a cap is an error.
  BundleManifest none;
  EXPECT_FALSE(fit_archive(entries, none, ArchiveCompression::kZstd, 100, manifest_of));
}

TEST(BundleFile, AMissingOrReadOnlyFolderLeavesNothing) {
  TempTree t;
  EXPECT_FALSE(write_bundle_file(t.path("/no/such/b.tar.zst"), "x", 0));
  std::filesystem::create_directories(t.path("/ro"));
  ::chmod(t.path("/ro").c_str(), 0555);
  if (::geteuid() != 0) {  // root writes into a 0555 folder
    Status s = write_bundle_file(t.path("/ro/b.tar.zst"), "x", 0);
    EXPECT_FALSE(s);
    EXPECT_TRUE(std::filesystem::is_empty(t.path("/ro")));
  }
  // A margin larger than any disk: refused before writing.
  Status full = write_bundle_file(t.path("/b.tar.zst"), "x", 1ull << 62);
  ASSERT_FALSE(full);
  EXPECT_NE(full.error().message.find("must leave"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(t.path("/b.tar.zst")));
  ASSERT_TRUE(write_bundle_file(t.path("/b.tar.zst"), "x", 0));
  EXPECT_EQ(std::filesystem::file_size(t.path("/b.tar.zst")), 1u);
}

TEST(BundleChildren, ABugReportThatNeverEndsIsKilledAtItsDeadline) {
  TempTree t;
  t.write("/bin/nvidia-bug-report.sh",
          "#!/bin/sh\necho started\necho partial > \"$2.gz\"\nexec sleep 600\n");
  ::chmod(t.path("/bin/nvidia-bug-report.sh").c_str(), 0755);
  const std::string old_path = std::getenv("PATH");
  ::setenv("PATH", (t.path("/bin") + ":" + old_path).c_str(), 1);
  RealCommandRunner runner;
  const auto start = std::chrono::steady_clock::now();
  ChildCollected c = collect_bug_report(runner, std::chrono::milliseconds(500), t.dir(), 1 << 20);
  ::setenv("PATH", old_path.c_str(), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(c.outcome.end, CollectorEnd::kTimedOut);
  const TreeEntry* gz = find(c.members, "bug-report/nvidia-bug-report.log.gz");
  ASSERT_NE(gz, nullptr);
  EXPECT_EQ(gz->bytes, "partial\n");
  // Its scratch folder is gone.
  for (const auto& f : std::filesystem::directory_iterator(t.dir()))
    EXPECT_FALSE(f.path().filename().string().starts_with(".gpu-triage-bug-report")) << f.path();
}

}  // namespace
}  // namespace gt

namespace gt {
namespace {

// Issue 48 item 4: the member count is bounded before anything is kept,
// and the bound is said.
// A bundle extracted and packed again with `tar -C DIR -cf FILE .` names
// its members "./NAME": the same members, without DIR's own "./".
TEST(BundleArchive, MembersPackedFromTheirFolderKeepTheirNames) {
  TempTree t;
  Result<std::string> bytes = archive_bytes({{TreeEntry::Type::kFolder, "./", {}, {}},
                                             {TreeEntry::Type::kFile, "./report.json", "{}", {}},
                                             {TreeEntry::Type::kFolder, "./root/", {}, {}},
                                             {TreeEntry::Type::kFile, "././root/x", "y", {}}},
                                            ArchiveCompression::kZstd, 0);
  ASSERT_TRUE(bytes);
  t.write("/b", *bytes);
  Result<std::vector<TreeEntry>> out = read_archive(t.path("/b"), 1 << 20);
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[0].name, "report.json");
  EXPECT_EQ((*out)[1].name, "root");
  EXPECT_EQ((*out)[2].name, "root/x");
}

// A member named twice is said as such, not as a scratch path that exists.
TEST(BundleArchive, AMemberNamedTwiceIsSaid) {
  TempTree t;
  for (TreeEntry::Type second :
       {TreeEntry::Type::kFile, TreeEntry::Type::kFolder, TreeEntry::Type::kLink}) {
    const std::string dir = t.path("/in" + std::to_string(static_cast<int>(second)));
    std::filesystem::create_directories(dir);
    Status s = extract_entries(
        {{TreeEntry::Type::kFile, "report.json", "{}", {}}, {second, "report.json", "{}", "x"}},
        dir);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "member report.json appears twice in the archive");
  }
}

TEST(BundleArchive, MoreMembersThanTheBoundIsAnErrorSayingIt) {
  TempTree t;
  std::vector<TreeEntry> folders;
  for (int i = 0; i < 11; ++i)
    folders.push_back({TreeEntry::Type::kFolder, "d" + std::to_string(i), {}, {}});
  Result<std::string> bytes = archive_bytes(folders, ArchiveCompression::kZstd, 0);
  ASSERT_TRUE(bytes);
  t.write("/many", *bytes);
  Result<std::vector<TreeEntry>> out = read_archive(t.path("/many"), 1 << 20, 10);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("more than 10 members, the most a bundle may hold"),
            std::string::npos)
      << out.error().message;
  EXPECT_TRUE(read_archive(t.path("/many"), 1 << 20, 11));
  EXPECT_EQ(kMaxArchiveMembers, 250000u);
}

// Issue 48 item 3: members against manifest.json's sizes and sha256.
TEST(BundleFile, MembersAreCheckedAgainstTheManifest) {
  const std::vector<TreeEntry> entries = {
      {TreeEntry::Type::kFile, "report.json", "{}", {}},
      {TreeEntry::Type::kFolder, "root/etc", {}, {}},
      {TreeEntry::Type::kFile, "root/etc/fstab", "/dev/sdb1 /data ext4\n", {}},
      {TreeEntry::Type::kLink, "root/proc/self", {}, "1"},
      {TreeEntry::Type::kFile, "manifest.json", "{}", {}},
  };
  std::vector<BundleMember> members = describe_members(entries);
  std::erase_if(members, [](const BundleMember& m) { return m.name == "manifest.json"; });
  EXPECT_TRUE(unverified_members(entries, members).empty());

  std::vector<TreeEntry> edited = entries;
  edited[2].bytes = "/dev/sdc1 /data ext4\n";  // same size, other bytes
  EXPECT_EQ(unverified_members(edited, members),
            std::vector<std::string>{"root/etc/fstab: its sha256 is not manifest.json's"});
  edited[2].bytes = "";
  EXPECT_EQ(unverified_members(edited, members),
            std::vector<std::string>{"root/etc/fstab: 0 bytes, manifest.json says 21"});
  edited.erase(edited.begin() + 2);
  edited.push_back({TreeEntry::Type::kFile, "root/etc/added", "x", {}});
  EXPECT_EQ(unverified_members(edited, members),
            (std::vector<std::string>{"root/etc/fstab: in manifest.json, not a file in the archive",
                                      "root/etc/added: not in manifest.json"}));
  // A hostile archive's thousands of differences stay a short list.
  std::vector<TreeEntry> many;
  for (int i = 0; i < 30; ++i)
    many.push_back({TreeEntry::Type::kFile, "f" + std::to_string(i), "", {}});
  const std::vector<std::string> listed = unverified_members(many, {}, 20);
  ASSERT_EQ(listed.size(), 21u);
  EXPECT_EQ(listed.back(), "and 10 more");
}

}  // namespace
}  // namespace gt
