#include "sources/cuda/ld_so_cache.h"

#include <cstring>

#include "sources/cuda/read_node_file.h"

namespace gt {
namespace {

constexpr std::string_view kCacheOldMagic = "ld.so-1.7.0";  // CACHEMAGIC
constexpr std::string_view kCacheNewMagic =
    "glibc-ld.so.cache1.1";                  // CACHEMAGIC_NEW + CACHE_VERSION
constexpr size_t kCacheOldHeaderBytes = 16;  // magic[11], pad, nlibs
constexpr size_t kCacheOldEntryBytes = 12;   // flags, key, value
constexpr size_t kCacheNewHeaderBytes =
    48;                                     // magic, nlibs, len_strings, flags, pad, ext, unused[3]
constexpr size_t kCacheNewEntryBytes = 24;  // flags, key, value, osversion, hwcap
constexpr size_t kCacheNewAlign = 8;        // __alignof__ (struct cache_file_new)

uint32_t cache_u32_at(std::string_view b, size_t at) {
  uint32_t v = 0;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

uint64_t cache_u64_at(std::string_view b, size_t at) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

Error cache_malformed(const std::string& what) { return Error{ErrorKind::kMalformed, what}; }

/// The NUL-terminated string at `base + offset`, inside the file.
Result<std::string> cache_string_at(std::string_view b, size_t base, uint32_t offset) {
  const uint64_t at = static_cast<uint64_t>(base) + offset;
  if (at >= b.size()) return cache_malformed("a string offset points past the end of the file");
  const size_t end = b.find('\0', at);
  if (end == std::string_view::npos)
    return cache_malformed("a string runs past the end of the file");
  return std::string(b.substr(at, end - at));
}

Result<size_t> cache_table_end(std::string_view b, size_t start, uint32_t count,
                               size_t entry_bytes) {
  const uint64_t end = static_cast<uint64_t>(start) + static_cast<uint64_t>(count) * entry_bytes;
  if (end > b.size()) {
    return cache_malformed("truncated: " + std::to_string(count) + " entries need " +
                           std::to_string(end) + " bytes, the file has " +
                           std::to_string(b.size()));
  }
  return static_cast<size_t>(end);
}

/// The new-format table starting at `at`; its strings are relative to `at`.
Result<LdCache> cache_parse_new(std::string_view b, size_t at) {
  if (b.size() - at < kCacheNewHeaderBytes) return cache_malformed("truncated in the header");
  const uint32_t n = cache_u32_at(b, at + 20);
  Result<size_t> end = cache_table_end(b, at + kCacheNewHeaderBytes, n, kCacheNewEntryBytes);
  if (!end) return end.error();
  LdCache c{std::string(kCacheNewMagic), {}};
  c.entries.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t e = at + kCacheNewHeaderBytes + static_cast<size_t>(i) * kCacheNewEntryBytes;
    Result<std::string> key = cache_string_at(b, at, cache_u32_at(b, e + 4));
    Result<std::string> value = cache_string_at(b, at, cache_u32_at(b, e + 8));
    if (!key) return key.error().with_context("entry " + std::to_string(i));
    if (!value) return value.error().with_context("entry " + std::to_string(i));
    c.entries.push_back(
        {*key, *value, static_cast<int32_t>(cache_u32_at(b, e)), cache_u64_at(b, e + 16)});
  }
  return c;
}

Result<LdCache> cache_parse_old(std::string_view b) {
  if (b.size() < kCacheOldHeaderBytes) return cache_malformed("truncated in the header");
  const uint32_t n = cache_u32_at(b, 12);
  Result<size_t> end = cache_table_end(b, kCacheOldHeaderBytes, n, kCacheOldEntryBytes);
  if (!end) return end.error();
  // The compat layout: the new table follows the old one, aligned; ld.so
  // uses it when it is there.
  const size_t next = (*end + kCacheNewAlign - 1) & ~(kCacheNewAlign - 1);
  if (next <= b.size() && b.substr(next).starts_with(kCacheNewMagic))
    return cache_parse_new(b, next);
  LdCache c{std::string(kCacheOldMagic), {}};
  c.entries.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t e = kCacheOldHeaderBytes + static_cast<size_t>(i) * kCacheOldEntryBytes;
    Result<std::string> key = cache_string_at(b, *end, cache_u32_at(b, e + 4));
    Result<std::string> value = cache_string_at(b, *end, cache_u32_at(b, e + 8));
    if (!key) return key.error().with_context("entry " + std::to_string(i));
    if (!value) return value.error().with_context("entry " + std::to_string(i));
    c.entries.push_back({*key, *value, static_cast<int32_t>(cache_u32_at(b, e)), 0});
  }
  return c;
}

}  // namespace

Result<LdCache> parse_ld_so_cache(std::string_view bytes) {
  if (bytes.starts_with(kCacheNewMagic)) return cache_parse_new(bytes, 0);
  if (bytes.starts_with(kCacheOldMagic)) return cache_parse_old(bytes);
  return cache_malformed(
      "not an ld.so cache (neither \"glibc-ld.so.cache1.1\" nor \"ld.so-1.7.0\")");
}

Result<LdCache> read_ld_so_cache(const FsRoot& root) {
  const std::string path = "/etc/ld.so.cache";
  Result<std::string> bytes = read_node_file(root, path, kMaxLdCacheBytes, "an ld.so cache");
  if (!bytes) return bytes.error();
  Result<LdCache> c = parse_ld_so_cache(*bytes);
  if (!c) return c.error().with_context(path);
  return c;
}

const LdCacheEntry* ld_cache_find(const LdCache& cache, std::string_view soname) {
  for (const LdCacheEntry& e : cache.entries) {
    if (e.soname == soname && e.flags == kLdCacheFlagsX8664 && e.hwcap == 0) return &e;
  }
  return nullptr;
}

}  // namespace gt
