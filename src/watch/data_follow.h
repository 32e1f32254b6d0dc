// Following the job's output folder (--data DIR) while watch runs: each new
// or rewritten file is verified (structure and every CRC, the data command's
// deep check) once it has not changed for kSettleS seconds, which is how a
// closed file looks from outside its writer; the pace of new intact files
// per minute is compared with the job's previous pace (from the files that
// were there when watch started), and with --expect N an ETA is given.
//
// Raised at once: a new bad file; a stall (no new file for kStallFactor
// usual intervals, at least kMinStallS); DIR gone, or another filesystem
// now (it was unmounted). Each is said once, and said again only after it
// cleared.
//
// DIR is followed by its path, as `tail -F` follows a file: a DIR that does
// not exist yet when watch starts (watch first, then the job that makes
// it) is waited for and said "created" when it appears; one the job makes
// anew on the same filesystem (`rm -rf out; mkdir out`, or moved away and
// made again) is said "recreated". Either way its files are new: each is
// verified once settled, as any new file.
//
// Cost per tick: one walk of DIR (names, sizes, mtimes; no reads), and one
// verification per settled new file. Memory: one entry per file seen (path,
// size, mtime), as the data command's own scan.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "watch/changes.h"

namespace gt {

/// A new file found bad, named relative to DIR (the screen's DATA line
/// names DIR), so its name fits a row.
struct DataBadFile {
  std::string rel;
  std::string why;  ///< "truncated: truncated at byte 2000 of 4128"
  int64_t time_unix_ms = 0;
};

struct DataFollowProgress {
  /// The `f` view lists at most this many bad files (new_bad counts all)
  /// and this many stall changes (the newest).
  static constexpr size_t kMaxListedBad = 200, kMaxListedStalls = 20;

  uint64_t files = 0;                      ///< files in DIR (any state)
  uint64_t new_intact = 0;                 ///< new files verified intact since watch started
  uint64_t new_bad = 0;                    ///< new files verified bad since watch started
  uint64_t pending = 0;                    ///< new files not settled yet
  bool waiting = false;                    ///< DIR has not existed yet, at any tick so far
  std::optional<double> per_min;           ///< new intact files, last 5 minutes' pace
  std::optional<double> previous_per_min;  ///< the pace before watch started
  std::optional<int64_t> remaining;        ///< --expect N minus intact samples
  std::optional<double> eta_s;             ///< remaining at the current (else previous) pace
  bool stalled = false;
  std::string stall_reason;  ///< "no new file for 2 min (usual interval 10 s)" while stalled
  bool gone = false;
  std::vector<DataBadFile> bad_files;   ///< the first kMaxListedBad new bad files, oldest first
  std::optional<DataBadFile> last_bad;  ///< the newest one
  std::deque<Change> stalls;            ///< stalls and resumptions, the newest kMaxListedStalls
};

class DataFollower {
 public:
  static constexpr int64_t kSettleS = 3;
  static constexpr double kStallFactor = 5;
  static constexpr double kMinStallS = 10;

  /// Takes the folder as it is now: its files are the baseline (their
  /// mtimes give the previous pace; they are not verified here: the
  /// triage's --data does that). A folder not there yet has no baseline.
  /// `values`: also count NaN/Inf in float tensors (--values), a
  /// non-finite value making the file bad.
  DataFollower(std::string dir, std::optional<int64_t> expect, int64_t now_unix_ms,
               bool values = false);

  /// One tick: walks DIR, verifies settled new files, returns the changes.
  std::vector<Change> poll(int64_t now_unix_ms);
  const DataFollowProgress& progress() const { return progress_; }
  const std::string& dir() const { return dir_; }

 private:
  struct Seen {
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    int64_t changed_ms = 0;  ///< when we last saw it change
    bool verified = false;   ///< this size/mtime was verified
    bool baseline = false;   ///< there when watch started, unchanged since
  };
  using Listing = std::map<std::string, std::pair<uint64_t, int64_t>>;  // rel -> size, mtime_ns
  /// Tells one folder at the path from another made there later: the
  /// inode alone does not, as a folder removed and made again often gets
  /// the same inode number at once (ext4 does); the birth time, where the
  /// filesystem keeps one (statx), does.
  struct Identity {
    dev_t dev = 0;
    ino_t ino = 0;
    std::optional<std::pair<int64_t, uint32_t>> born;  ///< s, ns
    bool same_folder(const Identity& o) const;
  };
  /// 0 and `id` for a folder at dir_; else the errno (ENOTDIR: not one).
  int identify(Identity& id) const;

  bool follow_path(int64_t now, std::vector<Change>& out);
  void lost(int err, int64_t now, std::vector<Change>& out);
  void adopt(Identity id, int64_t now);
  void verify_settled(int64_t now, std::vector<Change>& out);
  void update_pace(int64_t now, std::vector<Change>& out);
  std::optional<double> pace_span_s(int64_t now) const;
  void note_stall(Change c, std::vector<Change>& out);
  Change change(ChangeKind kind, Severity sev, std::string text, int64_t now) const;

  std::string dir_;
  std::optional<int64_t> expect_;
  bool values_ = false;
  std::optional<Identity> identity_;  ///< the folder seen_ describes
  dev_t home_dev_ = 0;                ///< its filesystem, when first seen
  std::map<std::string, Seen> seen_;
  /// A new intact file: when watch verified it, and when it was written.
  struct Intact {
    int64_t seen_ms = 0;
    int64_t mtime_ns = 0;
  };
  std::deque<Intact> intact_;  ///< the new intact files verified in the last 5 min, by seen_ms
  std::optional<double> usual_interval_s_;
  int64_t last_new_ms_ = 0;
  uint64_t baseline_intact_ = 0;
  uint64_t intact_before_recreated_ = 0;  ///< new_intact when DIR was last recreated
  DataFollowProgress progress_;
};

}  // namespace gt
