// The directories a Python interpreter imports third-party packages from,
// in the order it searches them, read from files as the interpreter's own
// startup finds them (CPython's Modules/getpath.py and Lib/site.py;
// docs.python.org/3/library/site.html and /sys_path_init.html):
//   1. PYTHONPATH's entries, from the process's environment;
//   2. the user site, ~/.local/lib/pythonX.Y/site-packages (HOME from the
//      environment), unless PYTHONNOUSERSITE is set or the interpreter is a
//      venv without include-system-site-packages (site.py disables it);
//   3. a venv's own site-packages (pyvenv.cfg beside the executable or one
//      directory up; `home` names the base interpreter's directory), then,
//      with `include-system-site-packages = true`, the base's;
//   4. each prefix's site directories: Debian's and Ubuntu's patched site.py
//      (prefix/local/lib/python3.X/dist-packages, prefix/lib/python3/
//      dist-packages, prefix/lib/python3.X/dist-packages: most CUDA base
//      images), the RHEL family's lib64/python3.X/site-packages before
//      lib/python3.X/site-packages (platlibdir), a conda or source build's
//      lib/python3.X/site-packages, and Fedora's prefix/local ones;
//   5. after each site directory, the directories its .pth files name
//      (sorted by file name; comment lines and `import` lines skipped, as
//      site.addpackage does).
// Only directories that exist are listed. X.Y comes from the executable's
// name after links (python3 -> python3.11), else from the prefix's
// lib/python3.* directories.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "util/fs_root.h"

namespace gt {

/// One interpreter as its process sees the filesystem.
struct PythonInterpreter {
  /// Prefix to read its files under: "/proc/PID/root" for a running
  /// process (its own root), "" for --python.
  std::string via;
  std::string executable;  ///< "/usr/bin/python3", "/opt/venv/bin/python"
  /// Its environment (PYTHONPATH, HOME, PYTHONNOUSERSITE); empty for
  /// --python, which is run by no process here.
  std::map<std::string, std::string> env;
};

/// The search path's existing directories, in import order, as the
/// interpreter names them (without `via`).
std::vector<std::string> python_search_path(const FsRoot& root, const PythonInterpreter& py);

}  // namespace gt
