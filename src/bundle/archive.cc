#include "bundle/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string_view>

#include "util/errno_error.h"

namespace gt {
namespace {

using ArchivePtr = std::unique_ptr<struct archive, int (*)(struct archive*)>;

Error archive_error(struct archive* a, const std::string& what) {
  const char* msg = archive_error_string(a);
  return Error{ErrorKind::kIo, what + ": " + (msg != nullptr ? msg : "libarchive failed")};
}

la_ssize_t append_to_string(struct archive*, void* out, const void* buf, size_t n) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(buf), n);
  return static_cast<la_ssize_t>(n);
}

Status write_entry(struct archive* a, struct archive_entry* e, const TreeEntry& t, int64_t mtime) {
  archive_entry_clear(e);
  archive_entry_set_pathname(e, t.name.c_str());
  archive_entry_set_mtime(e, mtime, 0);
  switch (t.type) {
    case TreeEntry::Type::kFile:
      archive_entry_set_filetype(e, AE_IFREG);
      archive_entry_set_perm(e, 0644);
      archive_entry_set_size(e, static_cast<la_int64_t>(t.bytes.size()));
      break;
    case TreeEntry::Type::kFolder:
      archive_entry_set_filetype(e, AE_IFDIR);
      archive_entry_set_perm(e, 0755);
      break;
    case TreeEntry::Type::kLink:
      archive_entry_set_filetype(e, AE_IFLNK);
      archive_entry_set_perm(e, 0777);
      archive_entry_set_symlink(e, t.target.c_str());
      break;
    case TreeEntry::Type::kOther:
      return Error{ErrorKind::kMalformed, t.name + ": not a file, folder or link"};
  }
  if (archive_write_header(a, e) != ARCHIVE_OK) return archive_error(a, t.name);
  if (t.type == TreeEntry::Type::kFile && !t.bytes.empty() &&
      archive_write_data(a, t.bytes.data(), t.bytes.size()) < 0)
    return archive_error(a, t.name);
  return ok_status();
}

}  // namespace

namespace {

struct ArchiveSuffix {
  std::string_view suffix;
  ArchiveCompression compression;
};
constexpr ArchiveSuffix kArchiveSuffixes[] = {{".tar.zst", ArchiveCompression::kZstd},
                                              {".tzst", ArchiveCompression::kZstd},
                                              {".tar.gz", ArchiveCompression::kGzip},
                                              {".tgz", ArchiveCompression::kGzip}};

const ArchiveSuffix* suffix_of(const std::string& name) {
  for (const ArchiveSuffix& s : kArchiveSuffixes)
    if (name.ends_with(s.suffix)) return &s;
  return nullptr;
}

}  // namespace

std::optional<ArchiveCompression> compression_for(const std::string& name) {
  const ArchiveSuffix* s = suffix_of(name);
  return s ? std::optional(s->compression) : std::nullopt;
}

std::string archive_stem(const std::string& name) {
  const ArchiveSuffix* s = suffix_of(name);
  if (s == nullptr || name.size() == s->suffix.size()) return name;
  return name.substr(0, name.size() - s->suffix.size());
}

Result<std::string> archive_bytes(const std::vector<TreeEntry>& entries,
                                  ArchiveCompression compression, int64_t mtime) {
  ArchivePtr a(archive_write_new(), archive_write_free);
  std::string out;
  archive_write_set_format_pax_restricted(a.get());
  const int filter = compression == ArchiveCompression::kZstd
                         ? archive_write_add_filter_zstd(a.get())
                         : archive_write_add_filter_gzip(a.get());
  if (filter != ARCHIVE_OK) return archive_error(a.get(), "compression");
  // No zero padding after the compressed stream: zstd reads it as a bad frame.
  archive_write_set_bytes_in_last_block(a.get(), 1);
  if (archive_write_open2(a.get(), &out, nullptr, append_to_string, nullptr, nullptr) != ARCHIVE_OK)
    return archive_error(a.get(), "archive");
  std::unique_ptr<struct archive_entry, void (*)(struct archive_entry*)> e(archive_entry_new(),
                                                                           archive_entry_free);
  for (const TreeEntry& t : entries)
    if (Status s = write_entry(a.get(), e.get(), t, mtime); !s) return s.error();
  if (archive_write_close(a.get()) != ARCHIVE_OK) return archive_error(a.get(), "archive");
  return out;
}

