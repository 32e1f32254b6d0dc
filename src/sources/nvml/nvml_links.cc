#include "sources/nvml/nvml_links.h"

#include <string>

namespace gt {

std::optional<uint64_t> counter_growth(std::optional<uint64_t> start, std::optional<uint64_t> end) {
  if (!start || !end || *end < *start) return std::nullopt;
  return *end - *start;
}

namespace {

std::optional<std::string> device_type_name(int t) {
  switch (t) {
    case NVML_NVLINK_DEVICE_TYPE_GPU:
      return "gpu";
    case NVML_NVLINK_DEVICE_TYPE_IBMNPU:
      return "ibmnpu";
    case NVML_NVLINK_DEVICE_TYPE_SWITCH:
      return "switch";
  }
  return "unknown";
}

std::optional<uint64_t> counter(NvmlCaller& c, nvmlDevice_t dev, unsigned link, int which) {
  unsigned long long v = 0;
  if (!c.call(c.api().nvlink_error_counter, dev, link, which, &v)) return std::nullopt;
  return v;
}

NvLinkCounters read_counters(NvmlCaller& c, nvmlDevice_t dev, unsigned link) {
  NvLinkCounters k;
  k.crc_flit = counter(c, dev, link, NVML_NVLINK_ERROR_DL_CRC_FLIT);
  k.crc_data = counter(c, dev, link, NVML_NVLINK_ERROR_DL_CRC_DATA);
  k.replay = counter(c, dev, link, NVML_NVLINK_ERROR_DL_REPLAY);
  k.recovery = counter(c, dev, link, NVML_NVLINK_ERROR_DL_RECOVERY);
  return k;
}

/// The peer and version only mean something on a trained link; asking for
/// them on a link that is down would only collect errors.
void read_active_link(NvmlCaller& c, nvmlDevice_t dev, NvLink& l) {
  unsigned version = 0;
  if (c.call(c.api().nvlink_version, dev, l.link, &version)) l.version = version;
  nvmlPciInfo_t pci{};
  if (c.call(c.api().nvlink_remote_pci, dev, l.link, &pci)) {
    pci.busId[sizeof pci.busId - 1] = '\0';
    if (pci.busId[0] != '\0') l.remote_pci_bus_id = normalize_pci_bus_id(pci.busId);
  }
  int type = 0;
  if (c.call(c.api().nvlink_remote_device_type, dev, l.link, &type))
    l.remote_device_type = device_type_name(type);
}

}  // namespace

std::optional<std::vector<NvLink>> read_nvlinks(NvmlCaller& c, nvmlDevice_t dev) {
  std::vector<NvLink> links;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    int active = 0;
    std::optional<nvmlReturn_t> r = c.raw(c.api().nvlink_state, dev, link, &active);
    if (!r) break;  // not exported, or the GPU is lost
    // A link number past the GPU's count is INVALID_ARGUMENT: the normal end.
    if (*r == NVML_ERROR_INVALID_ARGUMENT || nvml_absent(*r)) break;
    if (*r != NVML_SUCCESS) {
      // The list stops here rather than collecting one error per link.
      c.note_error(std::string(c.api().nvlink_state.symbol) + "(link " + std::to_string(link) + ")",
                   *r);
      break;
    }
    NvLink l;
    l.link = link;
    l.active = active == NVML_FEATURE_ENABLED;
    // An inactive link (no bridge fitted) has nothing to count; asking
    // would only turn its refusals into query errors.
    if (*l.active) {
      read_active_link(c, dev, l);
      l.errors = read_counters(c, dev, link);
    }
    links.push_back(l);
  }
  if (links.empty()) return std::nullopt;
  return links;
}

void read_nvlinks_window_end(NvmlCaller& c, nvmlDevice_t dev, std::vector<NvLink>& links) {
  for (NvLink& l : links) {
    if (!l.active.value_or(false)) continue;
    NvLinkCounters end = read_counters(c, dev, l.link);
    l.errors_growth.crc_flit = counter_growth(l.errors.crc_flit, end.crc_flit);
    l.errors_growth.crc_data = counter_growth(l.errors.crc_data, end.crc_data);
    l.errors_growth.replay = counter_growth(l.errors.replay, end.replay);
    l.errors_growth.recovery = counter_growth(l.errors.recovery, end.recovery);
    l.errors = end;
  }
}

}  // namespace gt
