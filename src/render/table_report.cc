#include "render/table_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "holders/identity.h"
#include "holders/stop.h"
#include "render/incident_render.h"
#include "render/text_wrap.h"
#include "util/byte_units.h"
#include "util/index_list.h"

namespace gt {

namespace {

constexpr const char* kRed = "\033[31m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kBold = "\033[1m";
constexpr const char* kReset = "\033[0m";

class Painter {
 public:
  explicit Painter(bool on) : on_(on) {}
  std::string operator()(const std::string& s, const char* code) const {
    return on_ ? std::string(code) + s + kReset : s;
  }

 private:
  bool on_;
};

std::string dash() { return "-"; }

std::string clip(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  if (width <= 1) return s.substr(0, width);
  return s.substr(0, width - 1) + "~";
}

std::string gib(uint64_t bytes) { return fmt::format("{:.1f}", bytes / 1073741824.0); }

std::string memory_cell(const GpuState& g) {
  if (!g.memory_total_bytes) return dash();
  std::string used = g.memory_used_bytes ? gib(*g.memory_used_bytes) : "?";
  return used + "/" + gib(*g.memory_total_bytes) + " GiB";
}

std::string memory_pct_cell(const GpuState& g) {
  if (!g.memory_total_bytes || !g.memory_used_bytes || *g.memory_total_bytes == 0) return dash();
  return fmt::format("{:.0f}%", 100.0 * *g.memory_used_bytes / *g.memory_total_bytes);
}

std::string util_cell(const GpuState& g) {
  if (!g.utilization_gpu_pct) return dash();
  const SampleStats& s = *g.utilization_gpu_pct;
  return fmt::format("{:.0f}/{:.0f}%", s.mean, s.max);
}

std::string power_cell(const GpuState& g) {
  std::string draw = g.power_draw_w ? fmt::format("{:.0f}", *g.power_draw_w) : "?";
  std::string cap = g.power_limit_w ? fmt::format("{:.0f}", *g.power_limit_w) : "?";
  if (!g.power_draw_w && !g.power_limit_w) return dash();
  return draw + "/" + cap + "W";
}

std::string link_cell(const GpuState& g) {
  auto part = [](const std::optional<uint32_t>& gen, const std::optional<uint32_t>& w) {
    return (gen ? std::to_string(*gen) : "?") + "x" + (w ? std::to_string(*w) : "?");
  };
  if (!g.pcie.current_gen && !g.pcie.current_width) return dash();
  return part(g.pcie.current_gen, g.pcie.current_width) + "/" +
         part(g.pcie.max_gen, g.pcie.max_width);
}

std::string bool_cell(const std::optional<bool>& b) { return b ? (*b ? "on" : "off") : dash(); }

bool same_names(const NodeSnapshot& snap) {
  std::set<std::string> names;
  for (const GpuState& g : snap.gpus) names.insert(g.name.value_or("?"));
  return names.size() == 1;
}

/// NVML's "00000000:18:00.0" as the 12-character form lspci and sysfs use.
std::string short_bus_id(const std::optional<std::string>& id) {
  if (!id) return dash();
  if (id->size() == 16 && id->rfind("0000", 0) == 0) return id->substr(4);
  return *id;
}

std::string short_name(const std::string& name) {
  return name.rfind("NVIDIA ", 0) == 0 ? name.substr(7) : name;
}

/// A capture's second and third lines: what it is, when and where from.
void capture_header(const NodeSnapshot& snap, std::ostream& out) {
  out << "driver " << snap.driver_version.value_or("?") << " (nvidia-smi)  CUDA "
      << snap.cuda_driver_version.value_or("?") << "\n";
  out << "capture " << snap.capture_file.value_or("?") << ", taken "
      << snap.captured_at.value_or("at an unknown time")
      << (snap.captured_at ? " (that node's clock)" : "")
      << ": nvidia-smi -q -x; the kernel log, PCI bus, /proc and disks of that node were not "
         "read\n";
}

void header(const NodeSnapshot& snap, const Painter& paint, std::ostream& out) {
  out << paint("gpu-triage", kBold) << "  host " << snap.hostname.value_or("?") << "  "
      << (snap.gpu_count ? std::to_string(*snap.gpu_count) : "?") << " GPUs";
  if (!snap.gpus.empty() && same_names(snap)) out << " x " << snap.gpus.front().name.value_or("?");
  out << "\n";
  if (snap.source != Origin::kNvml) return capture_header(snap, out);
  out << "driver " << snap.driver_version.value_or("?") << " (NVML)  kernel module "
      << snap.kernel_module_version.value_or("?") << "  NVML library "
      << snap.nvml.library_version.value_or(snap.nvml_version.value_or("?")) << "  CUDA "
      << snap.cuda_driver_version.value_or("?") << "\n";
  const std::optional<std::string>& lib = snap.nvml.library_version;
  const std::optional<std::string>& mod = snap.kernel_module_version;
  if (lib && mod && *lib != *mod)
    out << paint(fmt::format("note: NVML library {} differs from kernel module {}", *lib, *mod),
                 kYellow)
        << "\n";
}

void gpu_table(const NodeSnapshot& snap, const TableOptions& opt, const Painter& paint,
               std::ostream& out) {
  const bool names = opt.wide || !same_names(snap);
  std::string head = fmt::format("{:>3} {:<12} {:<12} ", "GPU", "STATUS", "BUS ID");
  if (names) head += fmt::format("{:<{}} ", "NAME", opt.wide ? 44 : 20);
  head += fmt::format("{:<15} {:>4} {:>8} {:>4} {:>9} {:>3} {:<9} {:<3}", "MEMORY USED", "MEM",
                      "UTIL a/m", "TEMP", "POWER", "PS", "PCIE", "PM");
  while (!head.empty() && head.back() == ' ') head.pop_back();
  out << "\n" << paint(head, kBold) << "\n";
  for (const GpuState& g : snap.gpus) {
    std::string status = gpu_status_name(g.status);
    const char* color = g.status == GpuStatus::kOk ? kGreen : kRed;
    std::string line =
        fmt::format("{:>3} {} {:<12} ", g.index, paint(fmt::format("{:<12}", status), color),
                    short_bus_id(g.pci_bus_id));
    if (names) {
      std::string n = short_name(g.name.value_or(dash()));
      line += fmt::format("{:<{}} ", opt.wide ? n : clip(n, 20), opt.wide ? 44 : 20);
    }
    line += fmt::format("{:<15} {:>4} {:>8} {:>4} {:>9} {:>3} {:<9} {:<3}", memory_cell(g),
                        memory_pct_cell(g), util_cell(g),
                        g.temperature_c ? std::to_string(*g.temperature_c) + "C" : dash(),
                        power_cell(g), g.pstate ? "P" + std::to_string(*g.pstate) : dash(),
                        link_cell(g), bool_cell(g.persistence_mode));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

std::string owner_text(const GpuProcess& p) {
  if (!p.owner) return dash();
  const ProcessOwner& o = *p.owner;
  if (o.kind == "systemd-unit") return "unit " + o.name;
  if (o.kind == "kubernetes-pod") return "pod " + o.name;
  if (o.kind == "slurm-job") return "slurm job " + o.name;
  if (o.kind == "docker" || o.kind == "containerd" || o.kind == "podman" || o.kind == "cri-o")
    return o.kind + " " + o.name.substr(0, 12);
  return o.kind + " " + o.name;
}

void process_table(const NodeSnapshot& snap, const TableOptions& opt, const Painter& paint,
                   std::ostream& out) {
  bool any = false;
  for (const GpuState& g : snap.gpus) any = any || (g.processes && !g.processes->empty());
  if (!any) return;
  out << "\n"
      << paint(fmt::format("{:>3} {:>8} {:<10} {:>9}  {:<24} {}", "GPU", "PID", "USER", "GPU MEM",
                           "OWNER", "PROCESS / COMMAND"),
               kBold)
      << "\n";
  for (const GpuState& g : snap.gpus) {
    if (!g.processes) continue;
    for (const GpuProcess& p : *g.processes) {
      std::string mem = p.used_memory_bytes ? format_bytes(*p.used_memory_bytes) : "n/a";
      std::string user = p.user.value_or(p.uid ? std::to_string(*p.uid) : dash());
      std::string owner = owner_text(p);
      std::string prefix =
          fmt::format("{:>3} {:>8} {:<10} {:>9}  {:<24} ", g.index, p.pid, user, mem, owner);
      std::string what;
      if (!p.visible && gpus_from_nvidia_smi(snap.source) && !p.cmdline && !p.name) {
        what = paint("? unnamed in the capture (that node's /proc was not read)", kYellow);
      } else if (!p.visible && !gpus_from_nvidia_smi(snap.source)) {
        what = paint("? not visible here (other PID namespace)", kYellow);
      } else {
        what = p.cmdline.value_or(p.name ? "[" + *p.name + "]" : dash());
        size_t room = opt.width > static_cast<int>(prefix.size())
                          ? static_cast<size_t>(opt.width) - prefix.size()
                          : 20;
        if (!opt.wide) what = clip(what, std::max<size_t>(room, 20));
      }
      out << prefix << what << "\n";
    }
  }
}

std::string wrap(const std::string& text, size_t width);

/// One line per server: what it is, where, how much, who owns it, since when.
std::string server_line(const Server& sv) {
  std::string line = server_noun(sv.kind, sv.recognised);
  if (sv.tensor_parallel) line += fmt::format(" TP={}", *sv.tensor_parallel);
  if (sv.data_parallel) line += fmt::format(" DP={}", *sv.data_parallel);
  if (sv.pipeline_parallel) line += fmt::format(" PP={}", *sv.pipeline_parallel);
  std::vector<uint32_t> idx;
  std::vector<std::string> mem;
  for (const ServerGpu& g : sv.gpus) {
    idx.push_back(g.index);
    mem.push_back(format_memory(g.memory_bytes));
  }
  bool same =
      std::all_of(mem.begin(), mem.end(), [&](const std::string& m) { return m == mem[0]; });
  line += fmt::format(", GPU{} {}: {}", idx.size() == 1 ? "" : "s", format_index_list(idx),
                      same ? mem[0] + (idx.size() > 1 ? " each" : "") : "see processes");
  std::vector<std::string> pids;
  for (const ServerMember& m : sv.members) pids.push_back(std::to_string(m.pid));
  line += fmt::format("; {} process{}", sv.members.size(), sv.members.size() == 1 ? "" : "es");
  if (sv.root_pid && (sv.members.size() > 1 || sv.members.front().pid != *sv.root_pid))
    line += fmt::format(" under launcher PID {}", *sv.root_pid);
  for (const ServerProcess& w : sv.wrappers) line += fmt::format(", wrapper PID {}", w.pid);
  if (sv.supervisor) line += fmt::format("; owner process PID {}", sv.supervisor->pid);
  if (sv.owner_kind && sv.owner_name) {
    const std::string& k = *sv.owner_kind;
    const bool container = k == "docker" || k == "podman" || k == "containerd" || k == "cri-o";
    line += "; " + (k == "systemd-unit" ? "unit " + *sv.owner_name
                    : container         ? k + " " + sv.owner_name->substr(0, 12)
                                        : k + " " + *sv.owner_name);
    if (sv.restart_policy) line += " (" + *sv.restart_policy + ")";
  }
  if (sv.started_after_boot_s)
    line += fmt::format("; started {} s after boot{}", *sv.started_after_boot_s,
                        sv.auto_started ? " (auto-start)" : "");
  if (sv.model) line += "; model " + *sv.model;
  if (sv.port)
    line += fmt::format("; port {}{}", *sv.port,
                        sv.port_source == "default port" ? " (default port)" : "");
  if (sv.graphics_only) line += "; graphics only";
  if (sv.grouping_note) line += (sv.launcher_exited ? "; " : "; not grouped: ") + *sv.grouping_note;
  return line;
}

void servers_section(const NodeSnapshot& snap, const TableOptions& opt, const Painter& paint,
                     std::ostream& out) {
  if (!snap.servers || snap.servers->empty()) return;
  out << "\n" << paint("servers", kBold) << "\n";
  for (const Server& sv : *snap.servers)
    out << (opt.wide ? "  " + server_line(sv) + "\n" : wrap(server_line(sv), opt.width));
  bool sampled = false;
  for (const GpuState& g : snap.gpus)
    sampled = sampled || (g.utilization_gpu_pct && g.utilization_gpu_pct->samples > 1);
  if (!sampled)
    out << wrap(
        "utilization was not sampled over a window (--sample 0, a capture's single reading, "
        "or unsupported): "
        "no server is judged idle",
        opt.width);
}

/// Word-wraps `text` to `width` columns: first line indented by 2, the rest by 4.
std::string wrap(const std::string& text, size_t width) { return wrap_words("  ", text, width, 4); }

void notes(const NodeSnapshot& snap, const TableOptions& opt, const Painter& paint,
           std::ostream& out) {
  std::vector<std::string> lines;
  for (const GpuState& g : snap.gpus) {
    std::string who = fmt::format("GPU {}", g.index);
    for (const GpuProcess& p : g.processes.value_or(std::vector<GpuProcess>{})) {
      if (p.visible || gpus_from_nvidia_smi(snap.source)) continue;
      lines.push_back(fmt::format(
          "{}: PID {} holds {} but is not visible in this PID namespace (NVML reports host "
          "PIDs): run gpu-triage on the host or in a container with --pid=host",
          who, p.pid, p.used_memory_bytes ? format_bytes(*p.used_memory_bytes) : "memory"));
    }
  }
  for (const GpuState& g : snap.gpus)
    if (g.identity_derived_from)
      lines.push_back(fmt::format("GPU {} ({}): NVML could not say which GPU it is; {}", g.index,
                                  gpu_status_name(g.status), *g.identity_derived_from));
  for (const std::string& w : snap.warnings) lines.push_back(w);
  if (lines.empty()) return;
  out << "\n" << paint("notes", kBold) << "\n";
  for (const std::string& l : lines) out << (opt.wide ? "  " + l + "\n" : wrap(l, opt.width));
}

std::string share(uint64_t part, uint64_t whole) {
  return whole == 0 ? "" : fmt::format(" ({:.0f}%)", 100.0 * part / whole);
}

/// 16356564 -> "16.4M": inode counts at a glance.
std::string count(uint64_t n) {
  if (n >= 1000000) return fmt::format("{:.1f}M", n / 1e6);
  if (n >= 10000) return fmt::format("{:.0f}k", n / 1e3);
  return std::to_string(n);
}

/// One line per path given, fine or not: free space and inodes.
std::string disk_line(const DiskUsage& d) {
  if (d.error) return *d.error;
  std::string line = d.available_bytes && d.total_bytes
                         ? format_bytes(*d.available_bytes) + " of " +
                               format_bytes(*d.total_bytes) + " free" +
                               share(*d.available_bytes, *d.total_bytes)
                         : "space unknown";
  line += d.inodes_available && d.inodes_total
              ? fmt::format(", {} of {} inodes free{}", count(*d.inodes_available),
                            count(*d.inodes_total), share(*d.inodes_available, *d.inodes_total))
              : ", no inode limit";
  if (d.same_filesystem_as) line += "; filesystem of " + *d.same_filesystem_as;
  return line;
}

void disks_section(const NodeSnapshot& snap, const TableOptions& opt, const Painter& paint,
                   std::ostream& out) {
  if (snap.disks.empty()) return;
  size_t width = 0;
  for (const DiskUsage& d : snap.disks) width = std::max(width, d.path.size());
  out << "\n" << paint("disks", kBold) << "\n";
  for (const DiskUsage& d : snap.disks) {
    std::string line = fmt::format("  {:<{}}  {}", d.path, width, disk_line(d));
    out << (opt.wide || line.size() <= static_cast<size_t>(opt.width)
                ? line + "\n"
                : wrap(d.path + "  " + disk_line(d), opt.width));
  }
}

void pci_summary(const NodeSnapshot& snap, std::ostream& out) {
  if (snap.pci_devices.empty()) {
    out << "PCI bus: no NVIDIA GPU found in "
        << "sysfs\n";
    return;
  }
  std::map<std::string, int> by_driver;
  for (const PciDevice& d : snap.pci_devices) by_driver[d.driver.value_or("no driver")]++;
  out << "PCI bus: " << snap.pci_devices.size() << " NVIDIA GPU(s):";
  for (const auto& [driver, n] : by_driver) out << " " << n << " with " << driver;
  out << "\n";
  for (const PciDevice& d : snap.pci_devices) {
    out << "  " << d.bus_id << "  device "
        << (d.device_id ? fmt::format("0x{:04x}", *d.device_id) : "?") << "  driver "
        << d.driver.value_or("none") << "\n";
  }
}

void wide_identity(const NodeSnapshot& snap, std::ostream& out) {
  out << "\n";
  for (const GpuState& g : snap.gpus)
    out << fmt::format("{:>3} {}  uuid {}  serial {}\n", g.index, g.name.value_or("-"),
                       g.uuid.value_or("-"), g.serial.value_or("-"));
}

}  // namespace

const char* severity_color(Severity s) {
  switch (s) {
    case Severity::kCritical:
      return kRed;
    case Severity::kWarning:
      return kYellow;
    case Severity::kOk:
      return kGreen;
    default:
      return kReset;
  }
}

void verdict_line(const Report& r, const Painter& paint, std::ostream& out) {
  int crit = 0, warn = 0;
  for (const Finding& f : r.findings) {
    crit += f.severity == Severity::kCritical;
    warn += f.severity == Severity::kWarning;
  }
  std::string word = verdict_word(r);
  const char* color = word == "OK" ? kGreen : word == "WARNING" ? kYellow : kRed;
  out << paint(word, color)
      << fmt::format("  {} critical, {} warning  (exit {})", crit, warn, r.exit_code) << "\n";
}

void findings_section(const Report& r, const TableOptions& opt, const Painter& paint,
                      std::ostream& out, Severity at_least = Severity::kOk) {
  auto shown = [&](const Finding& f) { return f.severity >= at_least; };
  if (std::none_of(r.findings.begin(), r.findings.end(), shown)) return;
  out << "\n" << paint("findings", kBold) << "\n";
  for (const Finding& f : r.findings) {
    if (!shown(f)) continue;
    std::string sev = fmt::format("{:<9}", severity_name(f.severity));
    std::string text = f.title + "  [" + f.id + "]";
    std::string body = opt.wide ? "  " + text + "\n" : wrap(text, opt.width - 10);
    // The severity word goes in front of the first line, indented lines after.
    std::string indented;
    std::istringstream lines(body);
    std::string line;
    bool first = true;
    while (std::getline(lines, line)) {
      indented += (first ? "  " + paint(sev, severity_color(f.severity)) : std::string(11, ' ')) +
                  line.substr(line.find_first_not_of(' ')) + "\n";
      first = false;
    }
    out << indented;
  }
}

void plan_section(const Report& r, const TableOptions& opt, const Painter& paint,
                  std::ostream& out) {
  if (r.plan.empty()) return;
  out << "\n" << paint("what to do", kBold) << "\n";
  int n = 0;
  for (const PlanStep& step : r.plan) {
    std::string body = opt.wide ? "  " + step.text + "\n" : wrap(step.text, opt.width - 3);
    std::string prefix = fmt::format("{:>2}. ", ++n);
    std::istringstream lines(body);
    std::string line;
    bool first = true;
    while (std::getline(lines, line)) {
      out << (first ? prefix : "    ") << line.substr(line.find_first_not_of(' ')) << "\n";
      first = false;
    }
    for (const std::string& c : step.commands) out << "      $ " << c << "\n";
  }
}

void render_table(const Report& r, const TableOptions& opt, std::ostream& out) {
  const NodeSnapshot& snap = r.snapshot;
  Painter paint(opt.color);
  if (r.could_not_check) {
    // Nothing to check (no NVIDIA GPU at all): one line says so. Notes
    // (info: a clock nothing disciplines) stay in --json; a warning shows.
    out << paint(verdict_word(r), kRed) << "  "
        << snap.nvml.error_message.value_or("nothing to check") << "  (exit " << r.exit_code
        << ")\n";
    findings_section(r, opt, paint, out, Severity::kWarning);
    plan_section(r, opt, paint, out);
    return;
  }
  verdict_line(r, paint, out);
  // A broken driver's one clear line comes right under the verdict; then
  // what happened.
  if (!snap.nvml.initialized)
    out << paint("gpu-triage: " + snap.nvml.error_message.value_or("NVML is not usable"), kRed)
        << "\n";
  render_incident_section(snap.incident, opt.wide, opt.width, out);
  if (snap.nvml.initialized) {
    header(snap, paint, out);
    gpu_table(snap, opt, paint, out);
    if (opt.wide) wide_identity(snap, out);
    process_table(snap, opt, paint, out);
  }
  bool pci_disagrees =
      pci_bus_read(snap.source) && snap.gpu_count && *snap.gpu_count != snap.pci_devices.size();
  if ((!snap.nvml.initialized && snap.source == Origin::kNvml) || pci_disagrees ||
      (opt.wide && pci_bus_read(snap.source))) {
    out << "\n";
    pci_summary(snap, out);
  }
  servers_section(snap, opt, paint, out);
  disks_section(snap, opt, paint, out);
  notes(snap, opt, paint, out);
  findings_section(r, opt, paint, out);
  plan_section(r, opt, paint, out);
}

}  // namespace gt
