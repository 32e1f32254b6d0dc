// ByteSource: the one seam between the verifiers and the disk. Verifiers are
// functions over a ByteSource, so tests and fuzzers feed them bytes in memory
// while the tool feeds them a file opened read-only and read with pread.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "data/problem.h"
#include "util/result.h"

namespace gt {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Size in bytes, fixed when the source was opened.
  virtual uint64_t size() const = 0;
  /// Reads up to `len` bytes at `offset` into `out`; returns how many were
  /// read (short only at the end; 0 at or past it, for any offset and len,
  /// and `out` is not touched when len is 0), or an I/O error.
  virtual Result<size_t> read_at(uint64_t offset, uint8_t* out, size_t len) const = 0;
  /// The bytes [offset, offset + len) when the source already holds them in
  /// memory (len > 0, the range within the source), else nullptr: what
  /// view_or_note() lends without a copy.
  virtual const uint8_t* held(uint64_t offset, size_t len) const {
    (void)offset;
    (void)len;
    return nullptr;
  }
};

/// Bytes held in memory (tests, fuzzing).
class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string bytes) : bytes_(std::move(bytes)) {}
  uint64_t size() const override { return bytes_.size(); }
  Result<size_t> read_at(uint64_t offset, uint8_t* out, size_t len) const override;
  const uint8_t* held(uint64_t offset, size_t len) const override;

 private:
  std::string bytes_;
};

/// What a stat of a regular file said: its size and mtime.
struct FileStat {
  uint64_t size_bytes = 0;
  int64_t mtime_unix_s = 0;
  uint32_t mtime_nsec = 0;
};

/// A regular file opened O_RDONLY; never written.
class FileSource : public ByteSource {
 public:
  /// Opens `path` read-only and stats it. Fails with the errno text and the
  /// path, or when it is no regular file.
  static Result<std::unique_ptr<FileSource>> open(const std::string& path);
  /// What open_at found at a name: the open regular file, or what else the
  /// name is (a link, a FIFO, a directory, a device), which is never read.
  struct Opened {
    std::unique_ptr<FileSource> file;  ///< null when the name is no regular file
    mode_t mode = S_IFREG;             ///< S_IFMT bits of what the name is
    int64_t mtime_unix_s = 0;  ///< no regular file: its own mtime (a link's, not its target's)
  };
  /// Opens `name` relative to the open directory `dirfd` (AT_FDCWD: a path)
  /// without following a link (O_NOFOLLOW: ELOOP, then the link is lstat'ed
  /// for `mode`) or blocking on a FIFO (O_NONBLOCK), and takes its one stat
  /// on the open file (fstat): the data scan's one stat per file. A size
  /// changed between that stat and the reads shows in prefetch(). Fails with
  /// the errno text and `path`, which is only used in messages.
  static Result<Opened> open_at(int dirfd, const char* name, const std::string& path);
  ~FileSource() override;
  uint64_t size() const override { return size_; }
  int64_t mtime_unix_s() const { return mtime_unix_s_; }
  uint32_t mtime_nsec() const { return mtime_nsec_; }
  /// True when prefetch() found the file longer or shorter than its stat
  /// said (each of its reads asks for one byte past the end): no system call.
  bool size_moved() const { return size_moved_; }
  /// size_moved(), or the file's size or mtime differs now (one fstat) from
  /// its stat: something wrote to it while it was being verified.
  bool changed_since_open() const;
  Result<size_t> read_at(uint64_t offset, uint8_t* out, size_t len) const override;
  /// Inside the prefetched head or tail.
  const uint8_t* held(uint64_t offset, size_t len) const override;
  /// Reads the whole file if it is at most `small_bytes`, else its first
  /// `head_bytes` and last `tail_bytes`, each in one pread; later reads
  /// inside those ranges are served from memory. This turns the ~20 small
  /// reads a zip check makes into one or two system calls. The last read
  /// asks for one byte more than the file holds, so a size changed since
  /// the stat sets size_moved(). A read that stops short exactly where the
  /// stat said the file ends is taken as its end (Linux reads a regular file
  /// short only there), so the byte past it costs no second call: one pread
  /// for a small file, as the floor of quick mode (bench/data_floor.cc).
  Status prefetch(size_t small_bytes, size_t head_bytes, size_t tail_bytes);

 private:
  FileSource(int fd, const FileStat& st)
      : fd_(fd), size_(st.size_bytes), mtime_unix_s_(st.mtime_unix_s), mtime_nsec_(st.mtime_nsec) {}
  /// The open regular file `fd`, whose stat said `st`.
  static std::unique_ptr<FileSource> adopt(int fd, const struct stat& st);
  /// pread until `len` bytes are read or the file ends; a short read that
  /// reaches `end` (where the stat said the file ends) is its end.
  Result<size_t> pread_all(uint64_t offset, uint8_t* out, size_t len,
                           uint64_t end = UINT64_MAX) const;
  int fd_;
  uint64_t size_;
  int64_t mtime_unix_s_;
  uint32_t mtime_nsec_;
  bool size_moved_ = false;
  // [0, head_.size()) and [size_ - tail_.size(), size_). head_'s storage
  // passes to the thread's next FileSource (a scan's next file).
  std::vector<uint8_t> head_, tail_;
};

/// Overflow-safe arithmetic for sizes and offsets taken from file headers.
/// nullopt when the result does not fit in 64 bits.
inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// True when [offset, offset+len) lies within [0, size), without overflow.
inline bool range_within(uint64_t offset, uint64_t len, uint64_t size) {
  return offset <= size && len <= size - offset;
}

/// Reads exactly [offset, offset+len) or fails; a short read is an error
/// that names the range ("read 40 bytes at 1234: end of file"). Nothing is
/// allocated for a range that does not lie within the source.
Result<std::vector<uint8_t>> read_exact(const ByteSource& src, uint64_t offset, size_t len);

/// Reads up to `len` bytes at `offset`; nullopt (and check.io_error set) on
/// an I/O error, else the bytes, shorter than `len` at the end of the file
/// (empty at or past it). Allocates at most what the source holds there.
std::optional<std::vector<uint8_t>> read_or_note(const ByteSource& src, uint64_t offset, size_t len,
                                                 FileCheck& check);

/// As read_or_note, but the bytes are lent, not copied: a view of what the
/// source holds in memory (ByteSource::held: a prefetched file's head or
/// tail), else of `scratch`, which they are read into. The view lives as
/// long as the source and `scratch` are untouched. Counts bytes_read alike.
std::optional<std::span<const uint8_t>> view_or_note(const ByteSource& src, uint64_t offset,
                                                     size_t len, std::vector<uint8_t>& scratch,
                                                     FileCheck& check);

/// Little-endian integer loads from a byte pointer.
inline uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
inline uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

/// True when all `len` bytes at `p` are zero (fast: word at a time).
bool all_zero(const uint8_t* p, size_t len);

}  // namespace gt
