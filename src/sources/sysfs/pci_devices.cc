// /sys/bus/pci/devices/ has one entry per PCI function, named by its address
// "dddd:bb:dd.f" (domain, bus, device, function; lowercase hex). On a live
// node the entries are symlinks into /sys/devices/pci..., in a fixture tree
// plain directories; both read the same through FsRoot. Per device:
// - vendor, device: "0x10de\n", "0x2330\n"; class: "0x030200\n" (base class
//   0x03 display, subclass 0x00 VGA / 0x02 3D controller / 0x80 other, then
//   the programming interface byte). NVIDIA's HDMI audio (0x0403) and
//   NVSwitch (0x0680) functions share the vendor id and are skipped.
// - driver: a symlink to ../../../bus/pci/drivers/<name>, absent when no
//   driver is bound (the module is not loaded, or it refused the device).
// - current_link_speed / max_link_speed: "32.0 GT/s PCIe" on recent kernels,
//   "8.0 GT/s" or "8 GT/s" on older ones; "Unknown" when the link is down.
//   They are missing on functions without a PCIe capability.
// - current_link_width / max_link_width: "16"; 0 when the link is down, and
//   older kernels print 255 for an unknown width.
// - numa_node: "-1" when the platform gives no affinity.
// While nvidia.ko holds a GPU it also writes /proc/driver/nvidia/gpus/<bus>/
// information ("Model: \t\t NVIDIA H100 80GB HBM3", "GPU UUID: \t GPU-...",
// "Bus Location: ...", "Device Minor: 3"): it still answers for a GPU NVML
// has lost, so it names a lost GPU. A UUID the driver could not read is
// printed with '?' in place of digits and is not taken.
// NVML prints bus ids with an 8-digit domain ("00000000:19:00.0") and
// upper-case hex; normalize_pci_bus_id maps both spellings to sysfs's.
#include "sources/sysfs/pci_devices.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>

