#include "sources/cuda/ld_so_cache.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "util/test_util.h"

namespace gt {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/tests/fixtures/real/ld.so.cache/" + name,
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void expect_two_libz(const LdCache& c) {
  ASSERT_EQ(c.entries.size(), 2u);
  EXPECT_EQ(c.entries[0].soname, "libz.so.1");
  EXPECT_EQ(c.entries[0].path, "/usr/local/cuda/compat/libz.so.1");
  EXPECT_EQ(c.entries[1].path, "/usr/lib/x86_64-linux-gnu/libz.so.1");
  EXPECT_EQ(c.entries[0].flags, kLdCacheFlagsX8664);
  const LdCacheEntry* e = ld_cache_find(c, "libz.so.1");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->path, "/usr/local/cuda/compat/libz.so.1");  // the first, as ld.so takes it
  EXPECT_EQ(ld_cache_find(c, "libcuda.so.1"), nullptr);
}

TEST(LdSoCache, ReadsGlibcsNewFormat) {
  Result<LdCache> c = parse_ld_so_cache(fixture("ld.so.cache.new"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->format, "glibc-ld.so.cache1.1");
  expect_two_libz(*c);
}

TEST(LdSoCache, ReadsTheOldFormat) {
  Result<LdCache> c = parse_ld_so_cache(fixture("ld.so.cache.old"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->format, "ld.so-1.7.0");
  expect_two_libz(*c);
}

TEST(LdSoCache, CompatLayoutUsesTheNewTableAfterTheOld) {
  Result<LdCache> c = parse_ld_so_cache(fixture("ld.so.cache.compat"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->format, "glibc-ld.so.cache1.1");
  expect_two_libz(*c);
}

TEST(LdSoCache, EveryTruncationIsAnErrorOrAPrefixNeverACrash) {
  for (const char* name : {"ld.so.cache.new", "ld.so.cache.old", "ld.so.cache.compat"}) {
    const std::string full = fixture(name);
    ASSERT_FALSE(full.empty()) << name;
    for (size_t n = 0; n < full.size(); ++n) {
      Result<LdCache> c = parse_ld_so_cache(std::string_view(full).substr(0, n));
      if (!c.ok()) {
        EXPECT_EQ(c.error().kind, ErrorKind::kMalformed) << name << " at " << n;
      } else {
        EXPECT_LE(c->entries.size(), 2u);  // the compat file's old table alone
      }
    }
  }
}

TEST(LdSoCache, GarbageAndHugeCountsAreMalformed) {
  Result<LdCache> g = parse_ld_so_cache(
      "\x7f"
      "ELF garbage garbage garbage garbage garbage");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("not an ld.so cache"), std::string::npos);
  std::string huge = fixture("ld.so.cache.new");
  huge[20] = huge[21] = huge[22] = huge[23] = '\xff';  // nlibs = 4294967295
  Result<LdCache> h = parse_ld_so_cache(huge);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("truncated: 4294967295 entries"), std::string::npos);
}

TEST(LdSoCache, AStringOffsetPastTheEndIsMalformed) {
  std::string bad = fixture("ld.so.cache.new");
  bad[48 + 4] = bad[48 + 5] = bad[48 + 6] = '\x7f';  // entry 0's key
  Result<LdCache> c = parse_ld_so_cache(bad);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("entry 0: a string offset points past the end"),
            std::string::npos);
}

TEST(LdSoCache, EntriesOfAnotherAbiAreNotTaken) {
  std::string i386 = fixture("ld.so.cache.new");
  i386[48 + 1] = 0;  // entry 0 (the compat copy): flags 0x0003, a 32-bit libc6 library
  Result<LdCache> c = parse_ld_so_cache(i386);
  ASSERT_TRUE(c.ok());
  const LdCacheEntry* e = ld_cache_find(*c, "libz.so.1");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->path, "/usr/lib/x86_64-linux-gnu/libz.so.1");
}

TEST(LdSoCache, ReadThroughTheRoot) {
  TempTree t;
  Result<LdCache> absent = read_ld_so_cache(t.root());
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().kind, ErrorKind::kNotFound);
  t.write("/etc/ld.so.cache", fixture("ld.so.cache.new"));
  Result<LdCache> c = read_ld_so_cache(t.root());
  ASSERT_TRUE(c.ok());
  expect_two_libz(*c);
  t.write("/etc/ld.so.cache", "ld.so-1.7.0");
  Result<LdCache> bad = read_ld_so_cache(t.root());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("/etc/ld.so.cache: truncated in the header"),
            std::string::npos);
}

}  // namespace
}  // namespace gt
