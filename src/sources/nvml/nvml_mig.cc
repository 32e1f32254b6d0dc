#include "sources/nvml/nvml_mig.h"

#include <algorithm>

namespace gt {

uint64_t allocated_bytes(const nvmlMemory_v2_t& m) {
  bool includes_reserved = m.free + m.used == m.total;
  if (includes_reserved && m.used >= m.reserved) return m.used - m.reserved;
  return m.used;
}

void merge_mig_processes(std::vector<GpuProcess>& into, const std::vector<GpuProcess>& from) {
  for (const GpuProcess& p : from) {
    auto same = std::find_if(into.begin(), into.end(), [&](const GpuProcess& q) {
      return q.pid == p.pid && q.gpu_instance_id == p.gpu_instance_id &&
             q.compute_instance_id == p.compute_instance_id;
    });
    if (same == into.end()) {
      into.push_back(p);
    } else if (same->type != p.type && same->type.find(p.type) == std::string::npos) {
      same->type += "+" + p.type;
    }
  }
}

std::optional<MemoryBytes> read_memory(NvmlCaller& c, nvmlDevice_t h, MemoryV1Fallback fallback) {
  const NvmlApi& api = c.api();
  nvmlMemory_v2_t m2{};
  m2.version = nvmlMemory_v2;
  std::optional<nvmlReturn_t> r = c.raw(api.memory_v2, h, &m2);
  if (r && *r == NVML_SUCCESS)
    return MemoryBytes{m2.total, allocated_bytes(m2), m2.free, m2.reserved};
  if (r && *r != NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
    c.check(api.memory_v2.symbol, *r);
    if (fallback == MemoryV1Fallback::kWhenAbsent && !nvml_absent(*r)) return std::nullopt;
  }
  nvmlMemory_t m1{};
  if (!c.call(api.memory_v1, h, &m1)) return std::nullopt;
  return MemoryBytes{m1.total, m1.used, m1.free, std::nullopt};
}

namespace {

void mig_memory(NvmlCaller& c, nvmlDevice_t h, MigDevice& m) {
  std::optional<MemoryBytes> b = read_memory(c, h, MemoryV1Fallback::kWhenAbsent);
  if (!b) return;
  m.memory_total_bytes = b->total;
  m.memory_used_bytes = b->used;
  m.memory_free_bytes = b->free;
  if (b->reserved) m.memory_reserved_bytes = b->reserved;
}

MigDevice read_one(NvmlCaller& c, nvmlDevice_t h, unsigned index) {
  const NvmlApi& api = c.api();
  MigDevice m;
  m.index = index;
  unsigned id = 0;
  if (c.call(api.gpu_instance_id, h, &id)) m.gpu_instance_id = id;
  if (c.call(api.compute_instance_id, h, &id)) m.compute_instance_id = id;
  char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  if (c.call(api.uuid, h, buf, static_cast<unsigned>(sizeof buf))) m.uuid = buf;
  if (c.call(api.name, h, buf, static_cast<unsigned>(sizeof buf))) m.name = buf;
  mig_memory(c, h, m);
  return m;
}

/// A v1 (16-byte) record has no instance ids: the handle says which.
void stamp_instance(std::vector<GpuProcess>& ps, const MigDevice& m) {
  for (GpuProcess& p : ps) {
    if (!p.gpu_instance_id) p.gpu_instance_id = m.gpu_instance_id;
    if (!p.compute_instance_id) p.compute_instance_id = m.compute_instance_id;
  }
}

}  // namespace

std::optional<MigRead> read_mig_devices(NvmlCaller& c, nvmlDevice_t parent,
                                        const ProcessLister& list_processes) {
  const NvmlApi& api = c.api();
  unsigned max = 0;
  if (!api.mig_device_handle_by_index || !c.call(api.max_mig_device_count, parent, &max))
    return std::nullopt;
  MigRead out;
  for (unsigned i = 0; i < max && !c.lost(); ++i) {
    nvmlDevice_t h = nullptr;
    std::optional<nvmlReturn_t> r = c.raw(api.mig_device_handle_by_index, parent, i, &h);
    if (!r || *r == NVML_ERROR_NOT_FOUND) continue;  // an empty slot
    if (*r != NVML_SUCCESS) {
      c.note_error(
          std::string(api.mig_device_handle_by_index.symbol) + "(" + std::to_string(i) + ")", *r);
      out.all_processes_listed = false;
      continue;
    }
    MigDevice m = read_one(c, h, i);
    std::optional<std::vector<GpuProcess>> ps = list_processes(h);
    if (ps) {
      stamp_instance(*ps, m);
      merge_mig_processes(out.processes, *ps);
    } else {
      out.all_processes_listed = false;
    }
    out.devices.push_back(std::move(m));
  }
  return out;
}

}  // namespace gt
