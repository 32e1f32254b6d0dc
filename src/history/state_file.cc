#include "history/state_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "history/record.h"
#include "report/json_codec.h"
#include "report/json_read.h"
#include "util/atomic_file.h"
#include "util/errno_error.h"
#include "util/json_text.h"
#include "util/numeric.h"
#include "util/read_capped.h"

namespace gt {

/// The record is a few KiB (16 boots, a few GPUs); anything this big is not it.
constexpr uint64_t kMaxHistoryBytes = 16ull << 20;
constexpr const char* kHistorySchema = "gpu-triage/history";
/// 2: boots hold fingerprints (version 1 records, read too, have none).
constexpr int kHistoryVersion = 2;

namespace {

using J = nlohmann::ordered_json;

int64_t now_unix_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// The document's record (model/history.h describe_record), read as its
/// description says: a missing key that older records had, a time outside
/// 1970..9999 or a list or text over its bound is an error.
GpuHistory parse_document(const J& j) {
  const json_read::Obj o(j, "history");
  std::string schema;
  o.get("schema", schema);
  if (schema != kHistorySchema) throw json_read::ReadError{"not a gpu-triage history (schema)"};
  GpuHistory h;
  const json_read::Reader r(o);
  describe_record(h, r);
  return h;
}

/// Moves a corrupt file out of the way; the warning says where.
std::string set_aside(const std::string& file, const std::string& why) {
  const std::string aside =
      file + ".corrupt-" + std::to_string(now_unix_s()) + "-" + std::to_string(::getpid());
  if (std::rename(file.c_str(), aside.c_str()) != 0) {
    const int err = errno;  // before the message is built
    return errno_error(err,
                       "history: " + file + " is corrupt (" + why + ") and could not be set aside")
               .message +
           "; not recorded";
  }
  return "history: " + file + " was corrupt (" + why + "): set aside as " + aside +
         "; the record starts afresh";
}

Status ensure_dir(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) return errno_error(errno, "cannot read " + dir);
    if (::mkdir(dir.c_str(), 0755) != 0) return errno_error(errno, "cannot create " + dir);
    return ok_status();
  }
  if (!S_ISDIR(st.st_mode)) return Error{ErrorKind::kIo, dir + " is not a directory"};
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return errno_error(errno, dir + " is not writable");
  return ok_status();
}

/// Whether a boot id read from the kernel can key the record: printable
/// ASCII of a sane length (the kernel's is a 36-character UUID).
bool usable_boot_id(const std::string& id) {
  return !id.empty() && id.size() <= kMaxRecordTextBytes &&
         std::all_of(id.begin(), id.end(), [](unsigned char c) { return c > ' ' && c < 0x7f; });
}

