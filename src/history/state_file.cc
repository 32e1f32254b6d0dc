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
#include "util/atomic_file.h"
#include "util/errno_error.h"
#include "util/json_text.h"
#include "util/numeric.h"
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

/// A time in the record: an integer second within 1970..9999. A float (1e300
/// read as int64 is undefined), a negative or a far-future number is not one.
int64_t unix_s(const nlohmann::json& v, const char* what) {
  if (!v.is_number_integer() ||
      (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(kMaxUnixS)))
    throw std::runtime_error(std::string(what) + " is not an integer time in range");
  std::optional<int64_t> t = plausible_unix_s(v.get<int64_t>());
  if (!t) throw std::runtime_error(std::string(what) + " " + json_text(v) + " is out of range");
  return *t;
}

/// Throws when `n` items of `what` are more than a record may hold: such a
/// record was not written by this tool, and reading it would cost more than
/// the record is worth.
void within(size_t n, size_t max, const char* what) {
  if (n > max)
    throw std::runtime_error("it holds " + std::to_string(n) + " " + what + ", over the bound of " +
                             std::to_string(max));
}

/// j[key], which must be a list of at most `max` items.
const nlohmann::json& list(const nlohmann::json& j, const char* key, size_t max, const char* what) {
  const nlohmann::json& v = j.at(key);
  if (!v.is_array()) throw std::runtime_error(std::string(key) + " is not a list");
  within(v.size(), max, what);
  return v;
}

std::string text_of(const nlohmann::json& v, const char* what) {
  std::string s = v.get<std::string>();
  if (s.size() > kMaxRecordTextBytes)
    throw std::runtime_error(std::string(what) + " longer than " +
                             std::to_string(kMaxRecordTextBytes) + " bytes");
  return s;
}

/// Bounds of a fingerprint as read (a node has a few GPUs, mounts and
/// environments; an environment some hundred packages).
constexpr size_t kMaxPrintItems = 4096;
constexpr size_t kMaxPrintTextBytes = 4096;

std::optional<std::string> opt_text(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  std::string s = it->get<std::string>();
  if (s.size() > kMaxPrintTextBytes)
    throw std::runtime_error(std::string(key) + " longer than " +
                             std::to_string(kMaxPrintTextBytes) + " bytes");
  return s;
}

template <typename T>
std::optional<T> opt_number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) throw std::runtime_error(std::string(key) + " is not an integer");
  return it->get<T>();
}

/// A time that may be unknown: null, or an integer; one outside 1970..9999
/// (an absurd container start) is unknown too, never a year 1550575222.
std::optional<int64_t> opt_unix_s(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) throw std::runtime_error(std::string(key) + " is not an integer");
  if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(kMaxUnixS))
    return std::nullopt;
  return plausible_unix_s(it->get<int64_t>());
}

/// A count (AER totals): a non-negative integer, or null.
std::optional<uint64_t> opt_count(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_unsigned()) throw std::runtime_error(std::string(key) + " is not a count");
  return it->get<uint64_t>();
}

std::vector<std::string> texts(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  for (const auto& v : list(j, key, kMaxPrintItems, key)) {
    std::string s = v.get<std::string>();
    if (s.size() > kMaxPrintTextBytes)
      throw std::runtime_error(std::string(key) + ": text too long");
    out.push_back(s);
  }
  return out;
}

std::string req_text(const nlohmann::json& j, const char* key) {
  std::optional<std::string> s = opt_text(j, key);
  if (!s) throw std::runtime_error(std::string(key) + " is missing");
  return *s;
}

