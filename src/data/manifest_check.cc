#include "data/manifest_check.h"

#include "util/real_path.h"

namespace gt {
namespace {

std::string last_component(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  size_t slash = dir.rfind('/');
  return slash == std::string::npos ? dir : dir.substr(slash + 1);
}

// A manifest name as printed: under the first DIR for one DIR, else under
// the DIR whose last component starts the name.
std::string display_path(const DirScan& scan, const std::string& name) {
  if (scan.dirs.size() == 1) return scan.dirs[0] + (scan.dirs[0].ends_with("/") ? "" : "/") + name;
  return name;
}

}  // namespace

std::string manifest_name(const DirScan& scan, const ScannedFile& f) {
  if (scan.dirs.size() == 1) return f.rel;
  return last_component(scan.dirs[f.dir_index]) + "/" + f.rel;
}

std::string manifest_text(const DirScan& scan) {
  std::string out;
  for (const std::string& d : scan.dirs) out += manifest_dir_line(real_path(d).value_or(d));
  for (const ScannedFile& f : scan.files)
    if (f.extra && f.extra->digest) out += manifest_line(*f.extra->digest, manifest_name(scan, f));
  return out;
}

ManifestCheck check_manifest(Manifest m, const DirScan& scan) {
  ManifestCheck c;
  for (const std::string& b : m.bad_lines) c.diff.notes.push_back("skipped " + b);
  std::vector<std::string> names;
  names.reserve(scan.files.size());
  for (const ScannedFile& f : scan.files) names.push_back(manifest_name(scan, f));
  std::string prefix = strip_dir_prefix(m, names);
  if (!prefix.empty())
    c.diff.notes.push_back("paths were stored with the prefix '" + prefix +
                           "' (an older manifest); compared without it");
  uint64_t compared = 0;
  for (uint32_t i = 0; i < scan.files.size(); ++i) {
    const ScannedFile& f = scan.files[i];
    if (!f.extra || !f.extra->digest) continue;
    auto it = m.digests.find(names[i]);
    if (it == m.digests.end()) {
      c.diff.added.push_back(scan.path(f));
      continue;
    }
    ++compared;
    if (it->second != *f.extra->digest) {
      c.diff.changed.push_back(scan.path(f));
      c.changed.push_back(i);
    }
    it->second.clear();  // matched: not missing
  }
  for (const auto& [name, hex] : m.digests)
    if (!hex.empty()) c.diff.missing.push_back(display_path(scan, name));
  if (compared >= 2 && c.changed.size() == compared)
    c.diff.notes.push_back(
        "every compared digest differs: was the manifest written with another "
        "algorithm? (md5sum's 32 hex digits look like xxh128's)");
  return c;
}

}  // namespace gt
