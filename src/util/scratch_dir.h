// A scratch folder that does not outlive its process: removed when the
// object goes, and when SIGINT, SIGTERM or SIGHUP ends the process first
// (a bundle's replay extracts up to 1 GiB into TMPDIR; an operator's ^C or
// a timer's SIGTERM must not leave it there). The handler removes the tree
// with async-signal-safe calls only (openat, getdents64, unlinkat), then
// puts back the disposition it found and raises the signal again, so the
// process ends as it would have (exit status 128 + signal). One folder is
// guarded at a time: a second, made while the first lives, is removed only
// when its object goes.
#pragma once

#include <memory>
#include <string>

#include "util/result.h"

namespace gt {

class ScratchDir {
 public:
  /// mkdtemp(3) of `$TMPDIR/<prefix>.XXXXXX` (TMPDIR unset: /tmp); Io with
  /// errno when it cannot be made.
  static Result<std::unique_ptr<ScratchDir>> make(const std::string& prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path);
  std::string path_;
  bool guarded_ = false;  ///< whether the signal handlers watch this one
};

}  // namespace gt
