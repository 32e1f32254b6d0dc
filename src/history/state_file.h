// The record across boots on disk: DIR/history.json, one JSON document,
// replaced atomically (util/atomic_file.h), read, changed and written under
// flock on DIR/history.lock. A file that does not parse, holds a time that
// is not an integer second in range, or holds more than a record may (the
// kMaxRecord* bounds) is set aside as history.json.corrupt-<unix time>-<pid>,
// with a warning, and the record starts afresh.
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/history.h"
#include "util/env.h"
#include "util/fs_root.h"
#include "util/result.h"

namespace gt {

inline constexpr const char* kDefaultStateDir = "/var/lib/gpu-triage";
/// The record's directory when --state-dir is not given: GPU_TRIAGE_STATE_DIR,
/// else kDefaultStateDir (a node's packaging, or a test, moves it once).
inline std::string default_state_dir() { return env_or("GPU_TRIAGE_STATE_DIR", kDefaultStateDir); }
inline constexpr const char* kHistoryFileName = "history.json";
inline constexpr const char* kHistoryLockName = "history.lock";
/// How long a run waits for another one's lock before it gives up recording.
inline constexpr std::chrono::milliseconds kHistoryLockWait{10000};

// The bounds of a record as read (kMaxRecord*, kMaxPrint*) and its keys
// live with the model types' descriptions (model/history.h,
// model/fingerprint.h), from which the document is written and read.

/// The document as written (and as `history --json` and the report show it).
nlohmann::ordered_json history_to_json(const GpuHistory& h);
/// Malformed when the text is not such a document.
Result<GpuHistory> history_from_json(std::string_view text);

/// Reads DIR/history.json (under the lock when DIR is writable): no file is
/// an empty record; a corrupt one is set aside (a line in `warnings`).
/// Error when the file cannot be read.
Result<GpuHistory> read_history(const std::string& dir, std::vector<std::string>& warnings);

/// For a triage run: creates DIR when missing, requires it writable, reads
/// the record and this boot's id (/proc/sys/kernel/random/boot_id under
/// `root`; printable ASCII, else no record). Error, in words, when the
/// record cannot be kept.
Result<GpuHistory> open_history(const std::string& dir, const FsRoot& root,
                                std::vector<std::string>& warnings);

/// Writes h to h.file atomically (no lock: see update_history).
Status write_history(const GpuHistory& h);

/// Under the lock: reads DIR's record, applies `change`, writes it back.
/// Error when the lock, the read or the write fails (nothing written).
Status update_history(const std::string& dir, const std::function<void(GpuHistory&)>& change,
                      std::vector<std::string>& warnings);

}  // namespace gt
