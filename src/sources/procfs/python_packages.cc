#include "sources/procfs/python_packages.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "util/read_capped.h"

namespace gt {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

/// PEP 503's normal form, so "SGLang", "sglang" and "sg_lang" compare equal.
std::string normal_name(std::string s) {
  s = lower(std::move(s));
  std::replace(s.begin(), s.end(), '_', '-');
  std::replace(s.begin(), s.end(), '.', '-');
  return s;
}

/// "Name: x" of METADATA's header; "" when absent.
std::string header_field(std::string_view text, std::string_view key) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    std::string_view line = text.substr(at, end == std::string_view::npos ? end : end - at);
    if (line.empty() || line == "\r") break;  // the header ends at the first blank line
    if (line.starts_with(key) && line.substr(key.size()).starts_with(": ")) {
      std::string v(line.substr(key.size() + 2));
      while (!v.empty() && (v.back() == '\r' || v.back() == ' ')) v.pop_back();
      return v;
    }
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return "";
}

/// Reads an open regular file whole, at most `max` bytes (the caller checked the size).
std::optional<std::string> read_fd(int fd, uint64_t size) {
  std::string out(size, '\0');
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, out.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    got += static_cast<size_t>(n);
  }
  return out;
}

/// What a file costs of the per-run budget at least (a page): opening
/// thousands of small files costs what hashing does.
constexpr uint64_t kMinFileCost = 4096;

/// What checking one file against its RECORD line found.
enum class RecordedFileCheck { kSame, kModified, kUnreadable, kTooLarge, kBudget };

