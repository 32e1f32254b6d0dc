// Whether CUDA will start on this node, read from the node before anything
// touches a GPU (nothing here calls CUDA): the driver libraries a job would
// load and from where, the device nodes and modules CUDA opens, what the
// job's own CUDA stack was built for, and the container limits NCCL meets.
// Filled by sources/cuda/ (the readiness stage), judged by
// checks/cuda_library_checks.cc and checks/cuda_node.cc.
//
// Invariant as everywhere: unknown is std::nullopt, never 0 or false; what
// could not be read is said in `notes` of the part it belongs to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/describe.h"

namespace gt {

/// One driver library as the dynamic loader would find it.
struct ResolvedLibrary {
  std::string soname;  ///< "libcuda.so.1", "libnvidia-ml.so.1", "libnvidia-ptxjitcompiler.so.1"
  /// The file the loader would map, links followed, as the node names it
  /// (under --root: the node's path, not the host's); null: not found.
  std::optional<std::string> file;
  /// The path the loader finds first (before links are followed).
  std::optional<std::string> found_at;
  /// How: "LD_LIBRARY_PATH", "/etc/ld.so.cache" or "default directory".
  std::optional<std::string> found_via;
  /// The loader conf file that put the cache entry's directory there
  /// ("/etc/ld.so.conf.d/cuda-compat.conf"); null: not from the cache, or a
  /// directory no conf file names (ldconfig's defaults).
  std::optional<std::string> conf_file;
  std::optional<std::string> version;       ///< "565.57.01"
  std::optional<std::string> version_from;  ///< "file name" or "contents"
  /// A CUDA forward-compatibility library: in a compat directory, a bind
  /// mount of a file there, or the same bytes as one
  /// (sources/cuda/compat_library.h).
  bool compat = false;
  /// How it is known to be one ("a bind mount of
  /// /usr/local/cuda-12.2/compat/libcuda.so.535.261.03 ..."); null: not one.
  std::optional<std::string> compat_from;
  std::vector<std::string> notes;  ///< a dangling link, a version that does not parse...
  bool operator==(const ResolvedLibrary&) const = default;
};

/// The libraries one loader context would load: a new job started here, or
/// one running GPU process with its own LD_LIBRARY_PATH.
struct LoaderContext {
  std::optional<uint32_t> pid;  ///< null: a new job started from a shell here
  std::string who;              ///< "a new job", "pid 3187 (sglang::scheduler)"
  /// The LD_LIBRARY_PATH it runs with (from /proc/PID/environ); null: not
  /// set, or unreadable (then a note says so).
  std::optional<std::string> ld_library_path;
  std::vector<ResolvedLibrary> libraries;
  std::vector<std::string> notes;
  bool operator==(const LoaderContext&) const = default;
};

/// The device nodes and modules CUDA opens (/dev/nvidia*).
struct CudaDeviceNodes {
  std::optional<bool> nvidiactl;          ///< /dev/nvidiactl is a character device
  std::optional<bool> nvidia_uvm;         ///< /dev/nvidia-uvm
  std::optional<bool> nvidia_uvm_tools;   ///< /dev/nvidia-uvm-tools
  std::optional<bool> nvidia_caps;        ///< /dev/nvidia-caps/ (MIG)
  std::optional<bool> uvm_module_loaded;  ///< nvidia_uvm in /proc/modules
  /// Minor numbers of GPUs the driver has (/proc/driver/nvidia/gpus/*/
  /// information "Device Minor:") whose /dev/nvidiaN is absent here, with
  /// the GPU's bus id.
  std::vector<std::pair<uint32_t, std::string>> missing_gpu_nodes;
  bool in_container = false;  ///< the readers saw a container (/.dockerenv, cgroup...)
  std::vector<std::string> notes;
  bool operator==(const CudaDeviceNodes&) const = default;
};

/// What one GPU process's (or --python's) CUDA stack was built for.
struct CudaRuntimeBuild {
  std::optional<uint32_t> pid;  ///< null: --python PATH
  std::string who;              ///< "pid 3187 (python3)", "--python /opt/venv/bin/python"
  std::optional<std::string> cuda_version;  ///< "12.8"
  /// Where it was read: "torch 2.7.0 (/opt/venv/.../torch/version.py)",
  /// "nvidia-cuda-runtime-cu12 (libcudart.so.12.8.57)", "conda cudatoolkit 11.8".
  std::optional<std::string> source;
  std::vector<std::string> notes;
  bool operator==(const CudaRuntimeBuild&) const = default;
};

/// Limits of one GPU process that NCCL meets.
struct ProcessLimits {
  uint32_t pid = 0;
  std::string who;
  /// RLIMIT_MEMLOCK soft limit from /proc/PID/limits; null: unreadable;
  /// unlimited is UINT64_MAX.
  std::optional<uint64_t> memlock_bytes;
  std::optional<uint32_t> tensor_parallel;  ///< of its server, when known
  /// Its processes on GPUs here, by PID (a server's members: torchrun,
  /// DeepSpeed or accelerate workers, MPI ranks, a server's rank
  /// processes): two or more are NCCL peers on this node.
  std::vector<uint32_t> rank_pids;
  bool operator==(const ProcessLimits&) const = default;
};

/// One NVIDIA driver library a running process has mapped (/proc/PID/maps).
struct MappedLibrary {
  std::string path;                    ///< as the process's maps names it
  std::optional<std::string> version;  ///< "590.48.01" from the file name; null: not in it
  bool deleted = false;                ///< maps says "(deleted)": replaced or removed on disk
  bool operator==(const MappedLibrary&) const = default;
};

/// The driver libraries one running process has mapped: proof of what its
/// CUDA runs on (a process holding GPU memory passed cuInit with its
/// libcuda against this module, docs/physics.md R3).
struct ProcessMappings {
  uint32_t pid = 0;
  std::string who;  ///< "pid 3187 (sglang::scheduler)"
  /// Listed by NVML with GPU memory (null: NVML listed no processes, the
  /// process was found by its maps).
  std::optional<uint64_t> gpu_memory_bytes;
  std::vector<MappedLibrary> libraries;  ///< libcuda, libnvidia-ml, ptxjitcompiler
  bool operator==(const ProcessMappings&) const = default;
};

struct CudaReadiness {
  /// A new job first, then each GPU process whose LD_LIBRARY_PATH differs.
  std::vector<LoaderContext> loaders;
  /// The driver libraries each running GPU process has mapped (those NVML
  /// lists; with NVML not answering, the processes whose maps name one).
  std::vector<ProcessMappings> mapped;
  std::optional<CudaDeviceNodes> devices;
  std::vector<CudaRuntimeBuild> runtimes;
  /// /dev/shm's size (statvfs f_blocks * f_frsize); null: not read.
  std::optional<uint64_t> dev_shm_bytes;
  std::vector<ProcessLimits> limits;
  /// RDMA devices (/sys/class/infiniband); null: /sys not read. NCCL's
  /// memlock need is judged only where there is one.
  std::optional<std::vector<std::string>> rdma_devices;
  std::vector<std::string> notes;  ///< what the stage as a whole could not read
  bool operator==(const CudaReadiness&) const = default;
};

// Each type's fields once, in the report's order (model/describe.h).
void describe(SelfOf<ResolvedLibrary> auto& l, auto& v) {
  v("soname", l.soname);
  v("file", l.file);
  v("found_at", l.found_at);
  v("found_via", l.found_via);
  v("conf_file", l.conf_file);
  v("version", l.version);
  v("version_from", l.version_from);
  v("compat", l.compat);
  v("compat_from", l.compat_from);
  v("notes", l.notes);
}

void describe(SelfOf<LoaderContext> auto& c, auto& v) {
  v("pid", c.pid);
  v("who", c.who);
  v("ld_library_path", c.ld_library_path);
  v("libraries", c.libraries);
  v("notes", c.notes);
}

void describe(SelfOf<CudaDeviceNodes> auto& d, auto& v) {
  v("nvidiactl", d.nvidiactl);
  v("nvidia_uvm", d.nvidia_uvm);
  v("nvidia_uvm_tools", d.nvidia_uvm_tools);
  v("nvidia_caps", d.nvidia_caps);
  v("uvm_module_loaded", d.uvm_module_loaded);
  v("missing_gpu_nodes", d.missing_gpu_nodes, PairKeys{"minor", "pci_bus_id"});
  v("in_container", d.in_container);
  v("notes", d.notes);
}

void describe(SelfOf<CudaRuntimeBuild> auto& b, auto& v) {
  v("pid", b.pid);
  v("who", b.who);
  v("cuda_version", b.cuda_version);
  v("source", b.source);
  v("notes", b.notes);
}

void describe(SelfOf<ProcessLimits> auto& l, auto& v) {
  v("pid", l.pid);
  v("who", l.who);
  v("memlock_bytes", l.memlock_bytes);
  v("tensor_parallel", l.tensor_parallel);
  v("rank_pids", l.rank_pids);
}

void describe(SelfOf<MappedLibrary> auto& l, auto& v) {
  v("path", l.path);
  v("version", l.version);
  v("deleted", l.deleted);
}

void describe(SelfOf<ProcessMappings> auto& m, auto& v) {
  v("pid", m.pid);
  v("who", m.who);
  v("gpu_memory_bytes", m.gpu_memory_bytes);
  v("libraries", m.libraries);
}

void describe(SelfOf<CudaReadiness> auto& r, auto& v) {
  v("loaders", r.loaders);
  v("mapped", r.mapped);
  v("devices", r.devices);
  v("runtimes", r.runtimes);
  v("dev_shm_bytes", r.dev_shm_bytes);
  v("limits", r.limits);
  v("rdma_devices", r.rdma_devices);
  v("notes", r.notes);
}

}  // namespace gt
