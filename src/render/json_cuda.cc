#include "render/json_cuda.h"

#include "render/json_read.h"
#include "render/json_util.h"

namespace gt {
namespace {

using J = nlohmann::ordered_json;
using json_util::opt;

J library_json(const ResolvedLibrary& l) {
  return {{"soname", l.soname},
          {"file", opt(l.file)},
          {"found_at", opt(l.found_at)},
          {"found_via", opt(l.found_via)},
          {"conf_file", opt(l.conf_file)},
          {"version", opt(l.version)},
          {"version_from", opt(l.version_from)},
          {"compat", l.compat},
          {"compat_from", opt(l.compat_from)},
          {"notes", l.notes}};
}

J loader_json(const LoaderContext& c) {
  J libs = J::array();
  for (const ResolvedLibrary& l : c.libraries) libs.push_back(library_json(l));
  return {{"pid", opt(c.pid)},
          {"who", c.who},
          {"ld_library_path", opt(c.ld_library_path)},
          {"libraries", libs},
          {"notes", c.notes}};
}

J devices_json(const std::optional<CudaDeviceNodes>& d) {
  if (!d) return nullptr;
  J missing = J::array();
  for (const auto& [minor, bus] : d->missing_gpu_nodes)
    missing.push_back({{"minor", minor}, {"pci_bus_id", bus}});
  return {{"nvidiactl", opt(d->nvidiactl)},
          {"nvidia_uvm", opt(d->nvidia_uvm)},
          {"nvidia_uvm_tools", opt(d->nvidia_uvm_tools)},
          {"nvidia_caps", opt(d->nvidia_caps)},
          {"uvm_module_loaded", opt(d->uvm_module_loaded)},
          {"missing_gpu_nodes", missing},
          {"in_container", d->in_container},
          {"notes", d->notes}};
}

J runtime_json(const CudaRuntimeBuild& b) {
  return {{"pid", opt(b.pid)},
          {"who", b.who},
          {"cuda_version", opt(b.cuda_version)},
          {"source", opt(b.source)},
          {"notes", b.notes}};
}

J mappings_json(const ProcessMappings& m) {
  J libs = J::array();
  for (const MappedLibrary& l : m.libraries)
    libs.push_back({{"path", l.path}, {"version", opt(l.version)}, {"deleted", l.deleted}});
  return {{"pid", m.pid},
          {"who", m.who},
          {"gpu_memory_bytes", opt(m.gpu_memory_bytes)},
          {"libraries", libs}};
}

J limits_json(const ProcessLimits& l) {
  return {{"pid", l.pid},
          {"who", l.who},
          {"memlock_bytes", opt(l.memlock_bytes)},
          {"tensor_parallel", opt(l.tensor_parallel)},
          {"rank_pids", l.rank_pids}};
}

}  // namespace

J cuda_readiness_json(const std::optional<CudaReadiness>& r) {
  if (!r) return nullptr;
  J loaders = J::array();
  for (const LoaderContext& c : r->loaders) loaders.push_back(loader_json(c));
  J runtimes = J::array();
  for (const CudaRuntimeBuild& b : r->runtimes) runtimes.push_back(runtime_json(b));
  J limits = J::array();
  for (const ProcessLimits& l : r->limits) limits.push_back(limits_json(l));
  J mapped = J::array();
  for (const ProcessMappings& m : r->mapped) mapped.push_back(mappings_json(m));
  return {{"loaders", loaders},
          {"mapped", mapped},
          {"devices", devices_json(r->devices)},
          {"runtimes", runtimes},
          {"dev_shm_bytes", opt(r->dev_shm_bytes)},
          {"limits", limits},
          {"rdma_devices", opt(r->rdma_devices)},
          {"notes", r->notes}};
}

namespace json_read {
namespace {

ResolvedLibrary library_of(const J& j, const std::string& path) {
  Obj o(j, path);
  ResolvedLibrary l;
  o.get("soname", l.soname);
  o.get("file", l.file);
  o.get("found_at", l.found_at);
  o.get("found_via", l.found_via);
  o.get("conf_file", l.conf_file);
  o.get("version", l.version);
  o.get("version_from", l.version_from);
  o.get("compat", l.compat);
  o.get("compat_from", l.compat_from);
  o.get("notes", l.notes);
  return l;
}

LoaderContext loader_of(const J& j, const std::string& path) {
  Obj o(j, path);
  LoaderContext c;
  o.get("pid", c.pid);
  o.get("who", c.who);
  o.get("ld_library_path", c.ld_library_path);
  if (const J* l = o.find("libraries")) read_each(*l, o.at("libraries"), c.libraries, library_of);
  o.get("notes", c.notes);
  return c;
}

CudaDeviceNodes devices_of(const J& j, const std::string& path) {
  Obj o(j, path);
  CudaDeviceNodes d;
  o.get("nvidiactl", d.nvidiactl);
  o.get("nvidia_uvm", d.nvidia_uvm);
  o.get("nvidia_uvm_tools", d.nvidia_uvm_tools);
  o.get("nvidia_caps", d.nvidia_caps);
  o.get("uvm_module_loaded", d.uvm_module_loaded);
  if (const J* m = o.find("missing_gpu_nodes"))
    read_each(*m, o.at("missing_gpu_nodes"), d.missing_gpu_nodes,
              [](const J& x, const std::string& at) {
                Obj e(x, at);
                std::pair<uint32_t, std::string> p;
                e.get("minor", p.first);
                e.get("pci_bus_id", p.second);
                return p;
              });
  o.get("in_container", d.in_container);
  o.get("notes", d.notes);
  return d;
}

CudaRuntimeBuild runtime_of(const J& j, const std::string& path) {
  Obj o(j, path);
  CudaRuntimeBuild b;
  o.get("pid", b.pid);
  o.get("who", b.who);
  o.get("cuda_version", b.cuda_version);
  o.get("source", b.source);
  o.get("notes", b.notes);
  return b;
}

MappedLibrary mapped_library_of(const J& j, const std::string& path) {
  Obj o(j, path);
  MappedLibrary l;
  o.get("path", l.path);
  o.get("version", l.version);
  o.get("deleted", l.deleted);
  return l;
}

ProcessMappings mappings_of(const J& j, const std::string& path) {
  Obj o(j, path);
  ProcessMappings m;
  o.get("pid", m.pid);
  o.get("who", m.who);
  o.get("gpu_memory_bytes", m.gpu_memory_bytes);
  if (const J* l = o.find("libraries"))
    read_each(*l, o.at("libraries"), m.libraries, mapped_library_of);
  return m;
}

ProcessLimits limits_of(const J& j, const std::string& path) {
  Obj o(j, path);
  ProcessLimits l;
  o.get("pid", l.pid);
  o.get("who", l.who);
  o.get("memlock_bytes", l.memlock_bytes);
  o.get("tensor_parallel", l.tensor_parallel);
  o.get("rank_pids", l.rank_pids);
  return l;
}

}  // namespace

CudaReadiness cuda_readiness_of(const J& j, const std::string& path) {
  Obj o(j, path);
  CudaReadiness r;
  if (const J* l = o.find("loaders")) read_each(*l, o.at("loaders"), r.loaders, loader_of);
  if (const J* m = o.find("mapped")) read_each(*m, o.at("mapped"), r.mapped, mappings_of);
  if (const J* d = o.find("devices"); d && !d->is_null())
    r.devices = devices_of(*d, o.at("devices"));
  if (const J* b = o.find("runtimes")) read_each(*b, o.at("runtimes"), r.runtimes, runtime_of);
  o.get("dev_shm_bytes", r.dev_shm_bytes);
  if (const J* l = o.find("limits")) read_each(*l, o.at("limits"), r.limits, limits_of);
  o.get("rdma_devices", r.rdma_devices);
  o.get("notes", r.notes);
  return r;
}

}  // namespace json_read
}  // namespace gt
