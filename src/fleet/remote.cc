// The remote side is a POSIX sh script sent as `sh -c '<script>'` (the
// login shell may be anything), run in one ssh connection. Its stdout is
// one record a line, so a killed or cut connection leaves whole records:
//   @@gt-gather 1                         start
//   @@gt-native / JSON... / @@gt-native-rc N   gpu-triage ran there
//   @@gt-out NAME STATUS BASE64           a command's output (nvidia-smi,
//                                         kernel-log, df, df-i, hostname)
//   @@gt-file PATH BASE64                 a copy of a /proc, /sys, /etc file
//   @@gt-link PATH TARGET                 a PCI device's driver link: only
//                                         the driver's name is kept
//   @@gt-end                              finished
// Payloads are base64 (coreutils) because /proc/PID/cmdline holds NULs and
// XML holds anything. Locally the files become a tree under a scratch
// directory, so the ordinary FsRoot readers (process details, PCI devices,
// module version) read the remote node exactly as they read a local one.
// The answer is data, never a path: no link it names is made (a driver
// link is remade from its name alone), so no read leaves the scratch tree.
// ssh runs with BatchMode (never prompts), ConnectTimeout and -T (no tty);
// exit 255 is ssh's own failure, and its last stderr line says why.
#include "fleet/remote.h"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "checks/registry.h"
#include "collect/collect.h"
#include "report/json_report_read.h"
#include "sources/kernel_log/kernel_log.h"
#include "sources/procfs/driver_version.h"
#include "sources/procfs/process_info.h"
#include "sources/procfs/servers.h"
#include "sources/smi_xml/smi_text.h"
#include "sources/sysfs/pci_devices.h"
#include "util/numeric.h"
#include "util/read_capped.h"

namespace gt {
namespace {

std::vector<std::string> split_words(std::string_view s, const char* seps) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t b = s.find_first_not_of(seps, i);
    if (b == std::string_view::npos) break;
    size_t e = s.find_first_of(seps, b);
    if (e == std::string_view::npos) e = s.size();
    out.emplace_back(s.substr(b, e - b));
    i = e;
  }
  return out;
}

Status add_host(const std::string& h, std::vector<std::string>& out, std::set<std::string>& seen) {
  if (h.starts_with("-") ||
      std::any_of(h.begin(), h.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; }))
    return Error{ErrorKind::kMalformed, "not a host name: \"" + h + "\""};
  if (seen.insert(h).second) out.push_back(h);
  return ok_status();
}

