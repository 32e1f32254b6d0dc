// Memory errors, the PCIe link and persistence mode (clock limits:
// thermal_limits.cc; the memory-error history: ecc_history.cc).
//
// ECC thresholds follow DCGM's health rules and gpud (landscape.md):
// any volatile uncorrectable error since the driver loaded is critical;
// a pending page retirement (Kepler-Volta) or a pending row remap (Ampere+)
// needs a reset or reboot to take effect; a failed remap, more than 512
// uncorrectable remaps, or 60 retired pages are RMA criteria.
//
// PCIe: an idle GPU lowers its link generation to save power (the GPU in a
// telegraf capture idles at gen 1), so "current < max" means something only
// while the GPU is busy.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "checks/checks.h"
#include "util/plural.h"

namespace gt {
namespace {

constexpr uint32_t kRetiredPagesLimit = 60;
constexpr uint32_t kUncorrectableRemapLimit = 512;
constexpr double kBusyUtilPct = 10.0;

std::string reset_cmd(const GpuState& g) {
  return "sudo nvidia-smi --gpu-reset -i " + std::to_string(g.index) +
         "   # with no process on the GPU; else reboot";
}

void ecc_one(const GpuState& g, std::vector<Finding>& out) {
  if (g.ecc.volatile_uncorrected.value_or(0) > 0) {
    Finding f = gpu_finding("ecc.volatile_uncorrectable", g);
    f.title = fmt::format("{}: {} since the driver loaded", gpu_label(g),
                          count_of(*g.ecc.volatile_uncorrected, "uncorrectable ECC error",
                                   "uncorrectable ECC errors"));
    f.evidence = fmt::format(
        "volatile uncorrected {}, aggregate uncorrected {}", *g.ecc.volatile_uncorrected,
        g.ecc.aggregate_uncorrected ? std::to_string(*g.ecc.aggregate_uncorrected) : "unknown");
    f.action =
        "Data on this GPU may be corrupt: stop its jobs, reset it (or reboot) so the bad "
        "memory is remapped, and rerun what ran there.";
    f.commands = {reset_cmd(g)};
    out.push_back(f);
  }
  const RetiredPages& rp = g.retired_pages;
  uint32_t retired = rp.single_bit.value_or(0) + rp.double_bit.value_or(0);
  if (retired >= kRetiredPagesLimit) {
    Finding f = gpu_finding("ecc.retired_pages_limit", g);
    f.title =
        fmt::format("{}: {} retired pages (limit {})", gpu_label(g), retired, kRetiredPagesLimit);
    f.evidence = fmt::format("single-bit {}, double-bit {}", rp.single_bit.value_or(0),
                             rp.double_bit.value_or(0));
    f.action = "The GPU has reached NVIDIA's retirement limit: drain it and open an RMA.";
    out.push_back(f);
  }
  if (rp.pending.value_or(false)) {
    Finding f = gpu_finding("ecc.retired_pages_pending", g);
    f.title = gpu_label(g) + ": page retirement pending";
    f.evidence = fmt::format("retired single-bit {}, double-bit {}, pending yes",
                             rp.single_bit.value_or(0), rp.double_bit.value_or(0));
    f.action = "Reset the GPU or reboot so the pages are retired.";
    f.commands = {reset_cmd(g)};
    out.push_back(f);
  }
  const RemappedRows& rr = g.remapped_rows;
  if (rr.failure.value_or(false) || rr.uncorrectable.value_or(0) > kUncorrectableRemapLimit) {
    Finding f = gpu_finding("ecc.remap_failure", g);
    f.title = gpu_label(g) + (rr.failure.value_or(false) ? ": row remapping failed"
                                                         : ": too many uncorrectable row remaps");
    f.evidence = fmt::format("remapped rows: uncorrectable {}, correctable {}, failure {}",
                             rr.uncorrectable.value_or(0), rr.correctable.value_or(0),
                             rr.failure.value_or(false) ? "yes" : "no");
    f.action =
        "The GPU has run out of spare rows: it qualifies for RMA. Drain it, keep it out of "
        "service, and contact the vendor with `nvidia-bug-report.sh`.";
    f.commands = {"sudo nvidia-bug-report.sh"};
    out.push_back(f);
  } else if (rr.pending.value_or(false)) {
    Finding f = gpu_finding("ecc.remap_pending", g);
    f.title = gpu_label(g) + ": row remapping pending, needs a GPU reset";
    f.evidence = fmt::format("remapped rows: uncorrectable {}, correctable {}, pending yes",
                             rr.uncorrectable.value_or(0), rr.correctable.value_or(0));
    f.action = "Reset the GPU (or reboot) when it is idle so the remap takes effect.";
    f.commands = {reset_cmd(g)};
    out.push_back(f);
  }
}

void pcie_one(const GpuState& g, std::vector<Finding>& out) {
  const PcieLink& l = g.pcie;
  if (!l.current_gen || !l.max_gen || !l.current_width || !l.max_width) return;
  bool low = *l.current_gen < *l.max_gen || *l.current_width < *l.max_width;
  if (!low) return;
  bool busy = g.utilization_gpu_pct && g.utilization_gpu_pct->mean >= kBusyUtilPct;
  std::string link = fmt::format("gen {} x{} of gen {} x{}", *l.current_gen, *l.current_width,
                                 *l.max_gen, *l.max_width);
  if (busy) {
    Finding f = gpu_finding("pcie.link_downgraded", g);
    f.title = gpu_label(g) + ": PCIe link at " + link + " while busy";
    f.evidence =
        fmt::format("utilization mean {:.0f}%; link {}", g.utilization_gpu_pct->mean, link);
    f.action =
        "Host-device transfers are slower. Reseat the GPU or riser at the next "
        "maintenance; check the slot's BIOS setting and the kernel log for AER errors.";
    f.commands = {"sudo lspci -vvv -s " + g.pci_bus_id.value_or("?").substr(4) +
                  " | grep -E 'LnkCap|LnkSta'"};
    out.push_back(f);
  } else if (*l.current_width == *l.max_width) {
    Finding f = gpu_finding("pcie.link_idle_low", g);
    f.title = gpu_label(g) + ": PCIe link at " + link + " while idle (normal power saving)";
    f.evidence = "an idle GPU lowers its link speed; only a busy GPU's link is judged";
    out.push_back(f);
  }
}

}  // namespace

void check_ecc(const NodeSnapshot& s, std::vector<Finding>& out) {
  for (const GpuState& g : s.gpus) ecc_one(g, out);
}

namespace {

/// A GPU that drives a display: a desktop session's compositor holds it as
/// a graphics client (a bare Xorg may be a headless render server, as on a
/// Tesla T4 with its display disabled: that is not enough). The session
/// keeps the driver initialised, so persistence mode buys nothing there.
bool drives_display(const GpuState& g) {
  if (!g.processes) return false;
  static const std::set<std::string> kCompositors = {
      "gnome-shell", "kwin_wayland", "kwin_x11", "Xwayland",     "mutter", "plasmashell",
      "sway",        "weston",       "cinnamon", "xfwm4",        "marco",  "muffin",
      "compiz",      "Hyprland",     "labwc",    "gnome-session"};
  return std::any_of(g.processes->begin(), g.processes->end(), [](const GpuProcess& p) {
    if (p.type.find("graphics") == std::string::npos) return false;
    std::string name = p.name.value_or(p.cmdline.value_or(""));
    name = name.substr(0, name.find(' '));
    name = name.substr(name.rfind('/') + 1);
    return kCompositors.count(name) > 0;
  });
}

}  // namespace

void check_pcie_and_persistence(const NodeSnapshot& s, std::vector<Finding>& out) {
  std::vector<uint32_t> off, display;
  for (const GpuState& g : s.gpus) {
    pcie_one(g, out);
    if (g.persistence_mode && !*g.persistence_mode)
      (drives_display(g) ? display : off).push_back(g.index);
  }
  if (off.empty() && display.empty()) return;
  Finding f = node_finding("persistence.off");
  std::vector<uint32_t> all = off;
  all.insert(all.end(), display.begin(), display.end());
  std::sort(all.begin(), all.end());
  f.title = fmt::format("Persistence mode is off on {}", count_of(all.size(), "GPU", "GPUs"));
  f.evidence = plural(all.size(), "GPU ", "GPUs ") + fmt::format("{}", fmt::join(all, ", "));
  if (off.empty()) {
    // Only display GPUs: a note, not a warning.
    f.severity = Severity::kInfo;
    f.title += " driving a display (a graphics client holds it, which keeps the driver up)";
    f.action =
        "Nothing to do for a display GPU; enable the persistence daemon if it also "
        "runs compute jobs that start and stop often.";
  } else {
    f.action =
        "Without it the driver tears the GPUs down when the last client exits and "
        "re-initialises them on every start (seconds each, and ECC/state lost). Run the "
        "persistence daemon.";
    if (!display.empty())
      f.evidence +=
          fmt::format("; {} {} a display", plural(display.size(), "GPU", "GPUs"),
                      fmt::join(display, ", "), plural(display.size(), "drives", "drive"));
  }
  f.commands = {"sudo systemctl enable --now nvidia-persistenced"};
  out.push_back(f);
}

}  // namespace gt
