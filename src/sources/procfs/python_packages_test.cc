#include "sources/procfs/python_packages.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>

#include "util/test_util.h"

namespace gt {
namespace python_packages_test {

constexpr const char* kSite = "/opt/venv/lib/python3.11/site-packages";
constexpr const char* kHelloDigest = "sha256=WJG1tSLV3whtD_CxEPvZ0hu0_HFjrzTQgoai6Eb2vgM";

/// A site-packages with pkg 1.0: a.py and b.py ("hello\n" each) as RECORD says.
void write_package(const TempTree& t, const std::string& record_extra = "") {
  const std::string s = kSite;
  t.write(s + "/pkg/a.py", "hello\n");
  t.write(s + "/pkg/b.py", "hello\n");
  t.write(s + "/pkg-1.0.dist-info/METADATA",
          "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n\nbody\n");
  t.write(s + "/pkg-1.0.dist-info/RECORD", std::string("pkg/a.py,") + kHelloDigest + ",6\n" +
                                               "pkg/b.py," + kHelloDigest + ",6\n" +
                                               "pkg-1.0.dist-info/RECORD,,\n" + record_extra);
}

std::vector<PackagePrint> read(const TempTree& t, HashBounds bounds = {}) {
  uint64_t budget = bounds.per_run_bytes;
  return read_site_packages(t.root(), kSite, bounds, budget);
}

TEST(PythonPackages, DigestIsRecordsUrlsafeBase64WithoutPadding) {
  EXPECT_EQ("sha256=" + record_digest("hello\n"), kHelloDigest);
  EXPECT_EQ(record_digest(""), "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
}

TEST(PythonPackages, RecordLineWithQuotedComma) {
  std::optional<RecordLine> r = parse_record_line("\"pkg/a,b.py\",sha256=x,12\r");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->path, "pkg/a,b.py");
  EXPECT_EQ(r->hash, "sha256=x");
  EXPECT_EQ(r->size_bytes, 12u);
  EXPECT_FALSE(parse_record_line("just,two"));
  EXPECT_FALSE(parse_record_line("").has_value());
}

TEST(PythonPackages, PristinePackageIsFullyChecked) {
  TempTree t;
  write_package(t);
  std::vector<PackagePrint> p = read(t);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].name, "pkg");
  EXPECT_EQ(p[0].version, "1.0");
  EXPECT_TRUE(p[0].modified.empty());
  EXPECT_TRUE(p[0].fully_checked);
}

TEST(PythonPackages, EditedFileFoundBySizeAndByHash) {
  TempTree t;
  write_package(t);
  t.write(std::string(kSite) + "/pkg/a.py", "hellO\n");    // same size: the hash tells
  t.write(std::string(kSite) + "/pkg/b.py", "hello!!\n");  // another size
  std::vector<PackagePrint> p = read(t);
  ASSERT_EQ(p.size(), 1u);
  ASSERT_EQ(p[0].modified.size(), 2u);
  EXPECT_EQ(p[0].modified[0].path, "pkg/a.py");
  EXPECT_EQ(p[0].modified[0].size_bytes, 6u);
  EXPECT_EQ(p[0].modified[1].path, "pkg/b.py");
  EXPECT_EQ(p[0].modified[1].size_bytes, 8u);
}

TEST(PythonPackages, RecordHashInBase64OrHexMatches) {
  const std::string hex = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
  std::string upper = hex;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(record_hash_matches(kHelloDigest, "hello\n"));
  EXPECT_TRUE(record_hash_matches("sha256=" + hex, "hello\n"));
  EXPECT_TRUE(record_hash_matches("sha256=" + upper, "hello\n"));
  EXPECT_FALSE(record_hash_matches("sha256=" + hex, "hellO\n"));
  EXPECT_FALSE(record_hash_matches("sha256=" + hex.substr(1), "hello\n"));
  EXPECT_FALSE(record_hash_matches("md5=" + hex, "hello\n"));
  EXPECT_FALSE(record_hash_matches("sha256=" + std::string(64, 'g'), "hello\n"));
}