/// Opens `rel` (a RECORD path) beneath the site-packages directory `dir`:
/// openat2's RESOLVE_BENEATH keeps every link inside it, at one call per
/// file (resolving each of thousands of files from the root component by
/// component cost a triage 200 ms). Before Linux 5.6: the root's resolution.
Result<int> open_beneath(const FsRoot& root, int dir, const std::string& site,
                         const std::string& rel) {
  open_how how{};
  how.flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  if (dir >= 0) {
    const long fd = ::syscall(SYS_openat2, dir, rel.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno != ENOSYS) return Error{ErrorKind::kIo, site + "/" + rel + ": cannot open"};
  }
  return root.open(site + "/" + rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
}

RecordedFileCheck check_file(const FsRoot& root, int dir, const std::string& site,
                             const RecordLine& r, const HashBounds& bounds, uint64_t& budget,
                             uint64_t& size_out) {
  Result<int> fd = open_beneath(root, dir, site, r.path);
  if (!fd) {
    // A failed open costs as an open does: thousands of missing files (an
    // image with its .py stripped) are bounded like the rest.
    budget -= std::min(budget, kMinFileCost);
    return RecordedFileCheck::kUnreadable;
  }
  struct stat st {};
  RecordedFileCheck out = RecordedFileCheck::kSame;
  if (::fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    out = RecordedFileCheck::kUnreadable;
  } else {
    size_out = static_cast<uint64_t>(st.st_size);
    if (r.size_bytes && *r.size_bytes != size_out) {
      out = RecordedFileCheck::kModified;  // a size that differs needs no hash
    } else if (size_out > bounds.per_file_bytes) {
      out = RecordedFileCheck::kTooLarge;
    } else if (std::max(size_out, kMinFileCost) > budget) {
      out = RecordedFileCheck::kBudget;
    } else {
      budget -= std::max(size_out, kMinFileCost);
      std::optional<std::string> bytes = read_fd(*fd, size_out);
      if (!bytes)
        out = RecordedFileCheck::kUnreadable;
      else if (!record_hash_matches(r.hash, *bytes))
        out = RecordedFileCheck::kModified;
    }
  }
  ::close(*fd);
  return out;
}

/// Checks the package's .py files against its RECORD.
void check_record(const FsRoot& root, int dir, const std::string& site,
                  const std::string& dist_info, const HashBounds& bounds, uint64_t& budget,
                  PackagePrint& p) {
  const std::string record_file = site + "/" + dist_info + "/RECORD";
  Result<int> fd = open_beneath(root, dir, site, dist_info + "/RECORD");
  if (!fd) {
    p.notes.push_back("no RECORD to check against: " + fd.error().message);
    return;
  }
  struct stat st {};
  if (::fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(*fd);  // a FIFO or a device in its place: nothing checked
    p.notes.push_back("RECORD not read: not a regular file");
    return;
  }
  Result<std::string> text = read_fd_capped(*fd, record_file, bounds.record_bytes, "a RECORD");
  ::close(*fd);
  if (!text) {
    p.notes.push_back("RECORD not read: " + text.error().message);
    return;
  }
  if (text->empty()) {  // a RECORD lists itself at least: an empty one was cut short
    p.notes.push_back("RECORD is empty: nothing to check against");
    return;
  }
  // Reading a RECORD costs of the budget as a file does: it bounds how
  // many are read in an environment of thousands of packages.
  budget -= std::min(budget, std::max<uint64_t>(text->size(), kMinFileCost));
  size_t no_hash = 0, unreadable = 0, too_large = 0, over_budget = 0;
  std::string_view t = *text;
  size_t at = 0;
  while (at < t.size()) {
    size_t end = t.find('\n', at);
    std::string_view line = t.substr(at, end == std::string_view::npos ? end : end - at);
    at = end == std::string_view::npos ? t.size() : end + 1;
    // Cheap: most lines name no .py file. Not ".py,": a name with a comma
    // or a quote is quoted (".../a,b.py",sha256=...).
    if (line.find(".py") == std::string_view::npos) continue;
    std::optional<RecordLine> r = parse_record_line(line);
    if (!r || !r->path.ends_with(".py") || r->path.starts_with("..") || r->path.starts_with("/"))
      continue;
    if (!r->hash.starts_with("sha256=")) {
      ++no_hash;
      continue;
    }
    // A spent budget opens no more files: opening costs as hashing does.
    if (budget < kMinFileCost) {
      ++over_budget;
      continue;
    }
    uint64_t size = 0;
    switch (check_file(root, dir, site, *r, bounds, budget, size)) {
      case RecordedFileCheck::kSame:
        break;
      case RecordedFileCheck::kModified:
        p.modified.push_back({r->path, size});
        break;
      case RecordedFileCheck::kUnreadable:
        ++unreadable;
        break;
      case RecordedFileCheck::kTooLarge:
        ++too_large;
        break;
      case RecordedFileCheck::kBudget:
        ++over_budget;
        break;
    }
  }
  if (no_hash)
    p.notes.push_back(
        fmt::format("{} .py file(s) without a sha256 in RECORD: not checked", no_hash));
  if (unreadable)
    p.notes.push_back(fmt::format("{} .py file(s) missing or unreadable", unreadable));
  if (too_large)
    p.notes.push_back(
        fmt::format("{} .py file(s) over {} bytes: not hashed", too_large, bounds.per_file_bytes));
  if (over_budget)
    p.notes.push_back(fmt::format("{} .py file(s) not hashed: this run's {} bytes of hashing spent",
                                  over_budget, bounds.per_run_bytes));
  p.fully_checked = !no_hash && !unreadable && !too_large && !over_budget;
}

std::optional<PackagePrint> read_dist_info(const FsRoot& root, int site_fd, const std::string& site,
                                           const std::string& dir) {
  PackagePrint p;
  p.site_packages = site;
  // The directory name is NAME-VERSION.dist-info; METADATA says it exactly
  // (and is all there is where the name has no version).
  const std::string stem = dir.substr(0, dir.size() - 10);
  const size_t dash = stem.find('-');
  p.name = stem.substr(0, dash);
  if (dash != std::string::npos) p.version = stem.substr(dash + 1);
  if (Result<int> fd = open_beneath(root, site_fd, site, dir + "/METADATA")) {
    // Only the header is needed, and Name and Version open it: its first
    // page, and the rest of 64 KiB where they are not in it.
    std::string head(kMinFileCost, '\0');
    const ssize_t n = ::pread(*fd, head.data(), head.size(), 0);
    head.resize(n > 0 ? static_cast<size_t>(n) : 0);
    if (head.size() == kMinFileCost && header_field(head, "Version").empty())
      if (Result<std::string> meta = read_fd_capped(*fd, dir, 64 << 10, "METADATA")) head = *meta;
    ::close(*fd);
    if (std::string name = header_field(head, "Name"); !name.empty()) p.name = name;
    if (std::string v = header_field(head, "Version"); !v.empty()) p.version = v;
  }
  if (p.name.empty()) return std::nullopt;
  if (p.version.empty()) {
    p.version = "?";
    p.notes.push_back("no version in its directory's name or METADATA");
  }
  return p;
}

/// The site-packages of the process's interpreter, as the process names
/// it; looked for in the process's own root (`via`).
std::optional<std::string> site_of_interpreter(const FsRoot& root, uint32_t pid,
                                               const std::string& via) {
  std::optional<std::string> exe = root.read_link(fmt::format("/proc/{}/exe", pid));
  if (!exe || exe->rfind('/') == std::string::npos) return std::nullopt;
  const std::string bin = exe->substr(0, exe->rfind('/'));
  const std::string prefix = bin.substr(0, bin.rfind('/'));
  Result<std::vector<std::string>> libs = root.list(via + prefix + "/lib");
  if (!libs) return std::nullopt;
  for (const std::string& d : *libs)
    if (d.starts_with("python3"))
      for (const char* sub : {"/site-packages", "/dist-packages"})
        if (root.exists(via + prefix + "/lib/" + d + sub)) return prefix + "/lib/" + d + sub;
  return std::nullopt;
}

/// Which root a process's paths name: its /proc/PID/root's device and
/// inode (two containers may each have /opt/venv); empty when unknown.
std::string root_identity(const FsRoot& root, const std::string& via) {
  Result<struct stat> st = root.stat(via);
  return st ? fmt::format("{}:{}", st->st_dev, st->st_ino) : std::string();
}

std::string sha256_raw(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(md), len);
}

}  // namespace

