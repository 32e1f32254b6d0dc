#include "sources/cuda/ld_so_conf.h"

#include <fnmatch.h>

#include <set>
#include <string_view>

#include "sources/cuda/read_node_file.h"

namespace gt {
namespace {

constexpr std::string_view kConfBlank = " \t\r\f\v";

std::string_view conf_trim(std::string_view s) {
  const size_t b = s.find_first_not_of(kConfBlank);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kConfBlank) - b + 1);
}

bool conf_has_glob(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

std::string conf_dir_of(const std::string& file) {
  const size_t slash = file.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : file.substr(0, slash);
}

class ConfReader {
 public:
  explicit ConfReader(const FsRoot& root) : root_(root) {}

  void file(const std::string& path, int depth, bool note_absent) {
    if (depth > kMaxLdConfDepth)
      return note(path + ": includes nested deeper than " + std::to_string(kMaxLdConfDepth) +
                  " levels, not read");
    if (seen_.count(path)) return note(path + " is included again (an include loop?): read once");
    if (static_cast<int>(seen_.size()) >= kMaxLdConfFiles) {
      if (!files_cut_)
        note("more than " + std::to_string(kMaxLdConfFiles) + " conf files: " + path +
             " and the rest not read");
      files_cut_ = true;
      return;
    }
    seen_.insert(path);
    Result<std::string> text = read_node_file(root_, path, kMaxLdConfBytes, "a loader conf file");
    if (!text) {
      if (text.error().kind != ErrorKind::kNotFound || note_absent) note(text.error().message);
      return;
    }
    std::string_view rest = *text;
    while (!rest.empty()) {
      const size_t nl = rest.find('\n');
      line(path, rest.substr(0, nl), depth);
      rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    }
  }

  LdConf take() { return std::move(out_); }

 private:
  void note(const std::string& n) { out_.notes.push_back(n); }

  void line(const std::string& path, std::string_view l, int depth) {
    l = conf_trim(l.substr(0, l.find('#')));
    if (l.empty()) return;
    const auto keyword = [&](std::string_view k) {
      return l.size() > k.size() && l.starts_with(k) &&
             kConfBlank.find(l[k.size()]) != kConfBlank.npos;
    };
    if (keyword("include")) return includes(path, l.substr(7), depth);
    if (keyword("hwcap")) return;
    std::string dir(l);
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (dir.front() != '/') return note(path + ": \"" + dir + "\" is not an absolute directory");
    if (ld_conf_find(out_, dir)) return;
    if (out_.dirs.size() >= kMaxLdConfDirs) {
      if (out_.dirs.size() == kMaxLdConfDirs)
        note("more than " + std::to_string(kMaxLdConfDirs) + " directories: the rest not read");
      return;
    }
    out_.dirs.push_back({dir, path});
  }

  void includes(const std::string& path, std::string_view patterns, int depth) {
    while (!(patterns = conf_trim(patterns)).empty()) {
      const size_t end = patterns.find_first_of(kConfBlank);
      std::string p(patterns.substr(0, end));
      patterns = end == std::string_view::npos ? std::string_view{} : patterns.substr(end);
      if (p.front() != '/') p = conf_dir_of(path) + "/" + p;
      include(path, p, depth);
    }
  }

  void include(const std::string& path, const std::string& pattern, int depth) {
    const std::string dir = conf_dir_of(pattern);
    const std::string base = pattern.substr(pattern.rfind('/') + 1);
    if (conf_has_glob(dir))
      return note(path + ": include " + pattern +
                  ": a pattern in a directory part is not followed");
    if (!conf_has_glob(base)) return file(pattern, depth + 1, true);
    Result<std::vector<std::string>> names = root_.list(dir);
    if (!names) {
      if (names.error().kind != ErrorKind::kNotFound) note(names.error().message);
      return;
    }
    for (const std::string& n : *names) {  // sorted, as glob(3) returns them
      if (fnmatch(base.c_str(), n.c_str(), FNM_PERIOD) == 0) file(dir + "/" + n, depth + 1, false);
    }
  }

  const FsRoot& root_;
  std::set<std::string> seen_;
  bool files_cut_ = false;
  LdConf out_;
};

}  // namespace

LdConf read_ld_so_conf(const FsRoot& root) {
  ConfReader r(root);
  r.file("/etc/ld.so.conf", 0, false);
  return r.take();
}

const LdConfDir* ld_conf_find(const LdConf& conf, const std::string& dir) {
  for (const LdConfDir& d : conf.dirs) {
    if (d.dir == dir) return &d;
  }
  return nullptr;
}

}  // namespace gt