// Debian 12's dist-packages: blinker-1.5.dist-info/RECORD, like
// charset_normalizer-3.0.1's and distro-1.8.0's, holds hex digests
// ("blinker/base.py,sha256=<64 hex digits>,<size>"), not the wheel spec's
// base64: files that match are not "locally modified" (issue 48).
TEST(PythonPackages, DebianHexDigestsMatchAndAnEditIsStillFound) {
  TempTree t;
  const std::string s = kSite;
  const std::string hello_hex = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
  t.write(s + "/blinker/base.py", "hello\n");
  t.write(s + "/blinker/__init__.py", "hellO\n");  // same size, other bytes
  t.write(s + "/blinker-1.5.dist-info/METADATA",
          "Metadata-Version: 2.1\nName: blinker\nVersion: 1.5\n\nbody\n");
  t.write(s + "/blinker-1.5.dist-info/RECORD",
          "blinker-1.5.dist-info/METADATA,sha256=" + std::string(64, '0') + ",60\n" +
              "blinker/__init__.py,sha256=" + hello_hex + ",6\n" +
              "blinker/base.py,sha256=" + hello_hex + ",6\n" + "blinker-1.5.dist-info/RECORD,,\n");
  std::vector<PackagePrint> p = read(t);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].name, "blinker");
  ASSERT_EQ(p[0].modified.size(), 1u);
  EXPECT_EQ(p[0].modified[0].path, "blinker/__init__.py");
  EXPECT_TRUE(p[0].fully_checked);
}

TEST(PythonPackages, LineWithoutHashIsSaidNotPristine) {
  TempTree t;
  write_package(t, "pkg/c.py,,\n");
  t.write(std::string(kSite) + "/pkg/c.py", "x\n");
  std::vector<PackagePrint> p = read(t);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_FALSE(p[0].fully_checked);
  ASSERT_EQ(p[0].notes.size(), 1u);
  EXPECT_NE(p[0].notes[0].find("1 .py file(s) without a sha256"), std::string::npos);
}

TEST(PythonPackages, MissingAndUnreadableFilesAreSaid) {
  TempTree t;
  write_package(t);
  ::unlink(t.path(std::string(kSite) + "/pkg/a.py").c_str());
  ::mkfifo(t.path(std::string(kSite) + "/pkg/a.py").c_str(), 0644);  // never waited for
  std::vector<PackagePrint> p = read(t);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_FALSE(p[0].fully_checked);
  EXPECT_TRUE(p[0].modified.empty());
  ASSERT_EQ(p[0].notes.size(), 1u);
  EXPECT_NE(p[0].notes[0].find("1 .py file(s) missing or unreadable"), std::string::npos);
}

TEST(PythonPackages, BoundsPerFileAndPerRunAreSaid) {
  TempTree t;
  write_package(t);
  HashBounds tiny;
  tiny.per_file_bytes = 5;  // both files are 6 bytes
  std::vector<PackagePrint> p = read(t, tiny);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_FALSE(p[0].fully_checked);
  EXPECT_NE(p[0].notes.at(0).find("2 .py file(s) over 5 bytes"), std::string::npos);

  HashBounds budget;
  budget.per_run_bytes = 8192;  // the RECORD and one file: each costs a page at least
  p = read(t, budget);
  EXPECT_FALSE(p[0].fully_checked);
  EXPECT_NE(p[0].notes.at(0).find("1 .py file(s) not hashed: this run's 8192 bytes"),
            std::string::npos);
}

TEST(PythonPackages, PackagesPastASpentBudgetAreNotReadAndSaidOnceForTheEnvironment) {
  TempTree t;
  write_package(t);
  const std::string s = kSite;
  for (const char* other : {"other", "third"}) {
    t.write(s + "/" + other + "-2.0.dist-info/METADATA",
            std::string("Metadata-Version: 2.1\nName: ") + other + "\nVersion: 2.0\n\n");
    t.write(s + "/" + other + "-2.0.dist-info/RECORD",
            std::string(other) + "/x.py," + kHelloDigest + ",6\n");
    t.write(s + "/" + other + "/x.py", "hellO\n");  // modified, but past the budget
  }
  HashBounds b;
  b.per_run_bytes = 3 * 4096;  // pkg's RECORD and its two files
  uint64_t budget = b.per_run_bytes;
  std::vector<std::string> notes;
  std::vector<PackagePrint> p = read_site_packages(t.root(), kSite, b, budget, "pkg", &notes);
  ASSERT_EQ(p.size(), 3u);
  for (const PackagePrint& pk : p) {
    EXPECT_TRUE(pk.modified.empty()) << pk.name;  // pkg is pristine; the others not read
    EXPECT_EQ(pk.fully_checked, pk.name == "pkg") << pk.name;
    EXPECT_TRUE(pk.notes.empty()) << pk.name;
    EXPECT_EQ(pk.version, pk.name == "pkg" ? "1.0" : "2.0");  // read all the same
  }
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "2 of 3 packages not checked against their RECORD: this run's 12288 bytes of "
            "reading spent");
}

