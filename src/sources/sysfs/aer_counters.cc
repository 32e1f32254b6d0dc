#include "sources/sysfs/aer_counters.h"

#include <algorithm>

#include "sources/sysfs/pci_devices.h"
#include "sources/sysfs/pci_path.h"
#include "util/numeric.h"

namespace gt {
namespace {

/// A decimal count filling `s`; nullopt for anything else (a sign, a
/// space, a count past 2^64).
std::optional<uint64_t> aer_count(std::string_view s) { return parse_int<uint64_t>(s); }

bool aer_name_printable(std::string_view n) {
  if (n.empty() || n.size() > kMaxAerNameBytes || n.front() == ' ' || n.back() == ' ') return false;
  return std::all_of(n.begin(), n.end(),
                     [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f; });
}

/// "NAME COUNT" -> (NAME, COUNT): the count is the last word.
std::optional<AerErrorCount> aer_line(std::string_view line) {
  const size_t sp = line.rfind(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  std::optional<uint64_t> n = aer_count(line.substr(sp + 1));
  if (!n || !aer_name_printable(line.substr(0, sp))) return std::nullopt;
  return AerErrorCount{std::string(line.substr(0, sp)), *n};
}

std::optional<uint64_t> read_aer_total(const FsRoot& root, const std::string& path) {
  std::optional<std::string> text = root.read_optional_trimmed(path);
  if (!text) return std::nullopt;
  return aer_count(*text);
}

std::optional<AerCounter> read_aer_file(const FsRoot& root, const std::string& path,
                                        std::string_view key) {
  Result<std::string> text = root.read(path);
  if (!text || text->size() > kMaxAerFileBytes) return std::nullopt;
  return parse_aer_counter(*text, key);
}

void put_aer_window_start(AerCounters& c,
                          const std::vector<std::pair<std::string, AerTotals>>& start,
                          const std::string& bus_id) {
  for (const auto& [bus, totals] : start)
    if (bus == bus_id) c.at_window_start = totals;
}

}  // namespace

std::optional<AerCounter> parse_aer_counter(std::string_view text, std::string_view total_key) {
  if (text.size() > kMaxAerFileBytes || !text.ends_with('\n')) return std::nullopt;
  text.remove_suffix(1);
  AerCounter out;
  const std::string total = "TOTAL_" + std::string(total_key);
  size_t lines = 0;
  while (true) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    const bool last = nl == std::string_view::npos;
    std::optional<AerErrorCount> e = aer_line(line);
    if (!e || ++lines > kMaxAerLines) return std::nullopt;
    if (last) {
      if (e->name != total) return std::nullopt;
      out.total = e->count;
      return out;
    }
    if (e->name.starts_with("TOTAL_")) return std::nullopt;  // only the last line totals
    if (e->count > 0 && out.errors.size() < kMaxAerErrorsKept) out.errors.push_back(*e);
    text.remove_prefix(nl + 1);
  }
}

AerCounters read_aer_counters(const FsRoot& root, const std::string& dir) {
  AerCounters c;
  c.correctable = read_aer_file(root, dir + "/aer_dev_correctable", "ERR_COR");
  c.nonfatal = read_aer_file(root, dir + "/aer_dev_nonfatal", "ERR_NONFATAL");
  c.fatal = read_aer_file(root, dir + "/aer_dev_fatal", "ERR_FATAL");
  c.rootport_correctable = read_aer_total(root, dir + "/aer_rootport_total_err_cor");
  c.rootport_nonfatal = read_aer_total(root, dir + "/aer_rootport_total_err_nonfatal");
  c.rootport_fatal = read_aer_total(root, dir + "/aer_rootport_total_err_fatal");
  return c;
}

void read_pcie_aer(const FsRoot& root, NodeSnapshot& s) {
  for (PciDevice& d : s.pci_devices) {
    d.aer = read_aer_counters(root, "/sys/bus/pci/devices/" + d.bus_id);
    std::optional<std::vector<PciBridgeDir>> up = read_upstream_bridges(root, d.bus_id);
    if (!up) continue;
    d.upstream_bridges.emplace();
    for (size_t i = 0; i < up->size(); ++i) {
      const PciBridgeDir& b = (*up)[i];
      d.upstream_bridges->push_back(b.bus_id);
      if (std::any_of(s.pcie_bridges.begin(), s.pcie_bridges.end(),
                      [&](const PcieBridge& x) { return x.bus_id == b.bus_id; }))
        continue;
      s.pcie_bridges.push_back({b.bus_id, i == 0, read_aer_counters(root, b.dir)});
    }
  }
  std::sort(s.pcie_bridges.begin(), s.pcie_bridges.end(),
            [](const PcieBridge& a, const PcieBridge& b) { return a.bus_id < b.bus_id; });
}

std::vector<std::pair<std::string, AerTotals>> read_aer_window_start(const FsRoot& root) {
  NodeSnapshot now;
  Result<std::vector<PciDevice>> pci = read_nvidia_pci_devices(root);
  if (!pci) return {};
  now.pci_devices = std::move(*pci);
  read_pcie_aer(root, now);
  std::vector<std::pair<std::string, AerTotals>> out;
  for (const PciDevice& d : now.pci_devices)
    if (aer_read(d.aer)) out.emplace_back(d.bus_id, aer_totals(d.aer));
  for (const PcieBridge& b : now.pcie_bridges)
    if (aer_read(b.aer)) out.emplace_back(b.bus_id, aer_totals(b.aer));
  return out;
}

void set_aer_window_start(NodeSnapshot& s,
                          const std::vector<std::pair<std::string, AerTotals>>& start) {
  for (PciDevice& d : s.pci_devices) put_aer_window_start(d.aer, start, d.bus_id);
  for (PcieBridge& b : s.pcie_bridges) put_aer_window_start(b.aer, start, b.bus_id);
}

}  // namespace gt
