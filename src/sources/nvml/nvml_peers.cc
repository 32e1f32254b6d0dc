#include "sources/nvml/nvml_peers.h"

#include <string>

namespace gt {

std::optional<std::string> topology_level_name(int level) {
  switch (level) {
    case NVML_TOPOLOGY_INTERNAL:
      return "internal";
    case NVML_TOPOLOGY_SINGLE:
      return "single";
    case NVML_TOPOLOGY_MULTIPLE:
      return "multiple";
    case NVML_TOPOLOGY_HOSTBRIDGE:
      return "hostbridge";
    case NVML_TOPOLOGY_NODE:
      return "node";
    case NVML_TOPOLOGY_SYSTEM:
      return "system";
  }
  return std::nullopt;
}

std::string p2p_status_name(int status) {
  switch (status) {
    case NVML_P2P_STATUS_OK:
      return "ok";
    case NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED:
      return "chipset_not_supported";
    case NVML_P2P_STATUS_GPU_NOT_SUPPORTED:
      return "gpu_not_supported";
    case NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED:
      return "ioh_topology_not_supported";
    case NVML_P2P_STATUS_DISABLED_BY_REGKEY:
      return "disabled_by_regkey";
    case NVML_P2P_STATUS_NOT_SUPPORTED:
      return "not_supported";
  }
  return "unknown";
}

namespace {

/// One pair call, judged here rather than by NvmlCaller::check: a pair call
/// answers GPU_IS_LOST when either GPU is lost, and the peer's loss must not
/// mark this GPU lost (its own calls say whether it is). Absent codes and
/// GPU_IS_LOST leave the value null; any other error is recorded with the
/// peer's index.
template <typename Sig, typename... Args>
bool pair_call(NvmlCaller& c, const NvmlFn<Sig>& f, unsigned peer, Args... args) {
  if (!f || c.lost()) return false;
  c.publish(f.symbol);
  nvmlReturn_t r = f.fn(args...);
  if (r == NVML_SUCCESS) return true;
  if (!nvml_absent(r) && r != NVML_ERROR_GPU_IS_LOST)
    c.note_error(std::string(f.symbol) + " towards GPU " + std::to_string(peer), r);
  return false;
}

std::optional<std::string> p2p(NvmlCaller& c, nvmlDevice_t a, nvmlDevice_t b, unsigned peer,
                               int cap) {
  int status = 0;
  if (!pair_call(c, c.api().p2p_status, peer, a, b, cap, &status)) return std::nullopt;
  return p2p_status_name(status);
}

bool any_answer(const GpuPeer& p) {
  return p.level || p.p2p_read || p.p2p_write || p.p2p_nvlink || p.p2p_atomics;
}

}  // namespace

std::optional<std::vector<GpuPeer>> read_peers(NvmlCaller& c, nvmlDevice_t dev, unsigned self,
                                               unsigned count, const KnownHandle& known) {
  const NvmlApi& api = c.api();
  if (!api.topology_common_ancestor && !api.p2p_status) return std::nullopt;
  std::vector<GpuPeer> peers;
  bool answered = false;
  for (unsigned j = 0; j < count && !c.lost(); ++j) {
    if (j == self) continue;
    nvmlDevice_t other{};
    // The peer's handle failing (even GPU_IS_LOST) is the peer's own
    // finding, not this GPU's: called directly, never through check().
    if (std::optional<nvmlDevice_t> h = known(j)) {
      other = *h;
    } else {
      c.publish(api.handle_by_index.symbol);
      if (api.handle_by_index.fn(j, &other) != NVML_SUCCESS) continue;
    }
    GpuPeer p;
    p.index = j;
    int level = 0;
    if (pair_call(c, api.topology_common_ancestor, j, dev, other, &level))
      p.level = topology_level_name(level);
    p.p2p_read = p2p(c, dev, other, j, NVML_P2P_CAPS_INDEX_READ);
    p.p2p_write = p2p(c, dev, other, j, NVML_P2P_CAPS_INDEX_WRITE);
    p.p2p_nvlink = p2p(c, dev, other, j, NVML_P2P_CAPS_INDEX_NVLINK);
    p.p2p_atomics = p2p(c, dev, other, j, NVML_P2P_CAPS_INDEX_ATOMICS);
    answered = answered || any_answer(p);
    peers.push_back(std::move(p));
  }
  if (!answered) return std::nullopt;
  return peers;
}

}  // namespace gt
