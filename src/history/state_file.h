// The record across boots on disk: DIR/history.json, one JSON document,
// replaced atomically (temporary file, fsync, rename). A file that does not
// parse is set aside as history.json.corrupt-<unix time>, with a warning,
// and the record starts afresh.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/history.h"
#include "util/fs_root.h"
#include "util/result.h"

namespace gt {

inline constexpr const char* kDefaultStateDir = "/var/lib/gpu-triage";
inline constexpr const char* kHistoryFileName = "history.json";

/// The document as written (and as `history --json` and the report show it).
nlohmann::ordered_json history_to_json(const GpuHistory& h);
/// Malformed when the text is not such a document.
Result<GpuHistory> history_from_json(std::string_view text);

/// Reads DIR/history.json: no file is an empty record; a corrupt one is set
/// aside (a line in `warnings`). Error when the file cannot be read.
Result<GpuHistory> read_history(const std::string& dir, std::vector<std::string>& warnings);

/// For a triage run: creates DIR when missing, requires it writable, reads
/// the record and this boot's id (/proc/sys/kernel/random/boot_id under
/// `root`). Error, in words, when the record cannot be kept.
Result<GpuHistory> open_history(const std::string& dir, const FsRoot& root,
                                std::vector<std::string>& warnings);

/// Writes h to h.file atomically.
Status write_history(const GpuHistory& h);

}  // namespace gt