namespace gt {
namespace {

constexpr uint32_t kNvidiaVendorId = 0x10de;
constexpr const char* kDevicesDir = "/sys/bus/pci/devices";

// "0x10de" -> 0x10de; nullopt when absent or not hex.
std::optional<uint32_t> read_hex(const FsRoot& root, const std::string& path) {
  std::optional<std::string> text = root.read_optional_trimmed(path);
  if (!text || !text->starts_with("0x")) return std::nullopt;
  uint32_t value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data() + 2, end, value, 16);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// A decimal integer filling the whole file, or nullopt.
std::optional<int64_t> read_int(const FsRoot& root, const std::string& path) {
  std::optional<std::string> text = root.read_optional_trimmed(path);
  if (!text || text->empty()) return std::nullopt;
  int64_t value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// "32.0 GT/s PCIe" / "8 GT/s" -> 32.0 / 8.0; "Unknown" -> nullopt.
std::optional<double> read_link_speed(const FsRoot& root, const std::string& path) {
  std::optional<std::string> text = root.read_optional_trimmed(path);
  if (!text) return std::nullopt;
  double gts = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, gts);
  // from_chars reads "inf" and "1e308" too: a link is well under 1000 GT/s.
  if (ec != std::errc() || !(gts > 0) || !(gts < 1000)) return std::nullopt;
  if (std::string_view(ptr, end - ptr).find("GT/s") == std::string_view::npos) {
    return std::nullopt;
  }
  return gts;
}

// Lanes, 1..32; 0 (link down) and 255 (unknown) are not widths.
std::optional<uint32_t> read_link_width(const FsRoot& root, const std::string& path) {
  std::optional<int64_t> width = read_int(root, path);
  if (!width || *width <= 0 || *width > 32) return std::nullopt;
  return static_cast<uint32_t>(*width);
}

// PCIe generation from the per-lane transfer rate.
std::optional<uint32_t> gen_from_speed(std::optional<double> gts) {
  static constexpr double kRates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  if (!gts) return std::nullopt;
  for (uint32_t i = 0; i < std::size(kRates); ++i) {
    if (std::fabs(*gts - kRates[i]) < 0.01) return i + 1;
  }
  return std::nullopt;
}

bool is_display_class(uint32_t class_code) {
  uint32_t sub = class_code >> 8;
  return sub == 0x0300 || sub == 0x0302 || sub == 0x0380;
}

// Fills every field but bus_id/device_id/class_code from `dir`.
void fill_link_and_driver(const FsRoot& root, const std::string& dir, PciDevice& d) {
  if (std::optional<std::string> target = root.read_link(dir + "/driver")) {
    d.driver = target->substr(target->rfind('/') + 1);
  }
  d.current_link_speed_gts = read_link_speed(root, dir + "/current_link_speed");
  d.max_link_speed_gts = read_link_speed(root, dir + "/max_link_speed");
  d.current_link_width = read_link_width(root, dir + "/current_link_width");
  d.max_link_width = read_link_width(root, dir + "/max_link_width");
  d.current_link_gen = gen_from_speed(d.current_link_speed_gts);
  d.max_link_gen = gen_from_speed(d.max_link_speed_gts);
  std::optional<int64_t> numa = read_int(root, dir + "/numa_node");
  if (numa && *numa >= 0) d.numa_node = static_cast<uint32_t>(*numa);
}

// The value of "Key:" in a "Key: value" text, whitespace trimmed.
std::optional<std::string> field(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (!line.starts_with(key) || line.size() <= key.size() || line[key.size()] != ':') continue;
    line.remove_prefix(key.size() + 1);
    size_t b = line.find_first_not_of(" \t"), e = line.find_last_not_of(" \t\r");
    if (b == std::string_view::npos) return std::nullopt;
    return std::string(line.substr(b, e - b + 1));
  }
  return std::nullopt;
}

// Model and UUID from the driver's per-GPU information file, when present.
void fill_driver_information(const FsRoot& root, const std::string& bus_id, PciDevice& d) {
  Result<std::string> info = root.read("/proc/driver/nvidia/gpus/" + bus_id + "/information");
  if (!info) return;
  d.model = field(*info, "Model");
  std::optional<std::string> uuid = field(*info, "GPU UUID");
  if (uuid && uuid->starts_with("GPU-") && uuid->find('?') == std::string::npos) d.uuid = uuid;
}

// The device at `bus_id` if it is an NVIDIA display-class function.
std::optional<PciDevice> read_pci_device(const FsRoot& root, const std::string& bus_id) {
  const std::string dir = std::string(kDevicesDir) + "/" + bus_id;
  std::optional<uint32_t> vendor = read_hex(root, dir + "/vendor");
  std::optional<uint32_t> class_code = read_hex(root, dir + "/class");
  if (vendor != kNvidiaVendorId || !class_code || !is_display_class(*class_code)) {
    return std::nullopt;
  }
  PciDevice d;
  d.bus_id = bus_id;
  d.device_id = read_hex(root, dir + "/device");
  d.class_code = class_code;
  fill_link_and_driver(root, dir, d);
  fill_driver_information(root, bus_id, d);
  return d;
}

constexpr uint32_t kBridgeOtherClass = 0x0680;  // class code >> 8

}  // namespace

Result<std::vector<std::string>> read_nvswitches(const FsRoot& root) {
  Result<std::vector<std::string>> entries = root.list(kDevicesDir);
  if (!entries) {
    if (entries.error().kind == ErrorKind::kNotFound) return std::vector<std::string>{};
    return entries.error().with_context("listing PCI devices");
  }
  std::vector<std::string> out;
  for (const std::string& bus_id : *entries) {
    const std::string dir = std::string(kDevicesDir) + "/" + bus_id;
    std::optional<uint32_t> class_code = read_hex(root, dir + "/class");
    if (read_hex(root, dir + "/vendor") == kNvidiaVendorId && class_code &&
        (*class_code >> 8) == kBridgeOtherClass)
      out.push_back(bus_id);
  }
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return normalize_pci_bus_id(a) < normalize_pci_bus_id(b);
  });
  return out;
}

Result<std::vector<PciDevice>> read_nvidia_pci_devices(const FsRoot& root) {
  Result<std::vector<std::string>> entries = root.list(kDevicesDir);
  if (!entries) {
    if (entries.error().kind == ErrorKind::kNotFound) {
      return std::vector<PciDevice>{};
    }
    return entries.error().with_context("listing PCI devices");
  }
  std::vector<PciDevice> devices;
  for (const std::string& bus_id : *entries) {
    if (std::optional<PciDevice> d = read_pci_device(root, bus_id)) {
      devices.push_back(std::move(*d));
    }
  }
  std::sort(devices.begin(), devices.end(), [](const PciDevice& a, const PciDevice& b) {
    return normalize_pci_bus_id(a.bus_id) < normalize_pci_bus_id(b.bus_id);
  });
  return devices;
}

}  // namespace gt
