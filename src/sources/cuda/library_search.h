// One library found as glibc's ld.so finds a name without a slash
// (elf/dl-load.c _dl_map_object): each LD_LIBRARY_PATH directory, then
// /etc/ld.so.cache, then the default directories. Not known here, and said
// in docs/checks.md: the loading binary's DT_RPATH/DT_RUNPATH (a RUNPATH
// is searched after LD_LIBRARY_PATH, an RPATH before it), glibc-hwcaps
// subdirectories, and whether a file is a loadable ELF of the right class.
// Every path is resolved inside the root: a link pointing out of a fixture
// tree or a gathered copy starts again at its "/".
#pragma once

#include <string>
#include <vector>

#include "model/cuda_readiness.h"
#include "sources/cuda/compat_library.h"
#include "sources/cuda/ld_so_cache.h"
#include "sources/cuda/ld_so_conf.h"
#include "util/fs_root.h"

namespace gt {

/// The default directories of ld.so on x86-64 Debian and Ubuntu: the
/// multiarch ones Debian's glibc adds first, then glibc's own system
/// directories for the x86-64 ABI (slibdir and libdir: /lib64, /usr/lib64).
/// Only the x86-64 rule is used; the cache entries likewise
/// (kLdCacheFlagsX8664).
const std::vector<std::string>& default_library_dirs();

/// What a loader context searches besides its LD_LIBRARY_PATH.
struct LoaderFiles {
  std::optional<LdCache> cache;  ///< null: absent or unreadable (a note says which)
  LdConf conf;
  CompatSigns compat;  ///< what tells a forward-compatibility libcuda
  std::vector<std::string> notes;
};

/// Reads /etc/ld.so.cache, /etc/ld.so.conf and the compat signs under `root`.
LoaderFiles read_loader_files(const FsRoot& root);

/// LD_LIBRARY_PATH's directories as ld.so splits them (':' and ';'); empty
/// elements (the process's working directory) are dropped.
std::vector<std::string> split_library_path(const std::string& value);

/// Resolves `soname` ("libcuda.so.1") for a context with `ld_library_path`.
ResolvedLibrary resolve_library(const FsRoot& root, const LoaderFiles& files,
                                const std::vector<std::string>& ld_library_path,
                                const std::string& soname);

}  // namespace gt
