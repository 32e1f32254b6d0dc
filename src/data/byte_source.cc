#include "data/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "util/errno_error.h"

namespace gt {

namespace {

// The head storage of the last FileSource closed on this thread, up to
// kSpareBytes, lent to the next one's prefetch: a scan's small file then
// costs no allocation.
constexpr size_t kSpareBytes = 256 << 10;
thread_local std::vector<uint8_t> t_spare;

// How many of `len` bytes at `offset` lie within a source of `size` bytes.
size_t available(uint64_t offset, size_t len, uint64_t size) {
  return offset >= size ? 0 : static_cast<size_t>(std::min<uint64_t>(len, size - offset));
}

}  // namespace

Result<size_t> MemorySource::read_at(uint64_t offset, uint8_t* out, size_t len) const {
  size_t n = available(offset, len, bytes_.size());
  if (n > 0) std::memcpy(out, bytes_.data() + offset, n);
  return n;
}

const uint8_t* MemorySource::held(uint64_t offset, size_t len) const {
  return len > 0 && range_within(offset, len, bytes_.size())
             ? reinterpret_cast<const uint8_t*>(bytes_.data()) + offset
             : nullptr;
}

Result<std::unique_ptr<FileSource>> FileSource::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return errno_error(errno, "opening " + path);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{ErrorKind::kIo, path + ": not a regular file"};
  }
  return adopt(fd, st);
}

std::unique_ptr<FileSource> FileSource::adopt(int fd, const struct stat& st) {
  return std::unique_ptr<FileSource>(
      new FileSource(fd, {static_cast<uint64_t>(st.st_size), st.st_mtim.tv_sec,
                          static_cast<uint32_t>(st.st_mtim.tv_nsec)}));
}

Result<FileSource::Opened> FileSource::open_at(int dirfd, const char* name,
                                               const std::string& path) {
  struct stat st;
  int fd = ::openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) {
    const int err = errno;  // before the lstat
    if (err == ELOOP && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
      return Opened{nullptr, S_IFLNK, st.st_mtim.tv_sec};
    return errno_error(err, "opening " + path);
  }
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return errno_error(err, "opening " + path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Opened{nullptr, st.st_mode & S_IFMT, st.st_mtim.tv_sec};
  }
  return Opened{adopt(fd, st), S_IFREG, st.st_mtim.tv_sec};
}

bool FileSource::changed_since_open() const {
  if (size_moved_) return true;
  struct stat st;
  if (fstat(fd_, &st) != 0) return false;
  return static_cast<uint64_t>(st.st_size) != size_ || st.st_mtim.tv_sec != mtime_unix_s_ ||
         static_cast<uint32_t>(st.st_mtim.tv_nsec) != mtime_nsec_;
}

FileSource::~FileSource() {
  ::close(fd_);
  // Its size kept too: the next file's resize then zero-fills only bytes
  // past it, which its read overwrites anyway.
  if (head_.capacity() > t_spare.capacity() && head_.capacity() <= kSpareBytes) t_spare.swap(head_);
}

Status FileSource::prefetch(size_t small_bytes, size_t head_bytes, size_t tail_bytes) {
  const bool small = size_ <= small_bytes;
  if (head_.capacity() == 0) head_.swap(t_spare);
  // A small file whole, and one byte more: it was no longer than its stat.
  head_.resize(small ? size_ + 1 : std::min<uint64_t>(size_, head_bytes));
  Result<size_t> n = pread_all(0, head_.data(), head_.size(), size_);
  if (!n) return n.error();
  if (small) {
    size_moved_ = *n != size_;
    head_.resize(std::min<uint64_t>(*n, size_));
    return ok_status();
  }
  head_.resize(*n);
  tail_.resize(std::min<uint64_t>(size_ - head_.size(), tail_bytes) + 1);
  n = pread_all(size_ - (tail_.size() - 1), tail_.data(), tail_.size(), size_);
  if (!n) return n.error();
  size_moved_ = *n != tail_.size() - 1;
  if (*n >= tail_.size() - 1)
    tail_.pop_back();  // the byte past the end, if the file grew
  else
    tail_.clear();  // the file shrank: read through
  return ok_status();
}

Result<size_t> FileSource::read_at(uint64_t offset, uint8_t* out, size_t len) const {
  // From here on [offset, offset + n) lies within the file: no sum below
  // can overflow, whatever offset a damaged header gave.
  size_t n = available(offset, len, size_);
  if (n == 0) return size_t{0};
  if (const uint8_t* p = held(offset, n)) {
    std::memcpy(out, p, n);
    return n;
  }
  return pread_all(offset, out, n);
}

const uint8_t* FileSource::held(uint64_t offset, size_t len) const {
  if (len == 0 || !range_within(offset, len, size_)) return nullptr;
  if (range_within(offset, len, head_.size())) return head_.data() + offset;
  const uint64_t tail_begin = size_ - tail_.size();
  return !tail_.empty() && offset >= tail_begin ? tail_.data() + (offset - tail_begin) : nullptr;
}

Result<size_t> FileSource::pread_all(uint64_t offset, uint8_t* out, size_t len,
                                     uint64_t end) const {
  size_t done = 0;
  while (done < len) {
    ssize_t n = ::pread(fd_, out + done, len - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(errno, "read at byte " + std::to_string(offset + done));
    if (n == 0) break;
    done += static_cast<size_t>(n);
    if (done < len && offset + done >= end) break;  // short at the stat's end: the end
  }
  return done;
}

Result<std::vector<uint8_t>> read_exact(const ByteSource& src, uint64_t offset, size_t len) {
  Error eof{ErrorKind::kMalformed, "read " + std::to_string(len) + " bytes at " +
                                       std::to_string(offset) + ": end of file"};
  if (!range_within(offset, len, src.size())) return eof;
  std::vector<uint8_t> buf(len);
  if (len == 0) return buf;
  Result<size_t> n = src.read_at(offset, buf.data(), len);
  if (!n) return n.error();
  if (*n != len) return eof;
  return buf;
}

std::optional<std::vector<uint8_t>> read_or_note(const ByteSource& src, uint64_t offset, size_t len,
                                                 FileCheck& check) {
  std::vector<uint8_t> buf(available(offset, len, src.size()));
  if (buf.empty()) return buf;
  Result<size_t> n = src.read_at(offset, buf.data(), buf.size());
  if (!n) {
    check.io_error = n.error().message;
    return std::nullopt;
  }
  buf.resize(*n);
  check.bytes_read += *n;
  return buf;
}

std::optional<std::span<const uint8_t>> view_or_note(const ByteSource& src, uint64_t offset,
                                                     size_t len, std::vector<uint8_t>& scratch,
                                                     FileCheck& check) {
  const size_t n = available(offset, len, src.size());
  if (n == 0) return std::span<const uint8_t>();
  if (const uint8_t* p = src.held(offset, n)) {
    check.bytes_read += n;
    return std::span<const uint8_t>(p, n);
  }
  scratch.resize(n);
  Result<size_t> got = src.read_at(offset, scratch.data(), n);
  if (!got) {
    check.io_error = got.error().message;
    return std::nullopt;
  }
  check.bytes_read += *got;
  return std::span<const uint8_t>(scratch.data(), *got);
}

bool all_zero(const uint8_t* p, size_t len) {
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (w != 0) return false;
  }
  for (; i < len; ++i)
    if (p[i] != 0) return false;
  return true;
}

}  // namespace gt
