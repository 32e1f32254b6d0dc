#include "render/table_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "holders/identity.h"
#include "holders/stop.h"
#include "render/first_screen.h"
#include "render/incident_render.h"
#include "render/painter.h"
#include "render/shell_wrap.h"
#include "render/text_wrap.h"
#include "render/topology_matrix.h"
#include "util/byte_units.h"
#include "util/index_list.h"
#include "util/plural.h"
#include "util/terminal_text.h"

namespace gt {

namespace {

std::string dash() { return "-"; }

/// `raw` as shown (for_terminal), cut to `width` bytes with a "~" (never
/// inside a character).
std::string clip(const std::string& raw, size_t width) {
  return clip_shown(for_terminal(raw), width);
}

std::string gib(uint64_t bytes) { return fmt::format("{:.1f}", bytes / 1073741824.0); }

/// "70.6/95.6G 74%": used/total GiB and the used share, one column so the
/// share cannot be read as the memory controller's load.
std::string memory_cell(const GpuState& g) {
  if (!g.memory_total_bytes) return dash();
  std::string used = g.memory_used_bytes ? gib(*g.memory_used_bytes) : "?";
  std::string cell = used + "/" + gib(*g.memory_total_bytes) + "G";
  if (g.memory_used_bytes && *g.memory_total_bytes > 0)
    cell += fmt::format(" {:.0f}%", 100.0 * *g.memory_used_bytes / *g.memory_total_bytes);
  return cell;
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

/// `parts` joined by two spaces, a new line (indented by 2) where the next
/// part would pass `width`.
std::string fitted(const std::vector<std::string>& parts, size_t width) {
  std::string out, line;
  for (const std::string& raw : parts) {
    const std::string p = for_terminal(raw);
    if (!line.empty() && line.size() + 2 + p.size() > width) {
      out += line + "\n";
      line = "  ";
    } else if (!line.empty()) {
      line += "  ";
    }
    line += p;
  }
  return out + line + "\n";
}

/// A capture's second and third lines: what it is, when and where from.
void capture_header(const NodeSnapshot& snap, size_t width, std::ostream& out) {
  out << fitted({"driver " + snap.driver_version.value_or("?") + " (nvidia-smi)",
                 "CUDA " + snap.cuda_driver_version.value_or("?")},
                width);
  out << wrap_words("",
                    "capture " + snap.capture_file.value_or("?") + ", taken " +
                        snap.captured_at.value_or("at an unknown time") +
                        (snap.captured_at ? " (that node's clock)" : "") +
                        ": nvidia-smi -q -x; the kernel log, PCI bus, /proc and disks of that "
                        "node were not read",
                    width, 2);
}

void header(const NodeSnapshot& snap, const TableOptions& opt, const Painter& paint,
            std::ostream& out) {
  const size_t width = opt.wide ? std::string::npos : static_cast<size_t>(opt.width);
  std::vector<std::string> first = {
      "host " + snap.hostname.value_or("?"),
      snap.gpu_count ? count_of(*snap.gpu_count, "GPU", "GPUs") : "? GPUs"};
  if (!snap.gpus.empty() && same_names(snap))
    first.back() += " x " + snap.gpus.front().name.value_or("?");
  // The bold program name is not counted: escape codes take no columns.
  std::string line = fitted(first, width > 12 ? width - 12 : width);
  out << paint("gpu-triage", kBold) << "  " << line;
  if (snap.source != Origin::kNvml) return capture_header(snap, width, out);
  out << fitted(
      {"driver " + snap.driver_version.value_or("?") + " (NVML)",
       "kernel module " + snap.kernel_module_version.value_or("?"),
       "NVML library " + snap.nvml.library_version.value_or(snap.nvml_version.value_or("?")),
       "CUDA " + snap.cuda_driver_version.value_or("?")},
      width);
  const std::optional<std::string>& lib = snap.nvml.library_version;
  const std::optional<std::string>& mod = snap.kernel_module_version;
  if (lib && mod && *lib != *mod)
    out << paint(fmt::format("note: NVML library {} differs from kernel module {}",
                             for_terminal(*lib), for_terminal(*mod)),
                 kYellow)
        << "\n";
}

/// "18:00.0" when every GPU is in PCI domain 0 (the short form loses nothing).
std::string bus_without_domain(const std::string& id) {
  return id.rfind("0000:", 0) == 0 ? id.substr(5) : id;
}

/// The GPU table's columns, in display order. Which are shown depends on
/// the width (see fit_columns).
enum class Col { kGpu, kStatus, kBus, kName, kMemory, kBusy, kTemp, kPower, kPstate, kPcie, kPm };

struct Layout {
  std::vector<Col> cols;
  size_t name_width = 20;
  size_t bus_width = 12;
};

size_t col_width(Col c, const Layout& l) {
  switch (c) {
    case Col::kGpu:
      return 3;
    case Col::kStatus:
      return 12;
    case Col::kBus:
      return l.bus_width;
    case Col::kName:
      return l.name_width;
    case Col::kMemory:
      return 16;
    case Col::kBusy:
      return 8;
    case Col::kTemp:
      return 4;
    case Col::kPower:
      return 9;
    case Col::kPstate:
      return 3;
    case Col::kPcie:
      return 9;
    case Col::kPm:
      return 3;
  }
  return 0;
}

size_t line_width(const Layout& l) {
  size_t w = 0;
  for (Col c : l.cols) w += col_width(c, l) + 1;
  return w == 0 ? 0 : w - 1;
}

/// Narrows the table to `width` columns, one step at a time, in this order
/// (documented in the man page, TABLE WIDTH): the model name clipped to 12
/// characters, then PM, PS, the PCI domain of the bus id (when all are in
/// domain 0), the model name, PCIE, POWER and TEMP dropped. --wide keeps all.
Layout fit_columns(Layout l, size_t width, bool all_domain0) {
  auto drop = [&](Col c) {
    l.cols.erase(std::remove(l.cols.begin(), l.cols.end(), c), l.cols.end());
  };
  const std::vector<std::function<void()>> steps = {
      [&] { l.name_width = std::min<size_t>(l.name_width, 12); },
      [&] { drop(Col::kPm); },
      [&] { drop(Col::kPstate); },
      [&] {
        if (all_domain0) l.bus_width = 7;
      },
      [&] { drop(Col::kName); },
      [&] { drop(Col::kPcie); },
      [&] { drop(Col::kPower); },
      [&] { drop(Col::kTemp); },
  };
  for (const auto& step : steps) {
    if (line_width(l) <= width) break;
    step();
  }
  return l;
}

std::string gpu_cell(Col c, const GpuState& g, const Layout& l, bool wide) {
  switch (c) {
    case Col::kGpu:
      return std::to_string(g.index);
    case Col::kStatus:
      return gpu_status_name(g.status);
    case Col::kBus: {
      std::string id = short_bus_id(g.pci_bus_id);
      return l.bus_width < 12 ? bus_without_domain(id) : id;
    }
    case Col::kName: {
      std::string n = short_name(g.name.value_or(dash()));
      return wide ? n : clip(n, l.name_width);
    }
    case Col::kMemory:
      return memory_cell(g);
    case Col::kBusy:
      return util_cell(g);
    case Col::kTemp:
      return g.temperature_c ? std::to_string(*g.temperature_c) + "C" : dash();
    case Col::kPower:
      return power_cell(g);
    case Col::kPstate:
      return g.pstate ? "P" + std::to_string(*g.pstate) : dash();
    case Col::kPcie:
      return link_cell(g);
    case Col::kPm:
      return bool_cell(g.persistence_mode);
  }
  return "";
}

const char* col_header(Col c) {
  switch (c) {
    case Col::kGpu:
      return "GPU";
    case Col::kStatus:
      return "STATUS";
    case Col::kBus:
      return "BUS ID";
    case Col::kName:
      return "NAME";
    case Col::kMemory:
      return "MEMORY USED";
    case Col::kBusy:
      return "GPU BUSY";
    case Col::kTemp:
      return "TEMP";
    case Col::kPower:
      return "POWER";
    case Col::kPstate:
      return "PS";
    case Col::kPcie:
      return "PCIE";
    case Col::kPm:
      return "PM";
  }
  return "";
}

bool right_aligned(Col c) {
  return c == Col::kGpu || c == Col::kBusy || c == Col::kTemp || c == Col::kPower ||
         c == Col::kPstate;
}

/// One row: each cell padded to its column; `paint_status` colours the
/// STATUS cell (padding included, so columns stay aligned).
std::string table_row(const Layout& l, const std::function<std::string(Col)>& cell,
                      const std::function<std::string(const std::string&)>& paint_status) {
  std::string line;
  for (size_t i = 0; i < l.cols.size(); ++i) {
    Col c = l.cols[i];
    size_t w = col_width(c, l);
    std::string text = for_terminal(cell(c));
    std::string padded =
        right_aligned(c) ? fmt::format("{:>{}}", text, w) : fmt::format("{:<{}}", text, w);
    line += (i ? " " : "") + (c == Col::kStatus ? paint_status(padded) : padded);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

/// "3g.40gb" from "NVIDIA H100 80GB HBM3 MIG 3g.40gb" (the profile).
std::string mig_profile(const MigDevice& m) {
  const std::string n = m.name.value_or("");
  size_t at = n.rfind("MIG ");
  return at == std::string::npos ? n : n.substr(at + 4);
}

/// A MIG device's row under its GPU: "MIG 3g.40gb" in STATUS, the GPU and
/// compute instance ids in BUS ID, its own memory.
std::string mig_cell(Col c, const MigDevice& m, const Layout& l) {
  switch (c) {
    case Col::kStatus:
      return clip("MIG " + mig_profile(m), 12);
    case Col::kBus: {
      auto id = [](const std::optional<uint32_t>& v) { return v ? std::to_string(*v) : "?"; };
      std::string s = "GI " + id(m.gpu_instance_id) + " CI " + id(m.compute_instance_id);
      return clip(s, l.bus_width);
    }
    case Col::kMemory: {
      if (!m.memory_total_bytes) return dash();
      std::string used = m.memory_used_bytes ? gib(*m.memory_used_bytes) : "?";
      return used + "/" + gib(*m.memory_total_bytes) + "G";
    }
    default:
      return "";
  }
}

void gpu_table(const NodeSnapshot& snap, const TableOptions& opt, const Painter& paint,
               std::ostream& out) {
  Layout l;
  l.cols = {Col::kGpu,  Col::kStatus, Col::kBus,    Col::kName, Col::kMemory, Col::kBusy,
            Col::kTemp, Col::kPower,  Col::kPstate, Col::kPcie, Col::kPm};
  if (!(opt.wide || !same_names(snap)))
    l.cols.erase(std::find(l.cols.begin(), l.cols.end(), Col::kName));
  if (opt.wide) l.name_width = 44;
  bool all_domain0 = true;
  for (const GpuState& g : snap.gpus)
    all_domain0 = all_domain0 && short_bus_id(g.pci_bus_id).rfind("0000:", 0) == 0;
  if (!opt.wide) l = fit_columns(l, static_cast<size_t>(opt.width), all_domain0);
  auto plain = [](const std::string& s) { return s; };
  out << "\n"
      << paint(table_row(
                   l, [](Col c) { return std::string(col_header(c)); }, plain),
               kBold)
      << "\n";
  for (const GpuState& g : snap.gpus) {
    const char* color = g.status == GpuStatus::kOk ? kGreen : kRed;
    out << table_row(
               l, [&](Col c) { return gpu_cell(c, g, l, opt.wide); },
               [&](const std::string& s) { return paint(s, color); })
        << "\n";
    for (const MigDevice& m : g.mig_devices.value_or(std::vector<MigDevice>{}))
      out << table_row(
                 l, [&](Col c) { return mig_cell(c, m, l); }, plain)
          << "\n";
  }
}

std::string owner_words(const ProcessOwner& o) {
  if (o.kind == OwnerKind::kSystemdUnit) return "unit " + o.name;
  if (o.kind == OwnerKind::kKubernetesPod) return "pod " + o.name;
  if (o.kind == OwnerKind::kSlurmJob) return "slurm job " + o.name;
  const std::string kind = owner_kind_name(o.kind);
  if (container_owner(o.kind)) return kind + " " + o.name.substr(0, 12);
  return kind + " " + o.name;
}

/// The OWNER cell as shown (its width is the shown text's).
std::string owner_text(const GpuProcess& p) {
  return p.owner ? for_terminal(owner_words(*p.owner)) : dash();
}

void process_table(const NodeSnapshot& snap, const TableOptions& opt, const Painter& paint,
                   std::ostream& out) {
  bool any = false;
  for (const GpuState& g : snap.gpus) any = any || (g.processes && !g.processes->empty());
  if (!any) return;
  auto user_of = [](const GpuProcess& p) {
    return for_terminal(p.user.value_or(p.uid ? std::to_string(*p.uid) : dash()));
  };
  // USER and OWNER as wide as their longest entry (at most 10 and 24), so
  // the command keeps its room on a narrow terminal.
  size_t user_w = 4, owner_w = 5;
  for (const GpuState& g : snap.gpus)
    for (const GpuProcess& p : g.processes.value_or(std::vector<GpuProcess>{})) {
      user_w = std::max(user_w, std::min<size_t>(user_of(p).size(), 10));
      owner_w = std::max(owner_w, std::min<size_t>(owner_text(p).size(), 24));
    }
  out << "\n"
      << paint(fmt::format("{:>3} {:>8} {:<{}} {:>9}  {:<{}} {}", "GPU", "PID", "USER", user_w,
                           "GPU MEM", "OWNER", owner_w, "PROCESS / COMMAND"),
               kBold)
      << "\n";
  for (const GpuState& g : snap.gpus) {
    if (!g.processes) continue;
    for (const GpuProcess& p : *g.processes) {
      std::string mem = p.used_memory_bytes ? format_bytes(*p.used_memory_bytes) : "n/a";
      std::string owner = opt.wide ? owner_text(p) : clip(owner_text(p), owner_w);
      std::string prefix = fmt::format("{:>3} {:>8} {:<{}} {:>9}  {:<{}} ", g.index, p.pid,
                                       opt.wide ? user_of(p) : clip(user_of(p), user_w), user_w,
                                       mem, owner, owner_w);
      const size_t room = opt.width > static_cast<int>(prefix.size())
                              ? static_cast<size_t>(opt.width) - prefix.size()
                              : 20;
      const bool narrow = !opt.wide && room < 42;
      std::string what;
      if (!p.visible && gpus_from_nvidia_smi(snap.source) && !p.cmdline && !p.name) {
        what = paint(narrow ? "? unnamed in the capture"
                            : "? unnamed in the capture (that node's /proc was not read)",
                     kYellow);
      } else if (!p.visible && !gpus_from_nvidia_smi(snap.source)) {
        what = paint(narrow ? "? other PID namespace" : "? not visible here (other PID namespace)",
                     kYellow);
      } else {
        what = for_terminal(p.cmdline.value_or(p.name ? "[" + *p.name + "]" : dash()));
        if (!opt.wide) what = clip(what, std::max<size_t>(room, 20));
      }
      out << prefix << what << "\n";
    }
  }
}

std::string wrap(const std::string& text, size_t width);

/// One line per server: what it is, where, how much, who owns it, since
/// when; as shown (for_terminal).
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
  const ContainerInfo* c = sv.container ? &*sv.container : nullptr;
  if (sv.supervisor)
    line += fmt::format("; owner process PID {}{}", sv.supervisor->pid,
                        c && c->init_pid == sv.supervisor->pid ? " (the container's PID 1)" : "");
  if (sv.owner_kind && sv.owner_name) {
    const std::string k = owner_kind_name(*sv.owner_kind);
    line +=
        "; " + (*sv.owner_kind == OwnerKind::kSystemdUnit ? "unit " + *sv.owner_name
                : container_owner(*sv.owner_kind)
                    ? k + " " + (c && c->name ? *c->name + " " : "") + sv.owner_name->substr(0, 12)
                    : k + " " + *sv.owner_name);
    if (sv.restart_policy) line += " (" + *sv.restart_policy + ")";
    if (c && c->created_by_unit) line += ", created by " + *c->created_by_unit;
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
  // What could not be read of its identity or its container's record.
  for (const std::string& n : sv.identity_notes) line += "; " + n;
  return for_terminal(line);
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
  for (const std::string& l : lines)
    out << (opt.wide ? "  " + for_terminal(l) + "\n" : wrap(l, opt.width));
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

/// One line per path given, fine or not: free space and inodes (as shown).
std::string disk_line(const DiskUsage& d) {
  if (d.error) return for_terminal(*d.error);
  std::string line = d.available_bytes && d.total_bytes
                         ? format_bytes(*d.available_bytes) + " of " +
                               format_bytes(*d.total_bytes) + " free" +
                               share(*d.available_bytes, *d.total_bytes)
                         : "space unknown";
  line += d.inodes_available && d.inodes_total
              ? fmt::format(", {} of {} inodes free{}", count(*d.inodes_available),
                            count(*d.inodes_total), share(*d.inodes_available, *d.inodes_total))
              : ", no inode limit";
  if (d.same_filesystem_as) line += "; filesystem of " + for_terminal(*d.same_filesystem_as);
  return line;
}

void disks_section(const NodeSnapshot& snap, const TableOptions& opt, const Painter& paint,
                   std::ostream& out) {
  if (snap.disks.empty()) return;
  size_t width = 0;
  for (const DiskUsage& d : snap.disks) width = std::max(width, for_terminal(d.path).size());
  out << "\n" << paint("disks", kBold) << "\n";
  for (const DiskUsage& d : snap.disks) {
    const std::string path = for_terminal(d.path);
    std::string line = fmt::format("  {:<{}}  {}", path, width, disk_line(d));
    out << (opt.wide || line.size() <= static_cast<size_t>(opt.width)
                ? line + "\n"
                : wrap(path + "  " + disk_line(d), opt.width));
  }
}

void pci_summary(const NodeSnapshot& snap, std::ostream& out) {
  if (snap.pci_devices.empty()) {
    out << "PCI bus: no NVIDIA GPU found in "
        << "sysfs\n";
    return;
  }
  std::map<std::string, int> by_driver;
  for (const PciDevice& d : snap.pci_devices)
    by_driver[for_terminal(d.driver.value_or("no driver"))]++;
  out << "PCI bus: " << count_of(snap.pci_devices.size(), "NVIDIA GPU", "NVIDIA GPUs") << ":";
  for (const auto& [driver, n] : by_driver) out << " " << n << " with " << driver;
  out << "\n";
  for (const PciDevice& d : snap.pci_devices) {
    out << "  " << for_terminal(d.bus_id) << "  device "
        << (d.device_id ? fmt::format("0x{:04x}", *d.device_id) : "?") << "  driver "
        << for_terminal(d.driver.value_or("none")) << "\n";
  }
}

void wide_identity(const NodeSnapshot& snap, std::ostream& out) {
  out << "\n";
  for (const GpuState& g : snap.gpus)
    out << fmt::format("{:>3} {}  uuid {}  serial {}\n", g.index,
                       for_terminal(g.name.value_or("-")), for_terminal(g.uuid.value_or("-")),
                       for_terminal(g.serial.value_or("-")));
}

}  // namespace

void verdict_line(const Report& r, const Painter& paint, std::ostream& out) {
  int crit = 0, warn = 0;
  for (const Finding& f : r.findings) {
    crit += f.severity == Severity::kCritical;
    warn += f.severity == Severity::kWarning;
  }
  const Verdict v = report_verdict(r);
  const char* color = v == Verdict::kOk ? kGreen : v == Verdict::kWarning ? kYellow : kRed;
  out << paint(verdict_name(v), color)
      << fmt::format("  {} critical, {}  (exit {})", crit, count_of(warn, "warning", "warnings"),
                     r.exit_code)
      << "\n";
}

void findings_section(const Report& r, const TableOptions& opt, const Painter& paint,
                      std::ostream& out, Severity at_least = Severity::kOk) {
  auto shown = [&](const Finding& f) { return f.severity >= at_least; };
  if (std::none_of(r.findings.begin(), r.findings.end(), shown)) return;
  out << "\n" << paint("findings", kBold) << "\n";
  for (const Finding& f : r.findings) {
    if (!shown(f)) continue;
    std::string sev = fmt::format("{:<9}", severity_name(f.severity));
    std::string text = for_terminal(f.title + "  [" + f.id + "]");
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
    const std::string text = for_terminal(step.text);
    std::string body = opt.wide ? "  " + text + "\n" : wrap(text, opt.width - 3);
    std::string prefix = fmt::format("{:>2}. ", ++n);
    std::istringstream lines(body);
    std::string line;
    bool first = true;
    while (std::getline(lines, line)) {
      out << (first ? prefix : "    ") << line.substr(line.find_first_not_of(' ')) << "\n";
      first = false;
    }
    for (const std::string& raw : step.commands) {
      const std::string c = for_terminal(raw);
      out << (opt.wide ? "      $ " + c + "\n" : shell_wrap(c, static_cast<size_t>(opt.width)));
    }
  }
}

void render_table(const Report& r, const TableOptions& opt, std::ostream& out) {
  const NodeSnapshot& snap = r.snapshot;
  Painter paint(opt.color);
  if (r.could_not_check) {
    // Nothing to check (no NVIDIA GPU at all): one line says so. Notes
    // (info: a clock nothing disciplines) stay in --json; a warning shows.
    // One line whatever its width: pdsh and grep read it whole.
    out << paint(verdict_word(r), kRed) << "  "
        << for_terminal(snap.nvml.error_message.value_or("nothing to check")) << "  (exit "
        << r.exit_code << ")\n";
    findings_section(r, opt, paint, out, Severity::kWarning);
    plan_section(r, opt, paint, out);
    return;
  }
  verdict_line(r, paint, out);
  out << first_screen(r, opt.wide ? std::string::npos : static_cast<size_t>(opt.width), opt.wide,
                      paint);
  // A broken driver's one clear line comes right under the verdict; then
  // what happened.
  if (!snap.nvml.initialized) {
    // One clear statement, wrapped to the terminal (continuations indented).
    std::string text =
        wrap_words("gpu-triage: ", snap.nvml.error_message.value_or("NVML is not usable"),
                   opt.wide ? std::string::npos : static_cast<size_t>(opt.width), 2);
    text.pop_back();
    out << paint(text, kRed) << "\n";
  }
  render_incident_section(snap.incident, opt.wide, opt.width, out);
  if (snap.nvml.initialized) {
    header(snap, opt, paint, out);
    gpu_table(snap, opt, paint, out);
    if (opt.wide) wide_identity(snap, out);
    if (std::string m = opt.wide ? render_topology_matrix(snap, std::string::npos) : ""; !m.empty())
      out << "\n" << m;
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
