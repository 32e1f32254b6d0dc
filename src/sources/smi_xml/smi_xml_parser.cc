// nvidia-smi -q -x: one <nvidia_smi_log> with driver_version, cuda_version,
// attached_gpus and one <gpu id="bus"> per GPU. Quirks met in real captures
// (shared/fixtures/real/nvidia-smi-xml/SOURCES.md):
// - The DOCTYPE names nvsmi_device_v9.dtd .. v13.dtd, or is missing.
// - Unknown values are "N/A", "[N/A]", "[Not Supported]", "Not Found", or
//   "Requested functionality has been deprecated"; errors are bracketed
//   words ("[Unknown Error]"). Elements vanish between versions and trimmed
//   files stop early, so every lookup may miss.
// - Values carry units: "23028 MiB", "25.58 W", "0 %", "17 C", "16x".
// - Renamed elements: clocks_throttle_reasons/clocks_throttle_reason_* (up to
//   R530) vs clocks_event_reasons/clocks_event_reason_* (R535+); power in
//   power_readings/{power_draw, enforced_power_limit} (up to R530) vs
//   gpu_power_readings/{power_draw | average_power_draw + instant_power_draw,
//   current_power_limit} (R535+), with module_power_readings apart.
// - ECC counts are volatile|aggregate/{single_bit,double_bit}/total up to
//   Volta and sram_*/dram_* (correctable, uncorrectable or
//   uncorrectable_parity + uncorrectable_secded) from Turing on.
// - Windows WDDM and vGPU guests report process memory as N/A; a vGPU guest
//   prints its temperature as "0 C", which means "not available".
// - A damaged or hostile file can say "1e30 MiB", "inf W", "nan C": every
//   number is checked against a plausible bound (below) before it is
//   converted, and one outside is unknown with an error, never 0.
#include "sources/smi_xml/smi_xml_parser.h"

#include <charconv>
#include <pugixml.hpp>
#include <regex>

#include "sources/smi_xml/smi_timestamp.h"
#include "sources/smi_xml/smi_xml_health.h"
#include "sources/smi_xml/smi_xml_reader.h"
#include "util/numeric.h"

