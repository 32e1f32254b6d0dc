#include "sources/incident/pstore.h"

#include <sys/stat.h>

#include <algorithm>

namespace gt {
namespace {

constexpr size_t kRecordCap = 256 * 1024;  // bytes read of one record
constexpr size_t kMaxRecords = 16;         // records kept per place

/// Drops a pstore/printk prefix: "<0>[  123.456789] " or "Panic#1 Part1\n".
std::string_view strip_prefix(std::string_view line) {
  if (line.starts_with("<") && line.find('>') < 4) line.remove_prefix(line.find('>') + 1);
  if (line.starts_with("[")) {
    size_t close = line.find(']');
    if (close != std::string_view::npos) line.remove_prefix(close + 1);
  }
  while (line.starts_with(" ")) line.remove_prefix(1);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  return line;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = std::min(text.find('\n', pos), text.size());
    lines.push_back(strip_prefix(text.substr(pos, end - pos)));
    pos = end + 1;
  }
  return lines;
}

std::optional<int64_t> mtime_of(const FsRoot& root, const std::string& path) {
  Result<struct stat> st = root.stat(path);
  if (!st) return std::nullopt;
  return static_cast<int64_t>(st->st_mtime);
}

/// An EFI pstore record's time from its name: the kernel's efi-pstore names
/// records "dmesg-efi-<id>" with id = (seconds * 100 + part) * 1000 + count
/// (generic_id() in drivers/firmware/efi/efi-pstore.c). Better than the
/// mtime, which systemd-pstore's copy sets to the boot after.
std::optional<int64_t> efi_record_time(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  constexpr std::string_view kPrefix = "dmesg-efi-";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  const std::string digits = name.substr(kPrefix.size());
  if (digits.empty() || digits.size() > 19 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const int64_t seconds = static_cast<int64_t>(std::stoull(digits) / 100000);
  // 2000-01-01 to 2100-01-01: anything else is not a time.
  if (seconds < 946684800 || seconds > 4102444800) return std::nullopt;
  return seconds;
}

bool is_dir(const FsRoot& root, const std::string& path) {
  Result<struct stat> st = root.stat(path);
  return st && S_ISDIR(st->st_mode);
}

/// A file that holds kernel messages: dmesg-*, vmcore-dmesg.txt, dmesg.*.
bool is_dmesg_record(const std::string& name) {
  return name.starts_with("dmesg") || name == "vmcore-dmesg.txt";
}

void add_record(const FsRoot& root, const std::string& source, const std::string& path,
                Incident& out) {
  Result<std::string> text = root.read(path);
  if (!text) {
    out.unread.push_back(source + " record " + path + ": " + text.error().message);
    return;
  }
  CrashRecord r;
  r.source = source;
  r.path = path;
  r.time_unix_s = efi_record_time(path);
  if (!r.time_unix_s) r.time_unix_s = mtime_of(root, path);
  r.panic_lines = panic_lines(std::string_view(*text).substr(0, kRecordCap));
  out.crash_records.push_back(std::move(r));
}

/// The dmesg records in `dir` and (one level down) its subdirectories.
void scan(const FsRoot& root, const std::string& source, const std::string& dir, Incident& out) {
  if (!root.exists(dir)) return;
  Result<std::vector<std::string>> names = root.list(dir);
  if (!names) {
    out.unread.push_back(source + " (" + dir + "): " + names.error().message);
    return;
  }
  size_t kept = 0;
  for (const std::string& n : *names) {
    if (kept >= kMaxRecords) break;
    const std::string p = dir + "/" + n;
    if (is_dir(root, p)) {
      Result<std::vector<std::string>> inner = root.list(p);
      for (const std::string& m : inner ? *inner : std::vector<std::string>{})
        if (is_dmesg_record(m) && kept++ < kMaxRecords) add_record(root, source, p + "/" + m, out);
    } else if (is_dmesg_record(n)) {
      ++kept;
      add_record(root, source, p, out);
    }
  }
}

}  // namespace

std::vector<std::string> panic_lines(std::string_view text) {
  std::vector<std::string_view> lines = split_lines(text);
  auto at = std::find_if(lines.begin(), lines.end(), [](std::string_view l) {
    return l.find("Kernel panic - not syncing") != std::string_view::npos;
  });
  if (at == lines.end())
    at = std::find_if(lines.begin(), lines.end(), [](std::string_view l) {
      return l.starts_with("BUG:") || l.find("Oops") != std::string_view::npos;
    });
  std::vector<std::string> out;
  for (; at != lines.end() && out.size() < 3; ++at)
    if (!at->empty()) out.emplace_back(*at);
  return out;
}

void read_crash_records(const FsRoot& root, Incident& out) {
  scan(root, "pstore", "/sys/fs/pstore", out);
  scan(root, "systemd-pstore", "/var/lib/systemd/pstore", out);
  scan(root, "kdump", "/var/crash", out);
}

}  // namespace gt
