// Acting on the answer: the resume list, and moving bad files out of the
// tree so that pipelines which skip existing files regenerate them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "data/analysis.h"
#include "data/layouts.h"
#include "util/atomic_file.h"
#include "util/result.h"

namespace gt {

/// Writes one key per line ("123", or "<worker>/<k>" for EAGLE) to `path`
/// atomically (util/atomic_file.h: a temporary file in the same directory,
/// fsync, rename, fsync of the directory).
/// A reader sees the old list or the whole new one, never a part. The keys
/// are written as they are generated from the runs (memory does not grow
/// with their number); more than kMaxSamples of them is an error, checked
/// before anything is written.
Status write_resume_list(const std::string& path, const std::vector<KeyRun>& runs);

/// Moves `path` (relative `rel` under its DIR) to dest/rel, creating
/// directories, never overwriting (a ".1", ".2"... suffix instead) and never
/// deleting: rename(2) only, so dest must be on the same filesystem.
/// Returns the new path.
Result<std::string> move_out(const std::string& path, const std::string& rel,
                             const std::string& dest);

/// Checks a --move-bad-to DEST before anything is scanned or created: it is
/// a directory or can be created (its nearest existing ancestor is a
/// writable directory), lies on the same filesystem as every DIR (files are
/// renamed, never copied), and is neither inside a DIR nor holds one.
Status check_move_target(const std::string& dest, const std::vector<std::string>& dirs);

/// True when `inner` is `outer` or lies below it (both resolved with
/// realpath; `inner` need not exist yet, its nearest existing parent is used).
bool path_is_within(const std::string& inner, const std::string& outer);

}  // namespace gt