bool record_hash_matches(std::string_view field, std::string_view bytes) {
  constexpr std::string_view kAlgorithm = "sha256=";
  if (!field.starts_with(kAlgorithm)) return false;
  const std::string_view value = field.substr(kAlgorithm.size());
  if (value.size() != 64) return value == record_digest(bytes);
  static constexpr char kHex[] = "0123456789abcdef";
  const std::string raw = sha256_raw(bytes);
  for (size_t i = 0; i < raw.size(); ++i) {
    const auto b = static_cast<unsigned char>(raw[i]);
    if (std::tolower(static_cast<unsigned char>(value[2 * i])) != kHex[b >> 4] ||
        std::tolower(static_cast<unsigned char>(value[2 * i + 1])) != kHex[b & 15])
      return false;
  }
  return true;
}

std::string record_digest(std::string_view bytes) {
  const std::string md = sha256_raw(bytes);
  const size_t len = md.size();
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < len; ++i) {
    acc = (acc << 8) | static_cast<unsigned char>(md[i]);
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
  return out;
}

std::optional<RecordLine> parse_record_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (fields.size() != 3 || fields[0].empty()) return std::nullopt;
  RecordLine r{fields[0], fields[1], std::nullopt};
  uint64_t n = 0;
  const std::string& s = fields[2];
  if (!s.empty() && std::from_chars(s.data(), s.data() + s.size(), n).ptr == s.data() + s.size())
    r.size_bytes = n;
  return r;
}