TEST(PythonPackages, AQuotedRecordLineIsChecked) {
  TempTree t;
  const std::string s = kSite;
  t.write(s + "/q-2.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: q\nVersion: 2.0\n\n");
  // pip quotes a name with a comma or a quote: the line has `.py",`.
  t.write(s + "/q-2.0.dist-info/RECORD", std::string("\"q/a,\"\"b.py\",") + kHelloDigest + ",6\n");
  t.write(s + "/q/a,\"b.py", "hellO\n");
  std::vector<PackagePrint> p = read(t);
  ASSERT_EQ(p.size(), 1u);
  ASSERT_EQ(p[0].modified.size(), 1u);
  EXPECT_EQ(p[0].modified[0].path, "q/a,\"b.py");
}

TEST(PythonPackages, ADistInfoWithoutAVersionInItsNameIsReadFromMetadata) {
  TempTree t;
  const std::string s = kSite;
  t.write(s + "/sglang.dist-info/METADATA",
          "Metadata-Version: 2.1\nName: sglang\nVersion: 0.4.6\n\n");
  t.write(s + "/sglang.dist-info/RECORD", std::string("sglang/a.py,") + kHelloDigest + ",6\n");
  t.write(s + "/sglang/a.py", "hellO\n");
  t.write(s + "/bare.dist-info/RECORD", "");
  std::vector<PackagePrint> p = read(t);
  ASSERT_EQ(p.size(), 2u);
  const PackagePrint& bare = p[0].name == "bare" ? p[0] : p[1];
  const PackagePrint& sg = p[0].name == "bare" ? p[1] : p[0];
  EXPECT_EQ(sg.version, "0.4.6");
  EXPECT_EQ(sg.modified.size(), 1u);
  EXPECT_EQ(bare.version, "?");
  EXPECT_FALSE(bare.fully_checked);
}

TEST(PythonPackages, ARecordThatIsAFifoOrEmptyIsNotChecked) {
  TempTree t;
  write_package(t);
  const std::string record = t.path(std::string(kSite) + "/pkg-1.0.dist-info/RECORD");
  ::unlink(record.c_str());
  ::mkfifo(record.c_str(), 0644);  // never waited for
  std::vector<PackagePrint> p = read(t);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_FALSE(p[0].fully_checked);
  EXPECT_NE(p[0].notes.at(0).find("not a regular file"), std::string::npos);
  ::unlink(record.c_str());
  t.write(std::string(kSite) + "/pkg-1.0.dist-info/RECORD", "");
  p = read(t);
  EXPECT_FALSE(p[0].fully_checked);
  EXPECT_NE(p[0].notes.at(0).find("RECORD is empty"), std::string::npos);
}

TEST(PythonPackages, AnUnreadableSitePackagesIsSaidAndMissingFilesCostTheBudget) {
  TempTree t;
  uint64_t budget = 1 << 20;
  std::vector<std::string> notes;
  EXPECT_TRUE(read_site_packages(t.root(), kSite, HashBounds{}, budget, "", &notes).empty());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("not read: ", 0), 0u) << notes[0];

  write_package(t);  // then its two files removed: each open costs a page
  ::unlink(t.path(std::string(kSite) + "/pkg/a.py").c_str());
  ::unlink(t.path(std::string(kSite) + "/pkg/b.py").c_str());
  budget = 1 << 20;
  read_site_packages(t.root(), kSite, HashBounds{}, budget, "", nullptr);
  EXPECT_EQ(budget, (1u << 20) - 3 * 4096);  // the RECORD and two failed opens
}

