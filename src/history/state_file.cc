#include "history/state_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/read_capped.h"

namespace gt {

/// The record is a few KiB (16 boots, a few GPUs); anything this big is not it.
constexpr uint64_t kMaxHistoryBytes = 16ull << 20;

namespace {

using J = nlohmann::ordered_json;

int64_t now_unix_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Error errno_error(const std::string& what) {
  ErrorKind k = errno == ENOENT                                       ? ErrorKind::kNotFound
                : errno == EACCES || errno == EPERM || errno == EROFS ? ErrorKind::kPermissionDenied
                                                                      : ErrorKind::kIo;
  return Error{k, what + ": " + std::strerror(errno)};
}

GpuHistory parse_document(const nlohmann::json& j) {
  GpuHistory h;
  if (j.at("schema").get<std::string>() != "gpu-triage/history")
    throw std::runtime_error("not a gpu-triage history (schema)");
  for (const auto& b : j.at("boots"))
    h.boots.push_back({b.at("boot_id").get<std::string>(), b.at("first_seen_unix_s").get<int64_t>(),
                       b.at("last_seen_unix_s").get<int64_t>()});
  for (const auto& g : j.at("gpus")) {
    GpuRecord r{g.at("uuid").get<std::string>(), {}};
    for (const auto& f : g.at("findings"))
      r.findings.push_back(
          {f.at("id").get<std::string>(), f.at("boot_ids").get<std::vector<std::string>>()});
    h.gpus.push_back(r);
  }
  return h;
}

/// Moves a corrupt file out of the way; the warning says where.
std::string set_aside(const std::string& file, const std::string& why) {
  const std::string aside = file + ".corrupt-" + std::to_string(now_unix_s());
  if (std::rename(file.c_str(), aside.c_str()) != 0)
    return "history: " + file + " is corrupt (" + why +
           ") and could not be set aside: " + std::strerror(errno) + "; not recorded";
  return "history: " + file + " was corrupt (" + why + "): set aside as " + aside +
         "; the record starts afresh";
}

Status ensure_dir(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) return errno_error("cannot read " + dir);
    if (::mkdir(dir.c_str(), 0755) != 0) return errno_error("cannot create " + dir);
    return ok_status();
  }
  if (!S_ISDIR(st.st_mode)) return Error{ErrorKind::kIo, dir + " is not a directory"};
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return errno_error(dir + " is not writable");
  return ok_status();
}

Status write_all(int fd, const std::string& text, const std::string& tmp) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot write " + tmp);
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return errno_error("cannot sync " + tmp);
  return ok_status();
}

}  // namespace

J history_to_json(const GpuHistory& h) {
  J boots = J::array();
  for (const HistoryBoot& b : h.boots)
    boots.push_back({{"boot_id", b.boot_id},
                     {"first_seen_unix_s", b.first_seen_unix_s},
                     {"last_seen_unix_s", b.last_seen_unix_s}});
  J gpus = J::array();
  for (const GpuRecord& g : h.gpus) {
    J findings = J::array();
    for (const FindingBoots& f : g.findings)
      findings.push_back({{"id", f.finding_id}, {"boot_ids", f.boot_ids}});
    gpus.push_back({{"uuid", g.uuid}, {"findings", findings}});
  }
  return J{{"schema", "gpu-triage/history"}, {"version", 1}, {"boots", boots}, {"gpus", gpus}};
}

Result<GpuHistory> history_from_json(std::string_view text) {
  try {
    return parse_document(nlohmann::json::parse(text));
  } catch (const std::exception& e) {
    return Error{ErrorKind::kMalformed, e.what()};
  }
}

Result<GpuHistory> read_history(const std::string& dir, std::vector<std::string>& warnings) {
  const std::string file = dir + "/" + kHistoryFileName;
  if (::access(file.c_str(), F_OK) != 0 && errno == ENOENT) {
    GpuHistory h;
    h.file = file;
    return h;
  }
  // Never follow a link, never block on a FIFO, never read past the cap.
  int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return errno_error("cannot read " + file);
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

Result<GpuHistory> open_history(const std::string& dir, const FsRoot& root,
                                std::vector<std::string>& warnings) {
  std::optional<std::string> boot = root.read_optional_trimmed("/proc/sys/kernel/random/boot_id");
  if (!boot || boot->empty())
    return Error{ErrorKind::kNotFound,
                 "no boot id (" + root.path("/proc/sys/kernel/random/boot_id") + " not readable)"};
  if (Status s = ensure_dir(dir); !s) return s.error();
  Result<GpuHistory> h = read_history(dir, warnings);
  if (h) h->boot_id = *boot;
  return h;
}

Status write_history(const GpuHistory& h) {
  const std::string tmp = h.file + ".tmp-" + std::to_string(::getpid());
  const std::string text = history_to_json(h).dump(1) + "\n";
  // O_EXCL | O_NOFOLLOW: in a directory others can write, a planted link or
  // file at the temporary name is refused, never followed or truncated.
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return errno_error("cannot create " + tmp);
  Status w = write_all(fd, text, tmp);
  ::close(fd);
  if (w && std::rename(tmp.c_str(), h.file.c_str()) != 0)
    w = errno_error("cannot replace " + h.file);
  if (!w) {
    ::unlink(tmp.c_str());
    return w;
  }
  const std::string dir = h.file.substr(0, h.file.find_last_of('/') + 1);
  if (int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return ok_status();
}

}  // namespace gt
