// PCIe health from the kernel's AER counters (issue 38 item 3), judged as
// NVML's replay counters are: an error the link could not correct is a
// finding; correctable errors are one only while they grow fast.
//
// The kernel counts an error at the function that detected it, which is
// often the link partner of the one at fault (the ABI document: a failing
// endpoint's errors may show only at its root port), so every bridge on the
// path from a GPU to its root port is read and judged too, naming the GPUs
// below it. A root port's aer_rootport_total_err_* counts the messages it
// received from its whole hierarchy: it is used only where no function
// read below it counted the error itself (the sender is then another
// device, or its counters were not readable), so one error is one finding.
//
// Severity (Documentation/PCI/pcieaer-howto.rst): a fatal error makes the
// link unreliable and the kernel's recovery resets it, so what was in
// flight to the GPUs below is lost: critical. A non-fatal one lost a
// transaction on a link that still works: warning. A correctable one was
// fixed by the link's own retry; only a count that grows faster than
// kAerCorrectablePerMinute (DCGM's PCIe replay-rate limit, "the maximum
// recommended by RM") over the sample window or since the last run, by at
// least kAerCorrectableMinNew, is a warning: a marginal link (seating,
// riser, cable, slot) before it fails.
#include <fmt/format.h>

#include <algorithm>

#include "checks/checks.h"
#include "util/time_format.h"