std::optional<std::string> site_packages_in_maps(std::string_view maps) {
  for (std::string_view dir :
       {std::string_view("/site-packages/"), std::string_view("/dist-packages/")}) {
    const size_t at = maps.find(dir);
    if (at == std::string_view::npos) continue;
    const size_t start = maps.rfind(' ', at);
    if (start == std::string_view::npos) continue;
    return std::string(maps.substr(start + 1, at + dir.size() - 1 - (start + 1)));
  }
  return std::nullopt;
}

std::vector<PackagePrint> read_site_packages(const FsRoot& root, const std::string& site,
                                             const HashBounds& bounds, uint64_t& budget_bytes,
                                             const std::string& first_package,
                                             std::vector<std::string>* notes) {
  std::vector<PackagePrint> out;
  std::vector<std::string> dirs;  // each package's *.dist-info, beside it
  Result<std::vector<std::string>> names = root.list(site);
  if (!names) {
    if (notes) notes->push_back("not read: " + names.error().message);
    return out;
  }
  // Every file below is opened beneath this one descriptor (open_beneath).
  Result<int> dir_fd = root.open(site, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const int site_fd = dir_fd ? *dir_fd : -1;
  for (const std::string& n : *names)
    if (n.ends_with(".dist-info"))
      if (std::optional<PackagePrint> p = read_dist_info(root, site_fd, site, n)) {
        out.push_back(*p);
        dirs.push_back(n);
      }
  // The server's own package is hashed first, so a spent budget costs the
  // rest of the stack rather than it.
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](size_t i) {
    return !first_package.empty() && normal_name(out[i].name) == normal_name(first_package);
  });
  size_t not_reached = 0;
  for (size_t i : order) {
    if (budget_bytes < kMinFileCost) {
      ++not_reached;  // not fully checked; said once for the environment
      continue;
    }
    check_record(root, site_fd, site, dirs[i], bounds, budget_bytes, out[i]);
  }
  if (site_fd >= 0) ::close(site_fd);
  if (not_reached && notes)
    notes->push_back(fmt::format(
        "{} of {} packages not checked against their RECORD: this run's {} bytes of reading spent",
        not_reached, out.size(), bounds.per_run_bytes));
  return out;
}

std::vector<PythonEnvPrint> read_python_envs(const FsRoot& root, const std::vector<Server>& servers,
                                             const HashBounds& bounds) {
  std::vector<PythonEnvPrint> envs;
  uint64_t budget = bounds.per_run_bytes;
  std::vector<std::string> keys;  // envs[i]'s root and site
  for (const Server& sv : servers) {
    std::optional<std::string> site;
    uint32_t pid = 0;
    std::string via;
    for (const ServerMember& m : sv.members) {
      // The process's files are read in its own root: a container's
      // site-packages is not the host's at the same path.
      via = fmt::format("/proc/{}/root", m.pid);
      if (Result<std::string> maps = root.read(fmt::format("/proc/{}/maps", m.pid)))
        site = site_packages_in_maps(*maps);
      if (!site) site = site_of_interpreter(root, m.pid, via);
      pid = m.pid;
      if (site) break;
    }
    if (!site) continue;
    const std::string who = fmt::format("{} (pid {})", sv.kind, sv.root_pid.value_or(pid));
    const std::string key = root_identity(root, via) + " " + *site;
    auto same = std::find(keys.begin(), keys.end(), key);
    if (same != keys.end()) {
      envs[static_cast<size_t>(same - keys.begin())].used_by.push_back(who);
      continue;
    }
    PythonEnvPrint env{*site, {who}, {}, {}};
    env.packages = read_site_packages(root, via + *site, bounds, budget, sv.kind, &env.notes);
    for (PackagePrint& p : env.packages) p.site_packages = *site;
    envs.push_back(std::move(env));
    keys.push_back(key);
  }
  return envs;
}

}  // namespace gt
