#include "sources/cuda/python_search_path.h"

#include <sys/stat.h>

#include <cctype>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

namespace gt {
namespace {

constexpr int kMaxExecutableLinks = 8;
constexpr size_t kMaxPthFiles = 64;
constexpr size_t kMaxPthBytes = 64 << 10;

std::string py_dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::string py_base_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

/// "3.11" of "python3.11"; nullopt for "python3", "python".
std::optional<std::string> py_version_in_name(const std::string& base) {
  if (!base.starts_with("python")) return std::nullopt;
  const std::string v = base.substr(6);
  const size_t dot = v.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == v.size()) return std::nullopt;
  for (size_t i = 0; i < v.size(); ++i)
    if (i != dot && (v[i] < '0' || v[i] > '9')) return std::nullopt;
  return v;
}

/// The executable after its links ("/usr/bin/python3" -> "/usr/bin/python3.11").
std::string py_real_executable(const FsRoot& root, const PythonInterpreter& py) {
  std::string exe = py.executable;
  for (int hop = 0; hop < kMaxExecutableLinks; ++hop) {
    std::optional<std::string> target = root.read_link(py.via + exe);
    if (!target || target->empty()) break;
    exe = target->front() == '/' ? *target : py_dir_of(exe) + "/" + *target;
  }
  return exe;
}

std::string py_stripped(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(" \t\r") - b + 1));
}

/// The text's lines, blanks stripped at both ends.
std::vector<std::string> py_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(py_stripped(line));
  return out;
}

/// "key = value" lines of pyvenv.cfg.
std::map<std::string, std::string> py_venv_config(const std::string& text) {
  std::map<std::string, std::string> out;
  for (const std::string& line : py_lines(text)) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    // site.py lower-cases the keys and include-system-site-packages' value.
    std::string key = py_stripped(std::string_view(line).substr(0, eq));
    std::string value = py_stripped(std::string_view(line).substr(eq + 1));
    auto lower = [](std::string& t) {
      for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    };
    lower(key);
    if (key == "include-system-site-packages") lower(value);
    out[key] = value;
  }
  return out;
}

/// The search path under construction: existing directories, each once.
class PyPath {
 public:
  PyPath(const FsRoot& root, const std::string& via) : root_(root), via_(via) {}

  bool add(const std::string& dir) {
    if (dir.empty() || dir.front() != '/' || seen_.count(dir)) return false;
    Result<struct stat> st = root_.stat(via_ + dir);
    if (!st || !S_ISDIR(st->st_mode)) return false;
    seen_.insert(dir);
    dirs_.push_back(dir);
    return true;
  }

  /// A site directory: itself, then what its .pth files name (site.addsitedir).
  void add_site(const std::string& dir) {
    if (!add(dir)) return;
    Result<std::vector<std::string>> names = root_.list(via_ + dir);
    if (!names) return;
    size_t files = 0;
    for (const std::string& n : *names) {
      if (!n.ends_with(".pth") || n.starts_with(".") || ++files > kMaxPthFiles) continue;
      Result<std::string> text = root_.read(via_ + dir + "/" + n);
      if (!text || text->size() > kMaxPthBytes) continue;
      for (const std::string& line : py_lines(*text)) {
        if (line.empty() || line.front() == '#' || line.starts_with("import ") ||
            line.starts_with("import\t"))
          continue;
        add(line.front() == '/' ? line : dir + "/" + line);
      }
    }
  }

  std::vector<std::string> take() { return std::move(dirs_); }

 private:
  const FsRoot& root_;
  const std::string& via_;
  std::set<std::string> seen_;
  std::vector<std::string> dirs_;
};

/// A prefix's site directories in the order the distributions' site.py
/// lists them (the header's item 4).
void py_add_prefix_sites(PyPath& path, const std::string& prefix, const std::string& v) {
  const std::string p = prefix == "/" ? "" : prefix;
  for (const std::string& d :
       {p + "/local/lib/python" + v + "/dist-packages",
        p + "/local/lib64/python" + v + "/site-packages",
        p + "/local/lib/python" + v + "/site-packages", p + "/lib/python3/dist-packages",
        p + "/lib/python" + v + "/dist-packages", p + "/lib64/python" + v + "/site-packages",
        p + "/lib/python" + v + "/site-packages"})
    path.add_site(d);
}

/// X.Y: the executable's name after links, else the prefix's lib/python3.*.
std::optional<std::string> py_version(const FsRoot& root, const PythonInterpreter& py,
                                      const std::string& exe, const std::string& prefix) {
  for (const std::string& e : {py.executable, exe})
    if (std::optional<std::string> v = py_version_in_name(py_base_of(e))) return v;
  Result<std::vector<std::string>> libs = root.list(py.via + prefix + "/lib");
  if (!libs) return std::nullopt;
  for (const std::string& d : *libs)
    if (std::optional<std::string> v = py_version_in_name(d)) return v;
  return std::nullopt;
}

struct PyVenv {
  std::string prefix;
  std::map<std::string, std::string> config;
};

/// pyvenv.cfg beside the executable or one directory up (getpath.py).
std::optional<PyVenv> py_find_venv(const FsRoot& root, const PythonInterpreter& py) {
  const std::string bin = py_dir_of(py.executable);
  for (const std::string& dir : {bin, py_dir_of(bin)}) {
    Result<std::string> text = root.read(py.via + (dir == "/" ? "" : dir) + "/pyvenv.cfg");
    if (text) return PyVenv{dir, py_venv_config(*text)};
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> python_search_path(const FsRoot& root, const PythonInterpreter& py) {
  PyPath path(root, py.via);
  if (auto pp = py.env.find("PYTHONPATH"); pp != py.env.end()) {
    std::istringstream in(pp->second);
    for (std::string d; std::getline(in, d, ':');) path.add(d);
  }
  const std::optional<PyVenv> venv = py_find_venv(root, py);
  const std::string exe = py_real_executable(root, py);
  std::string base_prefix = py_dir_of(py_dir_of(exe));
  if (venv && venv->config.count("home")) base_prefix = py_dir_of(venv->config.at("home"));
  const std::optional<std::string> v = py_version(root, py, exe, venv ? venv->prefix : base_prefix);
  if (!v) return path.take();
  const bool system_site = !venv || (venv->config.count("include-system-site-packages") &&
                                     venv->config.at("include-system-site-packages") == "true");
  const auto home = py.env.find("HOME");
  if (system_site && home != py.env.end() && !py.env.count("PYTHONNOUSERSITE"))
    path.add_site(home->second + "/.local/lib/python" + *v + "/site-packages");
  if (venv) {
    path.add_site(venv->prefix + "/lib/python" + *v + "/site-packages");
    path.add_site(venv->prefix + "/lib64/python" + *v + "/site-packages");
  }
  if (system_site) py_add_prefix_sites(path, base_prefix, *v);
  return path.take();
}

}  // namespace gt
