// glibc's /etc/ld.so.cache, the index ldconfig writes and ld.so searches
// before the default directories: the new format ("glibc-ld.so.cache1.1",
// glibc 2.32+ writes only this), the old one ("ld.so-1.7.0") and the two
// together (the old table followed by the new one, which ld.so prefers).
// Layout from glibc's sysdeps/generic/dl-cache.h; every offset and count is
// checked against the file's size, so a truncated or garbage cache is an
// error, never a read past the end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/fs_root.h"
#include "util/result.h"

namespace gt {

struct LdCacheEntry {
  std::string soname;  ///< "libcuda.so.1"
  std::string path;    ///< "/usr/lib/x86_64-linux-gnu/libcuda.so.1", as ldconfig wrote it
  int32_t flags = 0;   ///< FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 = 0x0303 for x86-64
  uint64_t hwcap = 0;  ///< 0 for the old format; nonzero: a glibc-hwcaps subdirectory
  bool operator==(const LdCacheEntry&) const = default;
};

struct LdCache {
  std::string format;                 ///< "glibc-ld.so.cache1.1" or "ld.so-1.7.0"
  std::vector<LdCacheEntry> entries;  ///< in the file's order
};

/// The flags ld.so on x86-64 accepts (_dl_cache_check_flags): an ELF libc6
/// library of the x86-64 ABI.
inline constexpr int32_t kLdCacheFlagsX8664 = 0x0303;
/// The largest cache read (a real one is 50-200 KB).
inline constexpr uint64_t kMaxLdCacheBytes = 16ull << 20;

/// Parses a cache file's bytes. kMalformed names what is wrong ("truncated:
/// 889 entries need 21352 bytes, the file has 100").
Result<LdCache> parse_ld_so_cache(std::string_view bytes);

/// Reads and parses /etc/ld.so.cache under `root` (kNotFound when absent).
Result<LdCache> read_ld_so_cache(const FsRoot& root);

/// The entry ld.so takes for `soname`: the first in file order with the
/// x86-64 flags and no hwcap subdirectory; nullptr when none.
const LdCacheEntry* ld_cache_find(const LdCache& cache, std::string_view soname);

}  // namespace gt
