#include "sources/cuda/library_search.h"

#include "sources/cuda/library_version.h"
#include "util/path_in_root.h"

namespace gt {
namespace {

std::string search_dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::string search_base_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

/// "libcuda.so" of "libcuda.so.1".
std::string search_unversioned(const std::string& soname) {
  const size_t so = soname.find(".so");
  return so == std::string::npos ? soname : soname.substr(0, so + 3);
}

/// Whether `candidate` is there as ld.so's open() would find it; a dangling
/// link (which ld.so skips) is noted.
bool search_present(const FsRoot& root, const std::string& candidate, ResolvedLibrary& lib) {
  Result<PathInRoot> p = resolve_in_root(root, candidate);
  if (!p) {
    lib.notes.push_back(candidate + ": " + p.error().message);
    return false;
  }
  if (p->exists) return true;
  if (std::optional<std::string> target = root.read_link(candidate)) {
    lib.notes.push_back(candidate + " is a dangling link (to " + *target +
                        "): the loader skips it");
  }
  return false;
}

std::optional<std::string> search_conf_of(const LoaderFiles& files, const std::string& path) {
  if (const LdConfDir* d = ld_conf_find(files.conf, search_dir_of(path))) return d->conf_file;
  return std::nullopt;
}

/// The first place ld.so finds `soname`; sets found_at and found_via.
void search_find(const FsRoot& root, const LoaderFiles& files,
                 const std::vector<std::string>& lib_path, ResolvedLibrary& lib) {
  for (const std::string& dir : lib_path) {
    const std::string c = dir + "/" + lib.soname;
    if (search_present(root, c, lib)) {
      lib.found_at = c;
      lib.found_via = "LD_LIBRARY_PATH";
      return;
    }
  }
  if (files.cache) {
    const LdCacheEntry* e = ld_cache_find(*files.cache, lib.soname);
    if (e && !e->path.empty() && e->path.front() == '/' && search_present(root, e->path, lib)) {
      lib.found_at = e->path;
      lib.found_via = "/etc/ld.so.cache";
      lib.conf_file = search_conf_of(files, e->path);
      return;
    }
    if (e) {
      lib.notes.push_back("/etc/ld.so.cache names " + e->path +
                          ", which is not there (a stale cache): the loader goes on to the "
                          "default directories");
    }
  }
  for (const std::string& dir : default_library_dirs()) {
    const std::string c = dir + "/" + lib.soname;
    if (search_present(root, c, lib)) {
      lib.found_at = c;
      lib.found_via = "default directory";
      return;
    }
  }
}

void search_read_version(const FsRoot& root, ResolvedLibrary& lib,
                         const std::optional<CompatOrigin>& compat) {
  const std::string& file = *lib.file;
  // A compat package's file keeps its release in its own name wherever it
  // is bound or copied: the name it has here may be the driver's.
  const std::string unversioned = search_unversioned(lib.soname);
  if (compat && compat->compat_file != file &&
      (lib.version = version_from_file_name(search_base_of(compat->compat_file), unversioned))) {
    lib.version_from = "the compat file's name";
    return;
  }
  if ((lib.version = version_from_file_name(search_base_of(file), unversioned))) {
    lib.version_from = "file name";
    return;
  }
  if (lib.soname != "libcuda.so.1") {
    lib.notes.push_back("version of " + file + " unknown: its name carries no release");
    return;
  }
  Result<std::optional<std::string>> v = version_in_file(root, file);
  if (!v) {
    lib.notes.push_back("version of " + file + " unknown: " + v.error().message);
  } else if (!*v) {
    lib.notes.push_back("version of " + file +
                        " unknown: neither its name nor its contents "
                        "carry a release");
  } else {
    lib.version = **v;
    lib.version_from = "contents";
  }
}

}  // namespace

const std::vector<std::string>& default_library_dirs() {
  static const std::vector<std::string> kDirs = {
      "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64"};
  return kDirs;
}

LoaderFiles read_loader_files(const FsRoot& root) {
  LoaderFiles f;
  Result<LdCache> cache = read_ld_so_cache(root);
  if (cache) {
    f.cache = std::move(*cache);
  } else if (cache.error().kind != ErrorKind::kNotFound) {
    f.notes.push_back(cache.error().message +
                      ": the loader ignores it, so the default "
                      "directories were searched");
  }
  f.conf = read_ld_so_conf(root);
  f.compat = read_compat_signs(root);
  return f;
}

std::vector<std::string> split_library_path(const std::string& value) {
  std::vector<std::string> dirs;
  size_t start = 0;
  while (start <= value.size()) {
    const size_t end = value.find_first_of(":;", start);
    std::string d = value.substr(start, end == std::string::npos ? std::string::npos : end - start);
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    if (!d.empty() && d.front() == '/') dirs.push_back(d);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return dirs;
}

ResolvedLibrary resolve_library(const FsRoot& root, const LoaderFiles& files,
                                const std::vector<std::string>& ld_library_path,
                                const std::string& soname) {
  ResolvedLibrary lib;
  lib.soname = soname;
  search_find(root, files, ld_library_path, lib);
  if (!lib.found_at) return lib;
  Result<PathInRoot> p = resolve_in_root(root, *lib.found_at);
  if (!p || !p->exists) return lib;  // search_present() said it is there: gone since
  lib.file = p->path;
  const std::optional<CompatOrigin> compat =
      compat_origin(root, files.compat, *lib.found_at, p->path);
  if (compat) lib.compat_from = compat->how;
  lib.compat = compat.has_value();
  search_read_version(root, lib, compat);
  return lib;
}

}  // namespace gt
