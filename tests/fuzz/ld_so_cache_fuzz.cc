// The loader's files: /etc/ld.so.cache (both formats), /etc/ld.so.conf and a
// conf.d file, and a libcuda whose release is read from its contents. Each
// input is all of them; the cache parser runs on it directly, then the
// resolver reads the tree for every driver library.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.h"
#include "sources/cuda/ld_so_cache.h"
#include "sources/cuda/library_search.h"
#include "sources/cuda/library_version.h"
#include "tree_target.h"

GT_FUZZ_TARGET(ld_so_cache) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)gt::parse_ld_so_cache(bytes);
  (void)gt::version_in_bytes(bytes);
  static const gt::fuzz::ScratchTree t;
  t.write("/etc/ld.so.cache", bytes);
  t.write("/etc/ld.so.conf", bytes);
  t.write("/etc/ld.so.conf.d/cuda-compat.conf", bytes);
  t.write("/usr/lib/x86_64-linux-gnu/libcuda.so.1", bytes);
  const gt::FsRoot root = t.root();
  const gt::LoaderFiles files = gt::read_loader_files(root);
  for (const char* soname :
       {"libcuda.so.1", "libnvidia-ml.so.1", "libnvidia-ptxjitcompiler.so.1"}) {
    (void)gt::resolve_library(root, files, {"/opt/lib"}, soname);
  }
  return 0;
}