Result<std::vector<TreeEntry>> read_archive(const std::string& file, uint64_t max_bytes,
                                            uint64_t max_members) {
  ArchivePtr a(archive_read_new(), archive_read_free);
  // The two compressions a bundle is written with, no more: each filter is
  // one more library the portable binary would have to carry.
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_zstd(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), file.c_str(), 1 << 16) != ARCHIVE_OK)
    return Error{ErrorKind::kMalformed, archive_error(a.get(), file).message};
  std::vector<TreeEntry> out;
  uint64_t total = 0;
  uint64_t headers = 0;
  struct archive_entry* e = nullptr;
  for (;;) {
    const int r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) break;
    // Counted before anything is kept: a few KiB of compressed headers can
    // name millions of folders.
    if (++headers > max_members)
      return Error{ErrorKind::kMalformed, file + ": more than " + std::to_string(max_members) +
                                              " members, the most a bundle may hold"};
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
      return Error{ErrorKind::kMalformed, archive_error(a.get(), file).message};
    TreeEntry t;
    t.name = archive_entry_pathname(e) != nullptr ? archive_entry_pathname(e) : "";
    // `tar -C DIR -cf FILE .` (a bundle extracted and packed again) names
    // each member "./NAME": the member NAME; "./" itself is DIR.
    while (t.name.starts_with("./")) t.name.erase(0, 2);
    const mode_t type = archive_entry_filetype(e);
    if (const char* to = archive_entry_hardlink(e); to != nullptr) {
      t.type = TreeEntry::Type::kOther;  // its bytes are another member's
      t.target = std::string("a hard link to ") + to;
    } else if (type == AE_IFDIR) {
      t.type = TreeEntry::Type::kFolder;
      while (t.name.size() > 1 && t.name.ends_with("/")) t.name.pop_back();  // tar's "dir/"
      if (t.name.empty() || t.name == ".") continue;
    } else if (type == AE_IFLNK) {
      t.type = TreeEntry::Type::kLink;
      const char* target = archive_entry_symlink(e);
      t.target = target != nullptr ? target : "";
    } else if (type == AE_IFREG) {
      char buf[1 << 16];
      for (;;) {
        la_ssize_t n = archive_read_data(a.get(), buf, sizeof buf);
        if (n < 0) return Error{ErrorKind::kMalformed, archive_error(a.get(), t.name).message};
        if (n == 0) break;
        total += static_cast<uint64_t>(n);
        if (total > max_bytes)
          return Error{ErrorKind::kMalformed, file + ": more than " + std::to_string(max_bytes) +
                                                  " bytes once uncompressed"};
        t.bytes.append(buf, static_cast<size_t>(n));
      }
    } else {
      // No device, FIFO or socket is ever extracted: named for the check.
      t.type = TreeEntry::Type::kOther;
      t.target = "a device, FIFO or socket";
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace gt

namespace gt {
namespace {

/// Whether `name` is a relative path of plain components.
bool plain_name(const std::string& name) {
  if (name.empty() || name.front() == '/') return false;
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    const std::string part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

/// Makes the folders of `rel` under `dir`, none of them a link.
Status make_parents(const std::string& dir, const std::string& rel) {
  size_t slash = 0;
  while ((slash = rel.find('/', slash)) != std::string::npos) {
    const std::string p = dir + "/" + rel.substr(0, slash);
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return Error{ErrorKind::kMalformed, rel + ": its folder is not a folder in the archive"};
    } else if (::mkdir(p.c_str(), 0755) != 0) {
      return errno_error(errno, "cannot make " + p);
    }
    ++slash;
  }
  return ok_status();
}

/// A member whose name an earlier member took (nothing is overwritten).
Error twice(const std::string& name) {
  return Error{ErrorKind::kMalformed, "member " + name + " appears twice in the archive"};
}

}  // namespace

Status extract_entries(const std::vector<TreeEntry>& entries, const std::string& dir) {
  for (const TreeEntry& e : entries) {
    std::string name = e.name;
    while (name.size() > 1 && name.ends_with("/")) name.pop_back();
    if (!plain_name(name)) return Error{ErrorKind::kMalformed, "refused member name " + e.name};
    if (e.type == TreeEntry::Type::kOther) continue;  // never extracted
    if (Status s = make_parents(dir, name); !s) return s;
    const std::string p = dir + "/" + name;
    if (e.type == TreeEntry::Type::kFolder) {
      struct stat st {};
      if (::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
      if (::mkdir(p.c_str(), 0755) != 0)
        return errno == EEXIST ? twice(name) : errno_error(errno, "cannot make " + p);
    } else if (e.type == TreeEntry::Type::kLink) {
      if (::symlink(e.target.c_str(), p.c_str()) != 0)
        return errno == EEXIST ? twice(name) : errno_error(errno, "cannot link " + p);
    } else {
      int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd < 0) return errno == EEXIST ? twice(name) : errno_error(errno, "cannot write " + p);
      size_t done = 0;
      while (done < e.bytes.size()) {
        ssize_t n = ::write(fd, e.bytes.data() + done, e.bytes.size() - done);
        if (n < 0) {
          const int err = errno;
          ::close(fd);
          return errno_error(err, "cannot write " + p);
        }
        done += static_cast<size_t>(n);
      }
      ::close(fd);
    }
  }
  return ok_status();
}

}  // namespace gt