TEST(PythonPackages, VersionPastTheFirstPageOfMetadataIsRead) {
  TempTree t;
  const std::string s = kSite;
  t.write(s + "/late-0.dist-info/METADATA",
          "Metadata-Version: 2.1\nName: late\n" + std::string(5000, 'x') + "\nVersion: 3.1\n\n");
  t.write(s + "/late-0.dist-info/RECORD", "");
  std::vector<PackagePrint> p = read(t);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].version, "3.1");
}

TEST(PythonPackages, HugeRecordIsNotReadAndSaid) {
  TempTree t;
  write_package(t, std::string(200, '#') + "\n");
  HashBounds b;
  b.record_bytes = 100;
  std::vector<PackagePrint> p = read(t, b);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_FALSE(p[0].fully_checked);
  EXPECT_NE(p[0].notes.at(0).find("RECORD not read"), std::string::npos);
}

TEST(PythonPackages, SitePackagesFromMapsOrInterpreter) {
  EXPECT_EQ(site_packages_in_maps("7f00-7f01 r-xp 0 08:01 12 /opt/venv/lib/python3.11/"
                                  "site-packages/torch/lib/libtorch.so\n"),
            "/opt/venv/lib/python3.11/site-packages");
  EXPECT_FALSE(site_packages_in_maps("7f00-7f01 r-xp 0 08:01 12 /usr/lib/libc.so.6\n"));

  TempTree t;
  write_package(t);
  t.symlink("/opt/venv/bin/python3.11", "/proc/42/exe");
  t.symlink("/", "/proc/42/root");
  Server sv;
  sv.kind = "SGLang";
  sv.root_pid = 42;
  sv.members.push_back({42, "compute", std::nullopt, std::nullopt, {}, std::nullopt});
  std::vector<PythonEnvPrint> envs = read_python_envs(t.root(), {sv}, HashBounds{});
  ASSERT_EQ(envs.size(), 1u);
  EXPECT_EQ(envs[0].site_packages, kSite);
  EXPECT_EQ(envs[0].used_by, std::vector<std::string>{"SGLang (pid 42)"});
  EXPECT_EQ(envs[0].packages.size(), 1u);
}

// Issue 48 item 11: a containerized server's packages are read in its own
// root (/proc/PID/root), not at the same path on the host: the host has
// torch 1.0.0 at /opt/venv, the container's root has 2.3.0 there.
TEST(PythonPackages, AContainerizedServerIsReadInItsOwnRoot) {
  TempTree t;
  const std::string s = kSite;
  auto torch = [&](const std::string& under, const std::string& version) {
    t.write(under + s + "/torch-" + version + ".dist-info/METADATA",
            "Metadata-Version: 2.1\nName: torch\nVersion: " + version + "\n\n");
    t.write(under + s + "/torch-" + version + ".dist-info/RECORD", "");
  };
  torch("", "1.0.0");
  torch("/ctr", "2.3.0");
  t.write("/proc/42/maps", "7f00-7f01 r-xp 0 08:01 12 " + s + "/torch/lib/libtorch_cuda.so\n");
  t.symlink("/ctr", "/proc/42/root");
  t.write("/proc/43/maps", "7f00-7f01 r-xp 0 08:01 12 " + s + "/torch/lib/libtorch_cuda.so\n");
  t.symlink("/", "/proc/43/root");
  std::vector<Server> servers(2);
  servers[0].kind = "SGLang";
  servers[0].root_pid = 42;
  servers[0].members.push_back({42, "compute", std::nullopt, std::nullopt, {}, std::nullopt});
  servers[1].kind = "vLLM";
  servers[1].root_pid = 43;
  servers[1].members.push_back({43, "compute", std::nullopt, std::nullopt, {}, std::nullopt});
  std::vector<PythonEnvPrint> envs = read_python_envs(t.root(), servers, HashBounds{});
  ASSERT_EQ(envs.size(), 2u) << "one path, two roots: two environments";
  ASSERT_EQ(envs[0].packages.size(), 1u);
  EXPECT_EQ(envs[0].packages[0].version, "2.3.0");
  EXPECT_EQ(envs[0].site_packages, kSite);  // as the process names it
  EXPECT_EQ(envs[0].packages[0].site_packages, kSite);
  ASSERT_EQ(envs[1].packages.size(), 1u);
  EXPECT_EQ(envs[1].packages[0].version, "1.0.0");
}

}  // namespace python_packages_test
}  // namespace gt