/// flock(LOCK_EX) on DIR/history.lock, held while the object lives. The
/// record is read, changed and replaced under it, so two runs sharing the
/// directory (serve and a manual triage, two cron jobs) never lose each
/// other's records. Waits at most kHistoryLockWait, polling, so a stuck
/// holder delays a run but never hangs it.
class RecordLock {
 public:
  explicit RecordLock(const std::string& dir) {
    const std::string path = dir + "/" + kHistoryLockName;
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd_ < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
      fd_ = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      // Absent from a directory this user cannot write, or not ours to
      // open: a reader may read without it (read_history).
      readable_unlocked_ = errno == ENOENT || errno == EACCES || errno == EPERM || errno == EROFS;
      status_ = errno_error(errno, "cannot open the lock " + path);
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + kHistoryLockWait;
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if ((errno != EWOULDBLOCK && errno != EINTR) ||
          std::chrono::steady_clock::now() >= deadline) {
        status_ = errno == EWOULDBLOCK
                      ? Status(Error{ErrorKind::kIo,
                                     path + " is held by another run for more than " +
                                         std::to_string(kHistoryLockWait.count()) + " ms"})
                      : Status(errno_error(errno, "cannot lock " + path));
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ~RecordLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  RecordLock(const RecordLock&) = delete;
  RecordLock& operator=(const RecordLock&) = delete;
  const Status& status() const { return status_; }
  /// The lock file could not be opened for want of rights (or is absent
  /// where it cannot be created): the record may be read without it.
  bool readable_unlocked() const { return readable_unlocked_; }

 private:
  int fd_ = -1;
  bool readable_unlocked_ = false;
  Status status_ = ok_status();
};

Result<GpuHistory> read_unlocked(const std::string& dir, std::vector<std::string>& warnings);

}  // namespace

J history_to_json(const GpuHistory& h) {
  J j{{"schema", kHistorySchema}, {"version", kHistoryVersion}};
  const json_codec::Writer w(j);
  describe_record(h, w);
  return j;
}

Result<GpuHistory> history_from_json(std::string_view text) {
  try {
    return parse_document(J::parse(text));
  } catch (const json_read::ReadError& e) {
    return Error{ErrorKind::kMalformed, e.message};
  } catch (const std::exception& e) {
    return Error{ErrorKind::kMalformed, e.what()};
  }
}

namespace {

Result<GpuHistory> read_unlocked(const std::string& dir, std::vector<std::string>& warnings) {
  const std::string file = dir + "/" + kHistoryFileName;
  if (::access(file.c_str(), F_OK) != 0 && errno == ENOENT) {
    GpuHistory h;
    h.file = file;
    return h;
  }
  // Never follow a link, never block on a FIFO, never read past the cap.
  int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return errno_error(errno, "cannot read " + file);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{ErrorKind::kMalformed, file + " is not a regular file"};
  }
  Result<std::string> text = read_fd_capped(fd, file, kMaxHistoryBytes, "the history record");
  ::close(fd);
  if (!text) return text.error();
  Result<GpuHistory> h = history_from_json(*text);
  if (!h) {
    warnings.push_back(set_aside(file, h.error().message));
    h = GpuHistory{};
  }
  h->file = file;
  return h;
}

}  // namespace

Result<GpuHistory> read_history(const std::string& dir, std::vector<std::string>& warnings) {
  if (::access(dir.c_str(), F_OK) != 0 && errno == ENOENT) return read_unlocked(dir, warnings);
  // A reader that cannot open or create the lock (a user reading root's
  // record) reads without it: the record is replaced atomically, and
  // setting a corrupt file aside fails for it anyway. Held too long by
  // another run: an error, not a read that could race its set-aside.
  RecordLock lock(dir);
  if (!lock.status() && !lock.readable_unlocked()) return lock.status().error();
  return read_unlocked(dir, warnings);
}

Result<GpuHistory> open_history(const std::string& dir, const FsRoot& root,
                                std::vector<std::string>& warnings) {
  std::optional<std::string> boot = root.read_optional_trimmed("/proc/sys/kernel/random/boot_id");
  if (!boot || boot->empty())
    return Error{ErrorKind::kNotFound, "no boot id (/proc/sys/kernel/random/boot_id not readable)"};
  if (!usable_boot_id(*boot))
    return Error{ErrorKind::kMalformed,
                 std::string("/proc/sys/kernel/random/boot_id") +
                     " does not hold a boot id (not printable ASCII of at most " +
                     std::to_string(kMaxRecordTextBytes) + " bytes)"};
  if (Status s = ensure_dir(dir); !s) return s.error();
  Result<GpuHistory> h = read_history(dir, warnings);
  if (h) h->boot_id = *boot;
  return h;
}

Status write_history(const GpuHistory& h) {
  return write_file_atomically(h.file, json_text(history_to_json(h), 1) + "\n", 0644);
}

Status update_history(const std::string& dir, const std::function<void(GpuHistory&)>& change,
                      std::vector<std::string>& warnings) {
  RecordLock lock(dir);
  if (!lock.status()) return lock.status();
  Result<GpuHistory> h = read_unlocked(dir, warnings);
  if (!h) return h.error();
  change(*h);
  return write_history(*h);
}

}  // namespace gt
