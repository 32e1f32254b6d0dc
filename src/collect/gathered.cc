// A fleet host's gathered answer through the one pipeline. The answer is
// data, never a path: a file lands only at an absolute path without "." or
// ".." parts inside the scratch tree, and no link it names is made (a PCI
// device's driver link is remade from the driver's name alone), so no read
// for the host leaves the scratch tree.
#include "collect/gathered.h"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "sources/kernel_log/kernel_log.h"
#include "sources/procfs/driver_version.h"
#include "sources/procfs/process_info.h"
#include "sources/procfs/servers.h"
#include "sources/smi_xml/smi_text.h"
#include "sources/sysfs/pci_devices.h"
#include "util/duration.h"
#include "util/numeric.h"
#include "util/text.h"

namespace gt {
namespace {

/// A scratch directory that stands for the remote "/", removed at the end.
class ScratchRoot {
 public:
  ScratchRoot() {
    char tmpl[] = "/tmp/gt-remote-XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) dir_ = tmpl;
  }
  ~ScratchRoot() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  ScratchRoot(const ScratchRoot&) = delete;
  ScratchRoot& operator=(const ScratchRoot&) = delete;
  bool ok() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }

  /// Lays out the files, and each PCI device's driver as text. The answer
  /// is data, never a path: a file's path must be absolute, without "." or
  /// ".." parts, and no link of the answer is made, so every read for the
  /// host stays inside the scratch tree.
  void lay_out(const Gathered& g) const {
    std::error_code ec;
    for (const auto& [path, content] : g.files) {
      if (!safe(path)) continue;
      std::filesystem::path p = dir_ + path;
      std::filesystem::create_directories(p.parent_path(), ec);
      if (ec || std::filesystem::is_symlink(p, ec)) continue;
      std::ofstream(p, std::ios::binary) << content;
    }
    for (const auto& [path, target] : g.links) {
      std::optional<std::string> link = driver_link(path, target);
      if (!link) continue;
      std::filesystem::path p = dir_ + path;
      std::filesystem::create_directories(p.parent_path(), ec);
      std::filesystem::create_symlink(*link, p, ec);
    }
  }

 private:
  static bool safe(const std::string& p) {
    if (!p.starts_with("/") || p.size() > 4096) return false;
    for (size_t i = 1; i <= p.size();) {
      size_t e = p.find('/', i);
      if (e == std::string::npos) e = p.size();
      std::string_view part(p.data() + i, e - i);
      if (part.empty() || part == "." || part == "..") return false;
      i = e + 1;
    }
    return true;
  }

  /// The only link the readers need is /sys/bus/pci/devices/<dev>/driver, and
  /// of it only the driver's name (pci_devices.cc takes the last part). The
  /// link is remade here pointing at ../../../bus/pci/drivers/<name> inside
  /// the scratch tree, where no such folder exists: a readlink gives the
  /// name, and nothing can be read through it. nullopt for any other link.
  static std::optional<std::string> driver_link(const std::string& path,
                                                const std::string& target) {
    constexpr std::string_view kDevices = "/sys/bus/pci/devices/";
    if (!safe(path) || !path.starts_with(kDevices) || !path.ends_with("/driver"))
      return std::nullopt;
    std::string_view dev(path);
    dev = dev.substr(kDevices.size(),
                     dev.size() - kDevices.size() - std::string_view("/driver").size());
    if (dev.empty() || dev.find('/') != std::string_view::npos) return std::nullopt;
    const std::string name = target.substr(target.rfind('/') + 1);
    const bool plain = !name.empty() && name.size() <= 64 && name != "." && name != ".." &&
                       std::all_of(name.begin(), name.end(), [](unsigned char c) {
                         return std::isalnum(c) || c == '_' || c == '-' || c == '.';
                       });
    if (!plain) return std::nullopt;
    return "../../../bus/pci/drivers/" + name;
  }

