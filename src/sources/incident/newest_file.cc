#include "sources/incident/newest_file.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <deque>

#include "util/errno_error.h"

namespace gt {
namespace {

struct Dir {
  std::string path;  // as seen from "/"
  std::string host;  // where it is on this machine: resolved in the root once,
                     // then extended by names whose lstat says "directory"
  int depth = 0;
};

/// Notes one regular file; false when it is dated in the future.
void consider(const std::string& path, int64_t mtime, std::optional<int64_t> now, NewestFile& nf,
              ClockState& clock) {
  if (now && mtime > *now + kFutureSlackS) {
    if (clock.future_files++ == 0) clock.future_example = path;
    return;
  }
  if (!nf.mtime_unix_s || mtime > *nf.mtime_unix_s) {
    nf.mtime_unix_s = mtime;
    nf.path = path;
  }
}

bool out_of_budget(const NewestFile& nf, const WalkLimits& limits) {
  return nf.entries_seen >= limits.max_entries ||
         std::chrono::steady_clock::now() > limits.deadline;
}

}  // namespace

NewestFile find_newest_file(const FsRoot& root, const std::string& dir, std::optional<int64_t> now,
                            const WalkLimits& limits, ClockState& clock) {
  NewestFile nf;
  nf.dir = dir;
  // The top is resolved in the root (a link there is the tree's, never
  // this machine's); below it only entries lstat calls directories are
  // entered, so no link is followed.
  Result<std::string> top = root.resolve(dir);
  if (!top) {
    nf.error = "cannot open " + dir + ": " + top.error().message;
    return nf;
  }
  std::deque<Dir> todo{{dir, *top, 0}};
  bool first = true;
  while (!todo.empty()) {
    Dir d = std::move(todo.front());
    todo.pop_front();
    DIR* h = ::opendir(d.host.c_str());
    if (!h) {
      const int err = errno;  // before the message is built
      if (first) nf.error = errno_error(err, "cannot open " + dir).message;
      first = false;
      continue;
    }
    first = false;
    const std::string prefix = d.path == "/" ? "/" : d.path + "/";
    const std::string host_prefix = d.host.ends_with('/') ? d.host : d.host + "/";
    while (dirent* e = ::readdir(h)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (out_of_budget(nf, limits)) {
        nf.capped = true;
        break;
      }
      ++nf.entries_seen;
      struct stat st {};
      const std::string p = prefix + name;
      const std::string hp = host_prefix + name;
      if (::lstat(hp.c_str(), &st) != 0) continue;
      if (S_ISREG(st.st_mode)) consider(p, st.st_mtime, now, nf, clock);
      if (!S_ISDIR(st.st_mode)) continue;
      if (d.depth + 1 > limits.max_depth)
        nf.capped = true;
      else
        todo.push_back({p, hp, d.depth + 1});
    }
    ::closedir(h);
    if (nf.capped && out_of_budget(nf, limits)) break;
  }
  return nf;
}

}  // namespace gt