GpuHistory parse_document(const nlohmann::json& j) {
  GpuHistory h;
  if (j.at("schema").get<std::string>() != "gpu-triage/history")
    throw std::runtime_error("not a gpu-triage history (schema)");
  const nlohmann::json& boots = list(j, "boots", kMaxRecordBoots, "boots");
  const nlohmann::json& gpus = list(j, "gpus", kMaxRecordGpus, "GPUs");
  for (const auto& b : boots) {
    h.boots.push_back({text_of(b.at("boot_id"), "a boot id"),
                       unix_s(b.at("first_seen_unix_s"), "first_seen_unix_s"),
                       unix_s(b.at("last_seen_unix_s"), "last_seen_unix_s"),
                       std::nullopt,
                       std::nullopt,
                       {}});
    // Version 1 records have no fingerprints.
    for (auto [key, into] : {std::pair{"first_fingerprint", &h.boots.back().first_fingerprint},
                             std::pair{"last_fingerprint", &h.boots.back().last_fingerprint}})
      if (b.contains(key) && !b.at(key).is_null()) *into = fingerprint_from_json(b.at(key));
    if (b.contains("said_changes")) {
      within(b.at("said_changes").size(), kMaxSaidChanges, "changes said in one boot");
      h.boots.back().said_changes = texts(b, "said_changes");
    }
  }
  for (const auto& g : gpus) {
    GpuRecord r{text_of(g.at("uuid"), "a GPU UUID"), {}};
    for (const auto& f : list(g, "findings", kMaxRecordFindings, "findings on one GPU")) {
      const nlohmann::json& ids = list(f, "boot_ids", kMaxRecordBoots, "boots of one finding");
      r.findings.push_back({text_of(f.at("id"), "a finding id"), {}});
      for (const auto& id : ids) r.findings.back().boot_ids.push_back(text_of(id, "a boot id"));
    }
    h.gpus.push_back(r);
  }
  // Records before AER totals were kept have none.
  if (j.contains("aer") && !j.at("aer").is_null())
    for (const auto& a : list(j, "aer", kMaxRecordAer, "AER records"))
      h.aer.push_back(
          {text_of(a.at("bus_id"), "a bus id"),
           text_of(a.at("boot_id"), "a boot id"),
           unix_s(a.at("read_unix_s"), "read_unix_s"),
           {opt_count(a, "correctable"), opt_count(a, "nonfatal"), opt_count(a, "fatal")}});
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

namespace {

template <typename T>
J or_null(const std::optional<T>& v) {
  return v ? J(*v) : J(nullptr);
}

/// A package of the environment at `env_site`. A fingerprint holds
/// hundreds of packages, and every run reads and writes the record: a
/// package's site_packages is written only where it is not the
/// environment's, its modified files and notes only where there are some.
J package_json(const PackagePrint& p, const std::string& env_site) {
  J j{{"name", p.name}, {"version", p.version}};
  if (p.site_packages != env_site) j["site_packages"] = p.site_packages;
  if (!p.modified.empty()) {
    J modified = J::array();
    for (const ModifiedFile& m : p.modified)
      modified.push_back({{"path", m.path}, {"size_bytes", or_null(m.size_bytes)}});
    j["modified"] = modified;
  }
  j["fully_checked"] = p.fully_checked;
  if (!p.notes.empty()) j["notes"] = p.notes;
  return j;
}

}  // namespace

J fingerprint_to_json(const Fingerprint& f) {
  J gpus = J::array();
  for (const GpuPrint& g : f.gpus)
    gpus.push_back({{"uuid", or_null(g.uuid)},
                    {"serial", or_null(g.serial)},
                    {"vbios_version", or_null(g.vbios_version)},
                    {"pci_bus_id", or_null(g.pci_bus_id)},
                    {"pcie_max_gen", or_null(g.pcie_max_gen)},
                    {"pcie_max_width", or_null(g.pcie_max_width)},
                    {"board_part_number", or_null(g.board_part_number)}});
  const DriverPrint& d = f.driver;
  J driver{{"kernel_module_version", or_null(d.kernel_module_version)},
           {"nvml_driver_version", or_null(d.nvml_driver_version)},
           {"nvml_library_file", or_null(d.nvml_library_file)},
           {"libcuda_version", or_null(d.libcuda_version)},
           {"libcuda_file", or_null(d.libcuda_file)}};
  J container = nullptr;
  if (f.container)
    container = {{"id", f.container->id},
                 {"created_unix_s", or_null(f.container->created_unix_s)},
                 {"id_from", or_null(f.container->id_from)},
                 {"image", or_null(f.container->image)},
                 {"image_id", or_null(f.container->image_id)}};
  J mounts = J::array();
  for (const MountPrint& m : f.mounts)
    mounts.push_back({{"path", m.path},
                      {"source", or_null(m.source)},
                      {"device", or_null(m.device)},
                      {"fs_type", or_null(m.fs_type)},
                      {"expected", or_null(m.expected)}});
  J python = J::array();
  for (const PythonEnvPrint& e : f.python) {
    J packages = J::array();
    for (const PackagePrint& p : e.packages) packages.push_back(package_json(p, e.site_packages));
    python.push_back({{"site_packages", e.site_packages},
                      {"used_by", e.used_by},
                      {"packages", packages},
                      {"notes", e.notes}});
  }
  J units = nullptr;
  if (f.server_units) {
    units = J::array();
    for (const UnitPrint& u : *f.server_units)
      units.push_back({{"unit", u.unit},
                       {"server", u.server},
                       {"restart_policy", or_null(u.restart_policy)},
                       {"auto_started", u.auto_started},
                       {"user_unit", u.user_unit}});
  }
  return J{{"taken_unix_s", f.taken_unix_s},
           {"gpus", gpus},
           {"driver", driver},
           {"kernel_release", or_null(f.kernel_release)},
           {"container", container},
           {"mounts", mounts},
           {"python", python},
           {"server_units", units},
           {"notes", f.notes}};
}

Fingerprint fingerprint_from_json(const nlohmann::json& j) {
  Fingerprint f;
  f.taken_unix_s = unix_s(j.at("taken_unix_s"), "taken_unix_s");
  for (const auto& g : list(j, "gpus", kMaxPrintItems, "GPUs of a fingerprint"))
    f.gpus.push_back({opt_text(g, "uuid"), opt_text(g, "serial"), opt_text(g, "vbios_version"),
                      opt_text(g, "pci_bus_id"), opt_number<uint32_t>(g, "pcie_max_gen"),
                      opt_number<uint32_t>(g, "pcie_max_width"),
                      // Absent in a record written before it was kept: null.
                      opt_text(g, "board_part_number")});
  const nlohmann::json& d = j.at("driver");
  f.driver = {opt_text(d, "kernel_module_version"), opt_text(d, "nvml_driver_version"),
              opt_text(d, "nvml_library_file"), opt_text(d, "libcuda_version"),
              opt_text(d, "libcuda_file")};
  f.kernel_release = opt_text(j, "kernel_release");
  if (const nlohmann::json& c = j.at("container"); !c.is_null())
    // image and image_id: absent in a record written before they were kept.
    f.container =
        ContainerPrint{req_text(c, "id"), opt_unix_s(c, "created_unix_s"), opt_text(c, "id_from"),
                       opt_text(c, "image"), opt_text(c, "image_id")};
  for (const auto& m : list(j, "mounts", kMaxPrintItems, "mounts of a fingerprint"))
    f.mounts.push_back({req_text(m, "path"), opt_text(m, "source"), opt_text(m, "device"),
                        opt_text(m, "fs_type"), opt_text(m, "expected")});
  for (const auto& e : list(j, "python", kMaxPrintItems, "python environments")) {
    // Notes of the environment: absent in a record written before they were kept.
    PythonEnvPrint env{req_text(e, "site_packages"),
                       texts(e, "used_by"),
                       {},
                       e.contains("notes") ? texts(e, "notes") : std::vector<std::string>{}};
    for (const auto& p : list(e, "packages", kMaxPrintItems, "packages of one environment")) {
      PackagePrint pk{
          req_text(p, "name"),
          req_text(p, "version"),
          p.contains("site_packages") ? req_text(p, "site_packages") : env.site_packages,
          {},
          p.at("fully_checked").get<bool>(),
          p.contains("notes") ? texts(p, "notes") : std::vector<std::string>{}};
      if (p.contains("modified"))
        for (const auto& m : list(p, "modified", kMaxPrintItems, "modified files"))
          pk.modified.push_back({req_text(m, "path"), opt_number<uint64_t>(m, "size_bytes")});
      env.packages.push_back(pk);
    }
    f.python.push_back(env);
  }
  // Null, or absent in a record written before they were kept: not known.
  if (j.contains("server_units") && !j.at("server_units").is_null()) {
    f.server_units.emplace();
    for (const auto& u : list(j, "server_units", kMaxPrintItems, "units of a fingerprint"))
      f.server_units->push_back({req_text(u, "unit"), req_text(u, "server"),
                                 opt_text(u, "restart_policy"), u.at("auto_started").get<bool>(),
                                 u.at("user_unit").get<bool>()});
  }
  f.notes = texts(j, "notes");
  return f;
}

J history_to_json(const GpuHistory& h) {
  J boots = J::array();
  for (const HistoryBoot& b : h.boots)
    boots.push_back(
        {{"boot_id", b.boot_id},
         {"first_seen_unix_s", b.first_seen_unix_s},
         {"last_seen_unix_s", b.last_seen_unix_s},
         {"first_fingerprint",
          b.first_fingerprint ? fingerprint_to_json(*b.first_fingerprint) : J()},
         {"last_fingerprint", b.last_fingerprint ? fingerprint_to_json(*b.last_fingerprint) : J()},
         {"said_changes", b.said_changes}});
  J gpus = J::array();
  for (const GpuRecord& g : h.gpus) {
    J findings = J::array();
    for (const FindingBoots& f : g.findings)
      findings.push_back({{"id", f.finding_id}, {"boot_ids", f.boot_ids}});
    gpus.push_back({{"uuid", g.uuid}, {"findings", findings}});
  }
  J aer = J::array();
  for (const AerRecord& a : h.aer)
    aer.push_back({{"bus_id", a.bus_id},
                   {"boot_id", a.boot_id},
                   {"read_unix_s", a.read_unix_s},
                   {"correctable", or_null(a.totals.correctable)},
                   {"nonfatal", or_null(a.totals.nonfatal)},
                   {"fatal", or_null(a.totals.fatal)}});
  return J{{"schema", "gpu-triage/history"},
           {"version", 2},
           {"boots", boots},
           {"gpus", gpus},
           {"aer", aer}};
}

Result<GpuHistory> history_from_json(std::string_view text) {
  try {
    return parse_document(nlohmann::json::parse(text));
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