  std::string dir_;
};

/// nvidia-smi did not answer, is absent, or printed something we read.
Status fill_gpus(const Gathered::Out& smi, std::chrono::milliseconds deadline, NodeSnapshot& snap) {
  if (smi.status == "124" || smi.status == "137") {
    snap.nvml.loaded = true;
    snap.nvml.init_error = NvmlInitError::kTimeout;
    snap.nvml.error_message = "nvidia-smi -q -x did not finish within " + whole_seconds(deadline) +
                              " s (killed): the driver is "
                              "probably wedged";
    return ok_status();
  }
  if (smi.status == "127") {
    snap.nvml.init_error = NvmlInitError::kLibraryNotFound;
    snap.nvml.error_message = "nvidia-smi is not installed there: " + last_line(smi.text);
    snap.nvml.load_error = last_line(smi.text);
    return ok_status();
  }
  return fill_snapshot_from_smi_output(smi.text, snap);
}

KernelLog kernel_log_of(const Gathered::Out& k) {
  KernelLog log;
  KernelLog::Source src;
  src.name = k.status == "journalctl" ? "journalctl -k -b 0 (over ssh)" : "dmesg (over ssh)";
  src.boot = LogBoot::kCurrent;
  if (k.status == "none") {
    src.error = last_line(k.text);
    log.sources.push_back(src);
    return log;
  }
  ParsedKernelLog parsed = parse_kernel_log_text(k.text, LogBoot::kCurrent);
  src.read = true;
  src.lines = parsed.lines;
  log.sources.push_back(src);
  log.events = std::move(parsed.events);
  log.unparsed_nvidia_lines = parsed.unparsed_nvidia_lines;
  return log;
}

/// The /proc facts of each GPU process, keeping nvidia-smi's name when the
/// process is not in the copy (it exited, or /proc was not readable).
void fill_processes(const FsRoot& root, NodeSnapshot& snap) {
  for (GpuState& g : snap.gpus) {
    if (!g.processes) continue;
    for (GpuProcess& p : *g.processes) {
      std::optional<std::string> smi_name = p.cmdline;
      fill_process_details(root, p);
      if (!p.visible) {
        p.cmdline = smi_name;
        p.visibility_note = "PID " + std::to_string(p.pid) +
                            " was not readable in that host's /proc (exited, or another "
                            "PID namespace)";
      }
    }
  }
}

/// Size and free of a `df -P` line (blocks or inodes): the first run of
/// three numbers after the filesystem name (total, used, free). Numbers too
/// big for a uint64 (a hostile host) make the line unreadable, not a throw.
std::optional<std::array<uint64_t, 2>> df_numbers(std::string_view line) {
  std::vector<std::string_view> w = split_words(line, " \t");
  auto num = [](std::string_view t) {
    return !t.empty() &&
           std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  for (size_t i = 1; i + 2 < w.size(); ++i) {
    if (!num(w[i]) || !num(w[i + 1]) || !num(w[i + 2])) continue;
    std::optional<uint64_t> total = parse_int<uint64_t>(w[i]), free = parse_int<uint64_t>(w[i + 2]);
    if (!total || !free) return std::nullopt;
    return std::array<uint64_t, 2>{*total, *free};
  }
  return std::nullopt;
}

/// 1024-byte blocks as bytes; null when that overflows.
std::optional<uint64_t> kib_to_bytes(uint64_t kib) {
  if (kib > std::numeric_limits<uint64_t>::max() / 1024) return std::nullopt;
  return kib * 1024;
}

/// The gathered node's table for the one pipeline: nvidia-smi's answer for
/// the GPUs, the copies of its /proc and /sys for the rest. An nvidia-smi
/// answer that does not read is kept in `unreadable`.
std::vector<Collector> gathered_table(const Gathered& g, const GatheredInputs& in,
                                      const FsRoot& root, std::optional<std::string>& unreadable) {
  return {
      {Stage::kGpus,
       [&](NodeSnapshot& s) {
         s.nvml.library_path = "nvidia-smi (over ssh)";
         const Gathered::Out& smi = g.outs.at("nvidia-smi");
         if (Status st = fill_gpus(smi, in.smi_deadline, s); !st) unreadable = st.error().message;
       }},
      {Stage::kHost,
       [&](NodeSnapshot& s) {
         if (auto h = g.outs.find("hostname"); h != g.outs.end() && !h->second.text.empty())
           s.hostname = h->second.text;
         s.kernel_module_version = read_kernel_module_version(root);
         if (Result<std::vector<PciDevice>> pci = read_nvidia_pci_devices(root); pci)
           s.pci_devices = std::move(*pci);
       }},
      {Stage::kServers,
       [&](NodeSnapshot& s) {
         fill_processes(root, s);
         s.servers = group_servers(s, &root);
       }},
      {Stage::kKernelLog,
       [&](NodeSnapshot& s) {
         if (auto k = g.outs.find("kernel-log"); k != g.outs.end())
           s.kernel_log = kernel_log_of(k->second);
       }},
      {Stage::kDisks,
       [&](NodeSnapshot& s) {
         if (auto df = g.outs.find("df"); df != g.outs.end()) {
           auto dfi = g.outs.find("df-i");
           s.disks =
               parse_df(in.paths, df->second.text, dfi == g.outs.end() ? "" : dfi->second.text);
         }
       }},
  };
}

}  // namespace

Result<Report> collect_gathered(const Gathered& g, const GatheredInputs& in) {
  if (!g.outs.contains("nvidia-smi"))
    return Error{ErrorKind::kNotFound, "no nvidia-smi output came back"};
  ScratchRoot scratch;
  if (!scratch.ok()) return Error{ErrorKind::kIo, "cannot create a scratch directory"};
  scratch.lay_out(g);
  const FsRoot root(scratch.dir());
  std::optional<std::string> unreadable;
  Report report =
      collect_with(Origin::kGathered, gathered_table(g, in, root, unreadable), in.stages);
  if (unreadable)
    return Error{ErrorKind::kMalformed, "nvidia-smi output unreadable: " + *unreadable};
  return report;
}

std::vector<DiskUsage> parse_df(const std::vector<std::string>& paths, std::string_view df_k,
                                std::string_view df_i) {
  std::vector<std::string_view> k = split_words(df_k, "\n"), i = split_words(df_i, "\n");
  std::vector<DiskUsage> out;
  std::set<std::string> mounts;
  for (size_t n = 0; n < paths.size(); ++n) {
    DiskUsage d;
    d.path = paths[n];
    if (n + 1 >= k.size()) {
      d.error = "df gave no line for " + paths[n] + (k.empty() ? "" : ": " + last_line(df_k));
      out.push_back(d);
      continue;
    }
    const std::string line(k[n + 1]);
    const auto blocks = df_numbers(line);
    const std::optional<uint64_t> total = blocks ? kib_to_bytes((*blocks)[0]) : std::nullopt,
                                  avail = blocks ? kib_to_bytes((*blocks)[1]) : std::nullopt;
    // Sizes no 64-bit count of bytes holds are unread, never "unknown, fine".
    if (!total || !avail) {
      d.error = "df's line for " + paths[n] + " gives no size in range: " + line;
      out.push_back(d);
      continue;
    }
    std::string mount(split_words(line, " \t").back());
    if (!mounts.insert(mount).second) continue;  // same filesystem as an earlier path
    d.total_bytes = total;
    d.available_bytes = avail;
    if (auto in = n + 1 < i.size() ? df_numbers(i[n + 1]) : std::nullopt; in && (*in)[0] > 0) {
      d.inodes_total = (*in)[0];
      d.inodes_available = (*in)[1];
    }
    out.push_back(d);
  }
  return out;
}

}  // namespace gt
