// --textfile DIR: the Prometheus metrics as a file for node_exporter's
// textfile collector (--collector.textfile.directory=DIR).
#pragma once

#include <string>

#include "util/result.h"

namespace gt {

/// The file name written in DIR. node_exporter reads only DIR/*.prom; the
/// temporary file's name does not end in .prom, so it is never read half
/// written.
inline constexpr const char* kTextfileName = "gpu-triage.prom";

/// Writes `content` to DIR/gpu-triage.prom atomically (util/atomic_file.h):
/// a temporary file made with mkstemp in DIR (same filesystem; a link
/// planted at either name is never written through), fsync, mode 0644,
/// rename over the old one, fsync of DIR. On failure the temporary file is
/// removed and the old file is untouched.
Status write_textfile_atomically(const std::string& dir, const std::string& content);

}  // namespace gt
