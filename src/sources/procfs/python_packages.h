// The python packages the GPU servers run, and which of their source files
// were changed in place (a local patch). A wheel's RECORD lists each file it
// installed with its sha256 (urlsafe base64, no padding) and size (PEP 376,
// PEP 627); a file whose size or hash no longer matches was edited after
// installation. Only *.py files are checked: a patch edits source, and the
// compiled parts (torch's .so files are gigabytes) would cost every run far
// more than the 30 ms a fingerprint may. Hashing is bounded in bytes per
// file and per run; where a bound is met, or a RECORD line has no hash, or
// a file cannot be read, the package says so (never reported as pristine).
//
// Where the environment is: a member's /proc/PID/maps naming a file under
// .../site-packages/ (or dist-packages), else its interpreter
// (/proc/PID/exe -> PREFIX/bin/pythonX) and PREFIX/lib/python3.*/site-packages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/fingerprint.h"
#include "model/server.h"
#include "util/fs_root.h"

namespace gt {

struct HashBounds {
  uint64_t per_file_bytes = 1ull << 20;  ///< a larger .py is not hashed (said)
  uint64_t per_run_bytes = 4ull << 20;   ///< reading stops here, each file at least 4 KiB (said)
  uint64_t record_bytes = 4ull << 20;    ///< a RECORD larger is not read (said)
};

/// One environment per distinct site-packages of the servers' members.
std::vector<PythonEnvPrint> read_python_envs(const FsRoot& root, const std::vector<Server>& servers,
                                             const HashBounds& bounds);

/// The packages of one site-packages directory; `budget_bytes` is what is
/// left to read this run (decremented: each RECORD and each hashed file, a
/// page at least). Once it is spent, the remaining packages' RECORDs are
/// not read: they are not fully checked, and `notes` (the environment's)
/// says how many.
std::vector<PackagePrint> read_site_packages(const FsRoot& root, const std::string& site,
                                             const HashBounds& bounds, uint64_t& budget_bytes,
                                             const std::string& first_package = "",
                                             std::vector<std::string>* notes = nullptr);

/// The site-packages directory of the first mapped file under one; nullopt
/// when none is mapped.
std::optional<std::string> site_packages_in_maps(std::string_view maps);

/// sha256 of `bytes` as RECORD writes it (urlsafe base64, no padding).
std::string record_digest(std::string_view bytes);

/// Whether a RECORD hash field ("sha256=...") is the sha256 of `bytes`, in
/// either form real RECORDs hold: the wheel spec's urlsafe base64 without
/// padding (pip, uv), or lower- or upper-case hex, which Debian's Python
/// packaging writes (Debian 12's blinker, charset-normalizer, distro;
/// docs/fingerprint.md). Any other algorithm or form is no match.
bool record_hash_matches(std::string_view field, std::string_view bytes);

/// A RECORD line's three CSV fields (path, "sha256=...", size), quotes
/// undone; nullopt when it does not have three.
struct RecordLine {
  std::string path;
  std::string hash;  ///< "sha256=..." or ""
  std::optional<uint64_t> size_bytes;
};
std::optional<RecordLine> parse_record_line(std::string_view line);

}  // namespace gt