std::string shell_quote(std::string_view s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string seconds(std::chrono::milliseconds d) {
  return std::to_string(std::max<int64_t>(1, d.count() / 1000));
}

// The gather script; @T@ (nvidia-smi's deadline, s), @GT_TIMEOUT@, @ARGS@ (the
// options a remote gpu-triage judges with), @KLOG@ (1: read the kernel log)
// and @PATHS@ are filled in. Runs under any POSIX sh; needs coreutils base64.
constexpr const char* kScript = R"SH(
b() { base64 | tr -d '\n'; }
f() { for p in "$@"; do if [ -f "$p" ] && [ -r "$p" ]; then printf '@@gt-file %s ' "$p"; b < "$p" 2>/dev/null; echo; fi; done; }
o() { printf '@@gt-out %s %s ' "$1" "$2"; printf '%s' "$3" | b; echo; }
echo '@@gt-gather 1'
if command -v gpu-triage >/dev/null 2>&1; then
  echo '@@gt-native'
  gpu-triage --json --sample 0 --timeout @GT_TIMEOUT@s @ARGS@
  rc=$?
  echo; echo "@@gt-native-rc $rc"; echo '@@gt-end'; exit 0
fi
if command -v timeout >/dev/null 2>&1; then x=$(timeout -k 1 @T@ nvidia-smi -q -x 2>&1); else x=$(nvidia-smi -q -x 2>&1); fi
o nvidia-smi $? "$x"
o hostname 0 "$(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)"
if [ @KLOG@ = 1 ]; then
if k=$(dmesg 2>&1); then s=dmesg; elif k=$(journalctl -k -b 0 -q --no-pager 2>&1); then s=journalctl; else s=none; fi
if [ "$s" = none ]; then o kernel-log none "$k"; else o kernel-log "$s" "$(printf '%s\n' "$k" | grep -E 'NVRM|Xid|nvidia-nvswitch|fallen off' | tail -n 5000)"; fi
fi
o df $? "$(df -P -k -- @PATHS@ 2>&1)"
o df-i $? "$(df -P -i -- @PATHS@ 2>&1)"
f /proc/stat /sys/module/nvidia/version /proc/driver/nvidia/version
for n in /sys/devices/system/node/node*; do f "$n/cpulist"; done
for d in /sys/bus/pci/devices/*; do
  [ "$(cat "$d/vendor" 2>/dev/null)" = 0x10de ] || continue
  f "$d/vendor" "$d/device" "$d/class" "$d/current_link_speed" "$d/max_link_speed" "$d/current_link_width" "$d/max_link_width" "$d/numa_node"
  if [ -L "$d/driver" ]; then printf '@@gt-link %s %s\n' "$d/driver" "$(readlink "$d/driver")"; fi
done
pw=
for p in $(printf '%s\n' "$x" | sed -n 's:.*<pid>\([0-9][0-9]*\)</pid>.*:\1:p' | sort -u); do
  f /proc/$p/stat /proc/$p/comm /proc/$p/cmdline /proc/$p/status /proc/$p/cgroup
  u=$(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$p/status 2>/dev/null)
  if [ -n "$u" ]; then pw="$pw$(getent passwd "$u" 2>/dev/null)
"; fi
done
if [ -n "$pw" ]; then printf '@@gt-file /etc/passwd '; printf '%s' "$pw" | b; echo; fi
echo '@@gt-end'
)SH";

/// The template with each @NAME@ of `values` filled in, in one pass: a value
/// is never scanned again, so a --path holding "@ARGS@" stays inside its
/// own quotes.
std::string fill_template(std::string_view tmpl, const std::map<std::string, std::string>& values) {
  std::string out;
  size_t i = 0;
  while (i < tmpl.size()) {
    const size_t at = tmpl.find('@', i);
    const size_t end = at == std::string_view::npos ? at : tmpl.find('@', at + 1);
    if (end == std::string_view::npos) break;
    auto v = values.find(std::string(tmpl.substr(at + 1, end - at - 1)));
    out += tmpl.substr(i, at - i);
    if (v == values.end()) {
      out += '@';  // not a placeholder: the next '@' may start one
      i = at + 1;
    } else {
      out += v->second;
      i = end + 1;
    }
  }
  out += tmpl.substr(i);
  return out;
}

std::string base64_decode(std::string_view in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = val(c);
    if (v < 0) continue;  // '=' padding, stray blanks
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

std::string last_line(std::string_view s) {
  std::vector<std::string> lines = split_words(s, "\r\n");
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (it->find_first_not_of(" \t") != std::string::npos) return *it;
  return "";
}

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
Status fill_gpus(const Gathered::Out& smi, const RemoteOptions& o, NodeSnapshot& snap) {
  if (smi.status == "124" || smi.status == "137") {
    snap.nvml.loaded = true;
    snap.nvml.init_error = NvmlInitError::kTimeout;
    snap.nvml.error_message = "nvidia-smi -q -x did not finish within " +
                              seconds(o.host_timeout * 6 / 10) +
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
std::optional<std::array<uint64_t, 2>> df_numbers(const std::string& line) {
  std::vector<std::string> w = split_words(line, " \t");
  auto num = [](const std::string& t) {
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

}  // namespace

Result<std::vector<std::string>> collect_hosts(const std::vector<std::string>& host_args,
                                               const std::optional<std::string>& hosts_file) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& arg : host_args)
    for (const std::string& h : split_words(arg, ","))
      if (Status s = add_host(h, out, seen); !s) return s.error();
  if (!hosts_file) return out;
  Result<std::string> text = read_file_capped(*hosts_file, kMaxHostsFileBytes, "hosts files");
  if (!text) return text.error().with_context("hosts file");
  std::istringstream in(text.value());
  size_t before = out.size();
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    for (const std::string& h : split_words(line, " \t\r,"))
      if (Status s = add_host(h, out, seen); !s) return s.error();
  }
  if (out.size() == before && host_args.empty())
    return Error{ErrorKind::kMalformed, "hosts file " + *hosts_file + " names no host"};
  return out;
}

int connect_timeout_s(std::chrono::milliseconds host_timeout) {
  return static_cast<int>(std::clamp<int64_t>(host_timeout.count() / 3000, 1, 10));
}

std::vector<std::string> ssh_argv(const RemoteOptions& o, const std::string& host,
                                  const std::string& remote_command) {
  std::vector<std::string> argv = split_words(o.ssh_command, " \t");
  if (argv.empty()) argv.push_back("ssh");
  for (std::string opt : {std::string("BatchMode=yes"),
                          "ConnectTimeout=" + std::to_string(connect_timeout_s(o.host_timeout))}) {
    argv.push_back("-o");
    argv.push_back(opt);
  }
  argv.insert(argv.end(), {"-T", "--", host, remote_command});
  return argv;
}

std::string remote_command(const RemoteOptions& o) {
  std::string paths, args;
  for (const std::string& p : o.paths) {
    paths += " " + shell_quote(p);
    if (p != "/") args += " --path " + shell_quote(p);
  }
  // The host judges as this fleet was asked to (a remote gpu-triage too).
  if (o.checks.expect_gpus) args += " --expect-gpus " + std::to_string(*o.checks.expect_gpus);
  const bool kernel_log = has(o.stages, Stage::kKernelLog);
  if (!kernel_log) args += " --no-kernel-log";
  const std::string script = fill_template(kScript, {{"T", seconds(o.host_timeout * 6 / 10)},
                                                     {"GT_TIMEOUT", seconds(o.host_timeout / 2)},
                                                     {"PATHS", paths},
                                                     {"ARGS", args},
                                                     {"KLOG", kernel_log ? "1" : "0"}});
  return "sh -c " + shell_quote(script);
}

Gathered parse_gathered(std::string_view out) {
  Gathered g;
  std::istringstream in{std::string(out)};
  std::string line;
  bool in_native = false;
  while (std::getline(in, line)) {
    if (in_native) {
      if (line.starts_with("@@gt-native-rc ")) {
        in_native = false;
        std::string rc = line.substr(15);
        rc.erase(std::find_if(rc.begin(), rc.end(), [](char c) { return c < '0' || c > '9'; }),
                 rc.end());
        g.native_rc = parse_int<int>(rc);  // digits that do not fit an int: unknown
      } else {
        g.native_json += line + "\n";
      }
      continue;
    }
    std::vector<std::string> w = split_words(line, " ");
    if (w.empty()) continue;
    if (w[0] == "@@gt-native") {
      g.native = in_native = true;
    } else if (w[0] == "@@gt-end") {
      g.complete = true;
    } else if (w[0] == "@@gt-out" && w.size() >= 3) {
      g.outs[w[1]] = {w[2], w.size() > 3 ? base64_decode(w[3]) : ""};
    } else if (w[0] == "@@gt-file" && w.size() >= 2) {
      g.files[w[1]] = w.size() > 2 ? base64_decode(w[2]) : "";
    } else if (w[0] == "@@gt-link" && w.size() == 3) {
      g.links[w[1]] = w[2];
    }
  }
  return g;
}

std::vector<DiskUsage> parse_df(const std::vector<std::string>& paths, std::string_view df_k,
                                std::string_view df_i) {
  std::vector<std::string> k = split_words(df_k, "\n"), i = split_words(df_i, "\n");
  std::vector<DiskUsage> out;
  std::set<std::string> mounts;
  for (size_t n = 0; n < paths.size(); ++n) {
    DiskUsage d;
    d.path = paths[n];
    auto blocks = n + 1 < k.size() ? df_numbers(k[n + 1]) : std::nullopt;
    if (!blocks) {
      d.error = "df gave no line for " + paths[n] + (k.empty() ? "" : ": " + last_line(df_k));
      out.push_back(d);
      continue;
    }
    std::string mount = split_words(k[n + 1], " \t").back();
    if (!mounts.insert(mount).second) continue;  // same filesystem as an earlier path
    d.total_bytes = kib_to_bytes((*blocks)[0]);
    d.available_bytes = kib_to_bytes((*blocks)[1]);
    if (auto in = n + 1 < i.size() ? df_numbers(i[n + 1]) : std::nullopt; in && (*in)[0] > 0) {
      d.inodes_total = (*in)[0];
      d.inodes_available = (*in)[1];
    }
    out.push_back(d);
  }
  return out;
}

HostReport judge_gathered(const std::string& host, const Gathered& g, const RemoteOptions& o) {
  auto smi = g.outs.find("nvidia-smi");
  if (smi == g.outs.end())
    return host_unknown(host, HostVia::kNvidiaSmi, "no nvidia-smi output came back");
  ScratchRoot scratch;
  if (!scratch.ok())
    return host_unknown(host, HostVia::kNvidiaSmi, "cannot create a scratch directory");
  scratch.lay_out(g);
  const FsRoot root(scratch.dir());
  // The gathered node's table for the one pipeline: nvidia-smi's answer for
  // the GPUs, the copies of its /proc and /sys for the rest.
  std::optional<std::string> unreadable;
  const std::vector<Collector> table = {
      {Stage::kGpus,
       [&](NodeSnapshot& s) {
         s.nvml.library_path = "nvidia-smi (over ssh)";
         if (Status st = fill_gpus(smi->second, o, s); !st) unreadable = st.error().message;
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
               parse_df(o.paths, df->second.text, dfi == g.outs.end() ? "" : dfi->second.text);
         }
       }},
  };
  Report report = collect_with(Origin::kGathered, table, o.stages);
  if (unreadable)
    return host_unknown(host, HostVia::kNvidiaSmi, "nvidia-smi output unreadable: " + *unreadable);
  NodeSnapshot& snap = report.snapshot;
  if (no_nvidia_gpu(snap)) {
    // NVIDIA's nvidia-smi on a machine without the GPU says it "couldn't
    // communicate with the NVIDIA driver" (exit 9): there is no device for
    // one. Say what was found instead of advising modprobe.
    snap.nvml.error_message =
        "no NVIDIA GPU on this machine: nothing on the PCI bus, no nvidia "
        "module, " +
        std::string(snap.nvml.loaded ? "nvidia-smi installed (" : "no nvidia-smi (") +
        snap.nvml.error_message.value_or("?") + ")";
  }
  judge(report, o.checks);
  return host_report(host, HostVia::kNvidiaSmi, std::move(report));
}

HostReport check_host(const std::string& host, const RemoteOptions& o,
                      const CommandRunner& runner) {
  CommandResult r = runner.run(ssh_argv(o, host, remote_command(o)), o.host_timeout);
  if (r.spawn_error) return host_unknown(host, HostVia::kSsh, *r.spawn_error);
  if (r.timed_out) {
    std::string why = last_line(r.err);
    return host_unknown(host, HostVia::kSsh,
                        "no answer within " + seconds(o.host_timeout) + " s, ssh killed" +
                            (why.empty() ? "" : ": " + why));
  }
  if (r.exit_code == 255 || r.out.find("@@gt-gather") == std::string::npos) {
    std::string why = last_line(r.err);
    return host_unknown(host, HostVia::kSsh,
                        why.empty() ? "ssh exited with " + std::to_string(r.exit_code) : why);
  }
  Gathered g = parse_gathered(r.out);
  if (g.native) {
    Result<Report> report = report_from_json_text(g.native_json);
    if (!report)
      return host_unknown(host, HostVia::kGpuTriage,
                          "gpu-triage --json there gave no readable report (exit " +
                              std::to_string(g.native_rc.value_or(-1)) + ", " +
                              report.error().message.substr(0, 200) + "): " + last_line(r.err));
    return host_report(host, HostVia::kGpuTriage, std::move(*report));
  }
  if (!g.complete)
    return host_unknown(host, HostVia::kNvidiaSmi,
                        "the gather script stopped early: " + last_line(r.err));
  return judge_gathered(host, g, o);
}

}  // namespace gt