namespace gt {
namespace {

constexpr double kAerCorrectablePerMinute = 8;
constexpr uint64_t kAerCorrectableMinNew = 10;

enum class AerClass { kCorrectable, kNonFatal, kFatal };

const std::optional<AerCounter>& aer_counter_of(const AerCounters& a, AerClass c) {
  return c == AerClass::kFatal ? a.fatal : c == AerClass::kNonFatal ? a.nonfatal : a.correctable;
}

std::optional<uint64_t> aer_own_total(const AerCounters& a, AerClass c) {
  const std::optional<AerCounter>& k = aer_counter_of(a, c);
  return k ? std::optional<uint64_t>(k->total) : std::nullopt;
}

std::optional<uint64_t> aer_rootport_of(const AerCounters& a, AerClass c) {
  return c == AerClass::kFatal      ? a.rootport_fatal
         : c == AerClass::kNonFatal ? a.rootport_nonfatal
                                    : a.rootport_correctable;
}

std::optional<uint64_t> aer_total_in(const AerTotals& t, AerClass c) {
  return c == AerClass::kFatal ? t.fatal : c == AerClass::kNonFatal ? t.nonfatal : t.correctable;
}

const char* aer_file_of(AerClass c) {
  return c == AerClass::kFatal      ? "aer_dev_fatal"
         : c == AerClass::kNonFatal ? "aer_dev_nonfatal"
                                    : "aer_dev_correctable";
}

const char* aer_total_line_of(AerClass c) {
  return c == AerClass::kFatal      ? "TOTAL_ERR_FATAL"
         : c == AerClass::kNonFatal ? "TOTAL_ERR_NONFATAL"
                                    : "TOTAL_ERR_COR";
}

/// A GPU or a bridge whose AER counters were read, and the GPUs at or
/// below it (bus ids, in the snapshot's order).
struct AerSite {
  std::string bus_id;
  const AerCounters* aer = nullptr;
  const PcieBridge* bridge = nullptr;  ///< null: the GPU itself
  std::vector<std::string> gpus;
};

std::vector<AerSite> aer_sites(const NodeSnapshot& s) {
  std::vector<AerSite> out;
  for (const PciDevice& d : s.pci_devices)
    if (aer_read(d.aer)) out.push_back({d.bus_id, &d.aer, nullptr, {d.bus_id}});
  for (const PcieBridge& b : s.pcie_bridges) {
    if (!aer_read(b.aer)) continue;
    AerSite site{b.bus_id, &b.aer, &b, {}};
    for (const PciDevice& d : s.pci_devices)
      if (d.upstream_bridges &&
          std::count(d.upstream_bridges->begin(), d.upstream_bridges->end(), b.bus_id) > 0)
        site.gpus.push_back(d.bus_id);
    out.push_back(site);
  }
  return out;
}

const AerCounters* aer_counters_at(const NodeSnapshot& s, const std::string& bus) {
  for (const PcieBridge& b : s.pcie_bridges)
    if (b.bus_id == bus) return &b.aer;
  return nullptr;
}

/// Whether a GPU or bridge below the bridge `site` counted errors of `c`
/// itself.
bool aer_counted_below(const NodeSnapshot& s, const AerSite& site, AerClass c) {
  for (const PciDevice& d : s.pci_devices) {
    if (!d.upstream_bridges) continue;
    const std::vector<std::string>& up = *d.upstream_bridges;
    auto at = std::find(up.begin(), up.end(), site.bus_id);
    if (at == up.end()) continue;
    if (aer_own_total(d.aer, c).value_or(0) > 0) return true;
    for (auto b = at + 1; b != up.end(); ++b)
      if (const AerCounters* a = aer_counters_at(s, *b); a && aer_own_total(*a, c).value_or(0) > 0)
        return true;
  }
  return false;
}

std::string aer_gpu_name(const NodeSnapshot& s, const std::string& bus) {
  if (const GpuState* g = gpu_by_bus_id(s, bus)) return gpu_label(*g);
  return "the GPU at " + bus;
}

std::string aer_gpus_named(const NodeSnapshot& s, const std::vector<std::string>& buses) {
  std::string out;
  for (size_t i = 0; i < buses.size(); ++i) {
    if (i > 0) out += i + 1 == buses.size() ? " and " : ", ";
    out += aer_gpu_name(s, buses[i]);
  }
  return out;
}

/// "GPU 2 (0000:3a:00.0)", "root port 0000:15:01.0 above GPU 2 (...) and
/// GPU 3 (...)", "PCIe bridge 0000:17:00.0 above ...".
std::string aer_site_label(const NodeSnapshot& s, const AerSite& site) {
  if (!site.bridge) return aer_gpu_name(s, site.bus_id);
  std::string out = (site.bridge->root_port ? "root port " : "PCIe bridge ") + site.bus_id;
  if (!site.gpus.empty()) out += " above " + aer_gpus_named(s, site.gpus);
  return out;
}

std::string aer_capitalized(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

Finding aer_site_finding(const NodeSnapshot& s, const char* id, const AerSite& site) {
  if (!site.bridge)
    if (const GpuState* g = gpu_by_bus_id(s, site.bus_id)) return gpu_finding(id, *g);
  Finding f = node_finding(id);
  f.subject.kind = site.bridge ? "pcie-bridge" : "gpu";
  f.subject.pci_bus_id = site.bus_id;
  return f;
}

/// New errors of one class over an interval, in words ("3 new since the
/// last run at 2026-01-01 00:00 UTC").
struct AerGrowth {
  uint64_t count = 0;
  double over_s = 0;
  std::string words;
};

std::optional<AerGrowth> aer_window_growth(const NodeSnapshot& s, const AerCounters& a,
                                           AerClass c) {
  if (!a.at_window_start || s.sample_window_s <= 0) return std::nullopt;
  std::optional<uint64_t> start = aer_total_in(*a.at_window_start, c), now = aer_own_total(a, c);
  // A count that went down was reset in between: no growth is claimed.
  if (!start || !now || *now < *start) return std::nullopt;
  return AerGrowth{
      *now - *start, s.sample_window_s,
      fmt::format("{} new during the {:.1f} s sample window", *now - *start, s.sample_window_s)};
}

const AerRecord* aer_last_run_record(const NodeSnapshot& s, const std::string& bus) {
  if (!s.history || !s.history->boot_id) return nullptr;
  for (const AerRecord& r : s.history->aer)
    if (r.bus_id == bus) return &r;
  return nullptr;
}

/// Since the record's last run. The kernel's counters start at zero with
/// each boot and each re-enumeration: after a reboot every count is new
/// (since the boot), and a count that went down was reset (every count is
/// new since the reset): never a negative delta.
std::optional<AerGrowth> aer_run_growth(const NodeSnapshot& s, const std::string& bus,
                                        const AerCounters& a, AerClass c) {
  const AerRecord* r = aer_last_run_record(s, bus);
  if (!r) return std::nullopt;
  std::optional<uint64_t> was = aer_total_in(r->totals, c), now = aer_own_total(a, c);
  if (!was || !now) return std::nullopt;
  const double now_s = static_cast<double>(s.collected_at_unix_ms) / 1000;
  const std::string at = format_utc(r->read_unix_s, "%Y-%m-%d %H:%M UTC");
  if (r->boot_id != *s.history->boot_id) {
    std::optional<int64_t> boot = s.incident ? s.incident->boot_time_unix_s : std::nullopt;
    const int64_t since = boot && *boot >= r->read_unix_s ? *boot : r->read_unix_s;
    return AerGrowth{*now, now_s - static_cast<double>(since),
                     fmt::format("{} since the last run at {} (rebooted since: the counters "
                                 "started again at zero)",
                                 *now, at)};
  }
  const double over = now_s - static_cast<double>(r->read_unix_s);
  if (*now < *was)
    return AerGrowth{
        *now, over,
        fmt::format("{} new since the last run at {} (the count went down from {}: "
                    "the device was reset or re-enumerated and counts again from zero)",
                    *now, at, *was)};
  return AerGrowth{*now - *was, over,
                   fmt::format("{} new since the last run at {}", *now - *was, at)};
}

/// "TOTAL_ERR_FATAL 1 in aer_dev_fatal (SDES 1)".
std::string aer_counter_words(const AerCounter& k, AerClass c) {
  std::string out = fmt::format("{} {} in {}", aer_total_line_of(c), k.total, aer_file_of(c));
  std::vector<std::string> named;
  for (const AerErrorCount& e : k.errors) named.push_back(fmt::format("{} {}", e.name, e.count));
  if (!named.empty()) out += fmt::format(" ({})", fmt::join(named, ", "));
  return out;
}

std::string aer_growth_words(const NodeSnapshot& s, const AerSite& site, AerClass c) {
  std::vector<std::string> parts;
  if (std::optional<AerGrowth> w = aer_window_growth(s, *site.aer, c)) parts.push_back(w->words);
  if (std::optional<AerGrowth> r = aer_run_growth(s, site.bus_id, *site.aer, c))
    parts.push_back(r->words);
  return parts.empty() ? "" : "; " + fmt::format("{}", fmt::join(parts, "; "));
}

std::vector<std::string> aer_commands(const AerSite& site) {
  return {"journalctl -k -b --no-pager | grep -E 'AER|PCIe Bus Error' | tail -50",
          "sudo lspci -vvv -s " + site.bus_id};
}

std::string aer_gpus_below(const NodeSnapshot& s, const AerSite& site) {
  return site.gpus.empty() ? "the devices below it" : aer_gpus_named(s, site.gpus);
}

void aer_uncorrectable(const NodeSnapshot& s, const AerSite& site, AerClass c,
                       std::vector<Finding>& out) {
  const bool fatal = c == AerClass::kFatal;
  std::string counted;
  uint64_t n = 0;
  if (const std::optional<AerCounter>& k = aer_counter_of(*site.aer, c); k && k->total > 0) {
    n = k->total;
    counted = aer_counter_words(*k, c) + aer_growth_words(s, site, c);
  } else if (std::optional<uint64_t> rp = aer_rootport_of(*site.aer, c);
             site.bridge && rp.value_or(0) > 0 && !aer_counted_below(s, site, c)) {
    n = *rp;
    counted = fmt::format(
        "aer_rootport_total_err_{} {}: messages the root port received from its hierarchy; no "
        "GPU or bridge read below it counted them itself (another device sent them, or its "
        "counters were not readable)",
        fatal ? "fatal" : "nonfatal", n);
  } else {
    return;
  }
  Finding f = aer_site_finding(s, fatal ? "pcie.aer_fatal" : "pcie.aer_nonfatal", site);
  const std::string what = fatal ? "fatal" : "non-fatal uncorrectable";
  f.title =
      aer_capitalized(fmt::format("{}: {} {} PCIe {} (AER) since boot", aer_site_label(s, site), n,
                                  what, n == 1 ? "error" : "errors"));
  f.evidence = counted;
  const std::string gpus = site.bridge ? aer_gpus_below(s, site) : aer_gpu_name(s, site.bus_id);
  f.action =
      fatal ? fmt::format(
                  "A fatal error means the link could not be trusted: the kernel's AER recovery "
                  "reset it, and what was in flight to {} was lost (a job running there most "
                  "likely failed; a GPU may have fallen off the bus). Drain {}, read the kernel "
                  "log's AER lines (which device reported which error), then check the seating, "
                  "the riser or cable and the slot of the link; reseat, and replace the part if it "
                  "recurs. The counts clear only when the node reboots.",
                  gpus, gpus)
            : fmt::format(
                  "A non-fatal uncorrectable error lost a transaction on a link that still works "
                  "(the driver of {} had to recover it). Read the kernel log's AER lines; if the "
                  "count grows, check the seating, the riser or cable and the slot at the next "
                  "maintenance.",
                  gpus);
  f.commands = aer_commands(site);
  out.push_back(f);
}

bool aer_growing_fast(const AerGrowth& g) {
  if (g.over_s < 0 || g.count < kAerCorrectableMinNew) return false;
  return static_cast<double>(g.count) * 60 / std::max(g.over_s, 1.0) > kAerCorrectablePerMinute;
}

void correctable_growing(const NodeSnapshot& s, const AerSite& site, std::vector<Finding>& out) {
  const std::optional<AerCounter>& k = site.aer->correctable;
  if (!k) return;
  std::optional<AerGrowth> w = aer_window_growth(s, *site.aer, AerClass::kCorrectable);
  std::optional<AerGrowth> r = aer_run_growth(s, site.bus_id, *site.aer, AerClass::kCorrectable);
  std::optional<AerGrowth> lead;
  if (w && aer_growing_fast(*w))
    lead = w;
  else if (r && aer_growing_fast(*r))
    lead = r;
  if (!lead) return;
  Finding f = aer_site_finding(s, "pcie.aer_correctable_growing", site);
  f.title = aer_capitalized(fmt::format(
      "{}: PCIe correctable errors (AER) growing: {} ({:.0f} a minute)", aer_site_label(s, site),
      lead->words, static_cast<double>(lead->count) * 60 / std::max(lead->over_s, 1.0)));
  f.evidence = aer_counter_words(*k, AerClass::kCorrectable) +
               aer_growth_words(s, site, AerClass::kCorrectable) +
               fmt::format(
                   "; judged above {:.0f} a minute (DCGM's PCIe replay-rate limit) with at "
                   "least {} new",
                   kAerCorrectablePerMinute, kAerCorrectableMinNew);
  f.action = fmt::format(
      "The link retried these itself (no data lost), but each retry costs bandwidth and a link "
      "that keeps needing them is marginal: it tends to fail with uncorrectable errors or train "
      "down. At the next maintenance check the seating, the riser or cable and the slot of {}; "
      "watch whether the count keeps growing.",
      site.bridge ? "the link below " + site.bus_id : aer_gpu_name(s, site.bus_id));
  f.commands = aer_commands(site);
  out.push_back(f);
}

}  // namespace

void check_pcie_aer(const NodeSnapshot& s, std::vector<Finding>& out) {
  for (const AerSite& site : aer_sites(s)) {
    aer_uncorrectable(s, site, AerClass::kFatal, out);
    aer_uncorrectable(s, site, AerClass::kNonFatal, out);
    correctable_growing(s, site, out);
  }
}

}  // namespace gt
