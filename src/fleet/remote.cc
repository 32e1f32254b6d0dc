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
// XML holds anything. The parsed answer is collected in collect/
// (collect/gathered.h: its files become a tree under a scratch directory,
// read by the ordinary FsRoot readers) and judged here; a native answer is
// read as a saved report is (collect/origin.h).
// ssh runs with BatchMode (never prompts), ConnectTimeout and -T (no tty);
// exit 255 is ssh's own failure, and its last stderr line says why.
#include "fleet/remote.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "checks/registry.h"
#include "collect/origin.h"
#include "util/duration.h"
#include "util/numeric.h"
#include "util/read_capped.h"
#include "util/text.h"

namespace gt {
namespace {

/// ": LINE", the last line the remote side wrote on its standard error, or
/// nothing when it wrote none (no dangling colon in the host's error).
std::string what_ssh_said(std::string_view err) {
  const std::string line = last_line(err);
  return line.empty() ? "" : ": " + line;
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

/// The deadline nvidia-smi runs under there: within the host's, leaving
/// time for the rest of the script and the way back.
std::chrono::milliseconds smi_deadline(std::chrono::milliseconds host_timeout) {
  return host_timeout * 6 / 10;
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

}  // namespace

Result<std::vector<std::string>> collect_hosts(const std::vector<std::string>& host_args,
                                               const std::optional<std::string>& hosts_file) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& arg : host_args)
    for (std::string_view h : split_words(arg, ","))
      if (Status s = add_host(std::string(h), out, seen); !s) return s.error();
  if (!hosts_file) return out;
  Result<std::string> text = read_file_capped(*hosts_file, kMaxHostsFileBytes, "hosts files");
  if (!text) return text.error().with_context("hosts file");
  std::istringstream in(text.value());
  size_t before = out.size();
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    for (std::string_view h : split_words(line, " \t\r,"))
      if (Status s = add_host(std::string(h), out, seen); !s) return s.error();
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
  const std::vector<std::string_view> words = split_words(o.ssh_command, " \t");
  std::vector<std::string> argv(words.begin(), words.end());
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
  const std::string script =
      fill_template(kScript, {{"T", whole_seconds(smi_deadline(o.host_timeout))},
                              {"GT_TIMEOUT", whole_seconds(o.host_timeout / 2)},
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
    const std::vector<std::string_view> w = split_words(line, " ");
    if (w.empty()) continue;
    if (w[0] == "@@gt-native") {
      g.native = in_native = true;
    } else if (w[0] == "@@gt-end") {
      g.complete = true;
    } else if (w[0] == "@@gt-out" && w.size() >= 3) {
      g.outs[std::string(w[1])] = {std::string(w[2]), w.size() > 3 ? base64_decode(w[3]) : ""};
    } else if (w[0] == "@@gt-file" && w.size() >= 2) {
      g.files[std::string(w[1])] = w.size() > 2 ? base64_decode(w[2]) : "";
    } else if (w[0] == "@@gt-link" && w.size() == 3) {
      g.links[std::string(w[1])] = std::string(w[2]);
    }
  }
  return g;
}

HostReport judge_gathered(const std::string& host, const Gathered& g, const RemoteOptions& o) {
  Result<Report> collected =
      collect_gathered(g, GatheredInputs{smi_deadline(o.host_timeout), o.paths, o.stages});
  if (!collected) return host_unknown(host, HostVia::kNvidiaSmi, collected.error().message);
  Report& report = *collected;
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
  if (r.timed_out)
    return host_unknown(host, HostVia::kSsh,
                        "no answer within " + whole_seconds(o.host_timeout) + " s, ssh killed" +
                            what_ssh_said(r.err));
  if (r.exit_code == 255) {  // ssh's own failure (connection, authentication)
    std::string why = last_line(r.err);
    return host_unknown(host, HostVia::kSsh, why.empty() ? "ssh exited with 255" : why);
  }
  if (r.out.find("@@gt-gather") == std::string::npos) {
    // ssh ran, the host answered something else: a login banner, a shell
    // that is not sh, junk. Said as such, never as a bare exit status.
    const std::string printed = first_line(r.out);
    return host_unknown(host, HostVia::kSsh,
                        "no gather answer came back (ssh exited with " +
                            std::to_string(r.exit_code) + "; " +
                            (printed.empty() ? std::string("nothing on its standard output")
                                             : "its output began: " + printed.substr(0, 80)) +
                            ")" + what_ssh_said(r.err));
  }
  Gathered g = parse_gathered(r.out);
  if (g.native) {
    Result<Report> report = collect_saved_report_text(g.native_json);
    if (!report)
      return host_unknown(host, HostVia::kGpuTriage,
                          "gpu-triage --json there gave no readable report (" +
                              (g.native_rc ? "exit " + std::to_string(*g.native_rc)
                                           : std::string("its answer ended before its exit "
                                                         "status")) +
                              ", " + report.error().message.substr(0, 200) + ")" +
                              what_ssh_said(r.err));
    return host_report(host, HostVia::kGpuTriage, std::move(*report));
  }
  if (!g.complete)
    return host_unknown(host, HostVia::kNvidiaSmi,
                        "the gather script stopped early" + what_ssh_said(r.err));
  return judge_gathered(host, g, o);
}

}  // namespace gt
