// /etc/ld.so.conf as ldconfig reads it (glibc elf/ldconfig.c parse_conf):
// one directory per line, '#' comments, "include PATTERN..." with glob
// patterns (a relative one is relative to the including file's directory),
// "hwcap" lines obsolete and skipped. Read to say which conf file put a
// directory into the cache (a cuda-compat.conf naming
// /usr/local/cuda/compat); ld.so itself reads only the cache. Bounded: an
// include loop, a file included twice, too many files or directories, a
// huge file: each a note, never a hang.
#pragma once

#include <string>
#include <vector>

#include "util/fs_root.h"

namespace gt {

struct LdConfDir {
  std::string dir;        ///< "/usr/local/cuda/compat" (trailing '/' dropped)
  std::string conf_file;  ///< "/etc/ld.so.conf.d/cuda-compat.conf"
  bool operator==(const LdConfDir&) const = default;
};

struct LdConf {
  std::vector<LdConfDir> dirs;     ///< in ldconfig's order, first mention only
  std::vector<std::string> notes;  ///< what could not be read or was cut
};

inline constexpr int kMaxLdConfFiles = 256;
inline constexpr int kMaxLdConfDepth = 16;
inline constexpr size_t kMaxLdConfDirs = 4096;
inline constexpr uint64_t kMaxLdConfBytes = 1ull << 20;

/// Reads /etc/ld.so.conf and what it includes, under `root`. An absent
/// /etc/ld.so.conf is no note (ldconfig then caches the default directories).
LdConf read_ld_so_conf(const FsRoot& root);

/// The conf file that names `dir` (first mention), or nullptr.
const LdConfDir* ld_conf_find(const LdConf& conf, const std::string& dir);

}  // namespace gt