namespace gt {
namespace {

// Bounds of the values only this file reads (the shared ones are in
// smi_xml_reader.h).
constexpr double kMaxPowerW = 100000;  // 100 kW; a GPU module draws under 2 kW
constexpr double kMaxPercent = 100;
constexpr double kMaxFanPercent = 1000;  // nvml.h: fan speed "may exceed 100%"
constexpr double kMaxPcieGen = 32, kMaxPcieWidth = 64;

SampleStats one_sample(double v) { return SampleStats{v, v, v, 1}; }

void read_identity(GpuReader& r, GpuState& g) {
  g.name = r.text("product_name");
  g.uuid = r.text("uuid");
  g.serial = r.text("serial");
  g.vbios_version = r.text("vbios_version");
  g.board_part_number = r.text("board_part_number");
  g.pci_bus_id = r.text("pci/pci_bus_id");
  if (!g.pci_bus_id) {
    std::string id = r.node().attribute("id").value();
    if (!id.empty()) g.pci_bus_id = id;
  }
  if (std::optional<std::string> d = r.text("pci/pci_device_id")) {
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(d->data(), d->data() + d->size(), v, 16);
    if (ec == std::errc() && p == d->data() + d->size()) g.pci_device_id = v;
  }
}

void read_memory_and_utilization(GpuReader& r, GpuState& g) {
  g.memory_total_bytes = r.mib("fb_memory_usage/total");
  g.memory_reserved_bytes = r.mib("fb_memory_usage/reserved");
  g.memory_used_bytes = r.mib("fb_memory_usage/used");
  g.memory_free_bytes = r.mib("fb_memory_usage/free");
  if (std::optional<double> u = r.number("utilization/gpu_util", 0, kMaxPercent))
    g.utilization_gpu_pct = one_sample(*u);
  if (std::optional<double> u = r.number("utilization/memory_util", 0, kMaxPercent))
    g.utilization_memory_pct = one_sample(*u);
}

void read_thermals_and_power(GpuReader& r, GpuState& g) {
  std::optional<double> t =
      r.number("temperature/gpu_temp", kSmiMinTemperatureC, kSmiMaxTemperatureC);
  bool vgpu = r.text("gpu_virtualization_mode/virtualization_mode") == "VGPU";
  if (t && !(vgpu && *t == 0)) g.temperature_c = checked_cast<int32_t>(*t);
  // NVML's power usage is the 1 s average on Ampere+, nvidia-smi's "average".
  g.power_draw_w = r.first_number(
      {"power_readings/power_draw", "gpu_power_readings/power_draw",
       "gpu_power_readings/average_power_draw", "gpu_power_readings/instant_power_draw"},
      0, kMaxPowerW);
  g.power_limit_w =
      r.first_number({"power_readings/enforced_power_limit",
                      "gpu_power_readings/current_power_limit", "power_readings/power_limit"},
                     0, kMaxPowerW);
  if (std::optional<std::string> p = r.text("performance_state"); p && p->starts_with("P")) {
    std::optional<uint32_t> v = parse_int<uint32_t>(std::string_view(*p).substr(1));
    if (v && *v < 16) g.pstate = *v;
  }
  g.fan_speed_pct = r.u32("fan_speed", kMaxFanPercent);
}

void read_modes(GpuReader& r, GpuState& g) {
  g.persistence_mode = r.flag("persistence_mode");
  g.compute_mode = r.text("compute_mode");
  g.mig_mode_current = r.flag("mig_mode/current_mig");
  g.mig_mode_pending = r.flag("mig_mode/pending_mig");
  g.ecc_mode_current = r.flag("ecc_mode/current_ecc");
  g.ecc_mode_pending = r.flag("ecc_mode/pending_ecc");
}

/// Sum of the counts that are known; null when none is.
std::optional<uint64_t> sum_known(GpuReader& r, const std::string& base,
                                  std::initializer_list<const char*> leaves) {
  std::optional<uint64_t> total;
  for (const char* leaf : leaves) {
    std::string path = base + "/" + leaf;
    if (std::optional<uint64_t> v = r.count(path.c_str())) total = total.value_or(0) + *v;
  }
  return total;
}

/// Corrected and uncorrected counts of "volatile" or "aggregate".
std::pair<std::optional<uint64_t>, std::optional<uint64_t>> ecc_counts(GpuReader& r,
                                                                       const std::string& kind) {
  const std::string base = "ecc_errors/" + kind;
  if (r.node().first_element_by_path((base + "/single_bit").c_str())) {
    return {r.count((base + "/single_bit/total").c_str()),
            r.count((base + "/double_bit/total").c_str())};
  }
  return {sum_known(r, base, {"sram_correctable", "dram_correctable"}),
          sum_known(r, base,
                    {"sram_uncorrectable", "sram_uncorrectable_parity", "sram_uncorrectable_secded",
                     "dram_uncorrectable"})};
}

void read_ecc_and_rows(GpuReader& r, GpuState& g) {
  std::tie(g.ecc.volatile_corrected, g.ecc.volatile_uncorrected) = ecc_counts(r, "volatile");
  std::tie(g.ecc.aggregate_corrected, g.ecc.aggregate_uncorrected) = ecc_counts(r, "aggregate");
  g.retired_pages.single_bit = r.u32("retired_pages/multiple_single_bit_retirement/retired_count");
  g.retired_pages.double_bit = r.u32("retired_pages/double_bit_retirement/retired_count");
  g.retired_pages.pending = r.flag("retired_pages/pending_retirement");
  if (!g.retired_pages.pending) g.retired_pages.pending = r.flag("retired_pages/pending_blacklist");
  g.remapped_rows.correctable = r.u32("remapped_rows/remapped_row_corr");
  g.remapped_rows.uncorrectable = r.u32("remapped_rows/remapped_row_unc");
  g.remapped_rows.pending = r.flag("remapped_rows/remapped_row_pending");
  g.remapped_rows.failure = r.flag("remapped_rows/remapped_row_failure");
}

void read_pcie(GpuReader& r, GpuState& g) {
  const std::string l = "pci/pci_gpu_link_info/";
  g.pcie.current_gen = r.u32((l + "pcie_gen/current_link_gen").c_str(), kMaxPcieGen);
  g.pcie.max_gen = r.u32((l + "pcie_gen/max_link_gen").c_str(), kMaxPcieGen);
  g.pcie.device_max_gen = r.u32((l + "pcie_gen/max_device_link_gen").c_str(), kMaxPcieGen);
  g.pcie.current_width = r.u32((l + "link_widths/current_link_width").c_str(), kMaxPcieWidth);
  g.pcie.max_width = r.u32((l + "link_widths/max_link_width").c_str(), kMaxPcieWidth);
  g.pcie.replay_counter = r.u32("pci/replay_counter");
}

/// nvml.h's clocks event reason bits by nvidia-smi's element suffix.
struct ReasonBit {
  const char* name;
  uint64_t bit;
};
constexpr ReasonBit kReasonBits[] = {
    {"gpu_idle", 0x1},
    {"applications_clocks_setting", 0x2},
    {"sw_power_cap", 0x4},
    {"hw_slowdown", 0x8},
    {"sync_boost", 0x10},
    {"sw_thermal_slowdown", 0x20},
    {"hw_thermal_slowdown", 0x40},
    {"hw_power_brake_slowdown", 0x80},
    {"display_clocks_setting", 0x100},
};

/// Active and supported masks from clocks_event_reasons (R535+) or
/// clocks_throttle_reasons (before); a reason reading N/A is unsupported.
void read_clock_reasons(GpuReader& r, GpuState& g) {
  for (const char* group : {"clocks_event_reasons", "clocks_throttle_reasons"}) {
    if (!r.node().child(group)) continue;
    const std::string prefix =
        std::string(group) + "/" +
        (group[7] == 'e' ? "clocks_event_reason_" : "clocks_throttle_reason_");
    uint64_t active = 0, supported = 0;
    for (const ReasonBit& b : kReasonBits) {
      std::optional<bool> on = r.flag((prefix + b.name).c_str());
      if (!on) continue;
      supported |= b.bit;
      if (*on) active |= b.bit;
    }
    if (supported == 0) return;
    g.clock_event_reasons = active;
    g.clock_event_reasons_supported = supported;
    return;
  }
}

std::string process_type(const std::string& t) {
  if (t == "C") return "compute";
  if (t == "G") return "graphics";
  if (t == "C+G") return "compute+graphics";
  return t;
}

/// <processes> present: the list (maybe empty); absent (trimmed): null.
void read_processes(GpuReader& r, GpuState& g) {
  pugi::xml_node procs = r.node().child("processes");
  if (!procs) {
    g.processes_error = "no <processes> element in the nvidia-smi output";
    return;
  }
  std::vector<GpuProcess> out;
  for (pugi::xml_node pi : procs.children("process_info")) {
    GpuReader pr(pi, g);
    std::optional<uint32_t> pid = pr.u32("pid");
    if (!pid) continue;
    GpuProcess p;
    p.pid = *pid;
    p.type = process_type(pr.text("type").value_or("compute"));
    p.used_memory_bytes = pr.mib("used_memory");
    p.gpu_instance_id = pr.u32("gpu_instance_id");
    p.compute_instance_id = pr.u32("compute_instance_id");
    // nvidia-smi's process_name is the command line (or the executable's
    // path); /proc of the node is not read, so nothing else is known.
    p.cmdline = pr.text("process_name");
    p.visibility_note =
        "PID " + std::to_string(p.pid) + " on the captured node; /proc of that node was not read";
    out.push_back(std::move(p));
  }
  g.processes = std::move(out);
}

GpuState read_gpu(pugi::xml_node node, uint32_t index) {
  GpuState g;
  g.index = index;
  GpuReader r(node, g);
  read_identity(r, g);
  read_memory_and_utilization(r, g);
  read_thermals_and_power(r, g);
  read_modes(r, g);
  read_ecc_and_rows(r, g);
  read_pcie(r, g);
  read_clock_reasons(r, g);
  read_smi_recovery(r);
  read_smi_fabric(r);
  read_smi_thermal(r);
  read_smi_limit_counters(r);
  read_smi_row_histogram(r);
  read_smi_mig_devices(r);
  read_processes(r, g);
  return g;
}

std::optional<std::string> top_text(pugi::xml_node root, const char* name) {
  pugi::xml_node e = root.child(name);
  if (!e) return std::nullopt;
  std::string v = smi_trim(e.child_value());
  if (smi_classify(v) != SmiKind::kValue) return std::nullopt;
  return v;
}

/// A std::regex over the first 512 bytes only (the cap tests/e2e/layering.sh
/// allows it for: a regex over unbounded text recurses per character).
std::optional<int> dtd_version(std::string_view text) {
  static const std::regex kDtd(R"(nvsmi_device_v(\d{1,6})\.dtd)");
  std::string head(text.substr(0, 512));
  std::smatch m;
  if (!std::regex_search(head, m, kDtd)) return std::nullopt;
  return parse_int<int>(m[1].str());
}

}  // namespace

Result<SmiXml> parse_smi_xml(std::string_view text) {
  pugi::xml_document doc;
  pugi::xml_parse_result pr = doc.load_buffer(text.data(), text.size(), pugi::parse_default);
  if (!pr)
    return Error{ErrorKind::kMalformed, std::string("not nvidia-smi XML: ") + pr.description() +
                                            " at byte " + std::to_string(pr.offset)};
  pugi::xml_node root = doc.child("nvidia_smi_log");
  if (!root) return Error{ErrorKind::kMalformed, "not nvidia-smi XML: no <nvidia_smi_log> element"};
  SmiXml x;
  x.dtd_version = dtd_version(text);
  x.timestamp = top_text(root, "timestamp");
  x.driver_version = top_text(root, "driver_version");
  x.cuda_version = top_text(root, "cuda_version");
  if (std::optional<std::string> n = top_text(root, "attached_gpus")) {
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(n->data(), n->data() + n->size(), v);
    if (ec == std::errc()) x.attached_gpus = v;
  }
  uint32_t index = 0;
  for (pugi::xml_node gpu : root.children("gpu")) x.gpus.push_back(read_gpu(gpu, index++));
  if (x.attached_gpus && *x.attached_gpus != x.gpus.size())
    x.warnings.push_back("nvidia-smi output says attached_gpus " +
                         std::to_string(*x.attached_gpus) + " but holds " +
                         std::to_string(x.gpus.size()) + " <gpu> element(s) (trimmed output?)");
  return x;
}

void apply_smi_xml(SmiXml xml, NodeSnapshot& snap) {
  snap.nvml.loaded = true;
  snap.nvml.initialized = true;
  snap.captured_at = xml.timestamp;
  snap.captured_at_unix_s = xml.timestamp ? smi_timestamp_unix_s(*xml.timestamp) : std::nullopt;
  snap.driver_version = xml.driver_version;
  snap.cuda_driver_version = xml.cuda_version;
  snap.gpu_count = xml.attached_gpus ? *xml.attached_gpus : static_cast<uint32_t>(xml.gpus.size());
  snap.gpus = std::move(xml.gpus);
  for (std::string& w : xml.warnings) snap.warnings.push_back(std::move(w));
}

}  // namespace gt
