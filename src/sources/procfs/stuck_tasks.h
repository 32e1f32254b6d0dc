// Tasks stuck in the NVIDIA driver: threads in uninterruptible sleep (state
// D) whose kernel stack or wait channel is in nvidia code. A wedged driver
// leaves them behind (nvidia-smi, every NVML caller, often one thread of a
// python job); nothing in user space can free them.
//
// The rule for "in nvidia code" (docs/json.md, stuck_nvidia_tasks):
//  1. /proc/PID/stack readable (root): a frame tagged with an NVIDIA module,
//     "[nvidia]", "[nvidia_uvm]", "[nvidia_modeset]", "[nvidia_drm]",
//     "[nvidia_peermem]", "[nvidia_fs]"... (kallsyms prints the module of
//     every module symbol). A readable stack without one is not nvidia, even
//     when the wait channel's name looks like it.
//  2. Stack unreadable or empty: the wait channel (/proc/PID/wchan, a bare
//     symbol without a module tag) in one of the driver's name families
//     (nvidia_wchan below), and only while the nvidia module is loaded:
//     weaker, since other drivers reuse some of the names (forcedeth's nv_*,
//     nvidiafb's nvidia_*), neither of which is loaded next to nvidia.ko on
//     a GPU node in practice.
//  3. Nothing else. A D task that merely has /dev/nvidia* open is not
//     counted: every CUDA process has, and CUDA jobs sit in D on NFS or disk
//     reads all the time.
// Real hung-task traces this follows: os_acquire_rwlock_write [nvidia] /
// rmapiLockAcquire [nvidia] (open-gpu-kernel-modules#968), uvm_*
// [nvidia_uvm] under uvm_ioctl (rwth-i6/returnn#1480,
// NVIDIA/k8s-device-plugin#77), nvidia_ioctl [nvidia].
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// Bounds on the scan: it runs on a sick node and must stay quick.
struct StuckTaskLimits {
  size_t max_tasks = 32768;          ///< stat files read (processes and threads)
  size_t max_d_tasks = 256;          ///< D tasks whose wchan and stack are read
  size_t max_file_bytes = 16 << 10;  ///< read of one stat, wchan or stack file
};

/// The D-state tasks in nvidia code under <root>/proc, by PID then TID.
/// Reads only stat, comm, wchan and stack (never cmdline or maps: they take
/// the target's mmap lock, which a stuck task may hold), never opens
/// /dev/nvidia* nor calls NVML. Nullopt when /proc cannot be listed. A scan
/// cut short by the limits appends a line to `warnings` (when given).
std::optional<std::vector<StuckTask>> read_stuck_nvidia_tasks(
    const FsRoot& root, std::vector<std::string>* warnings = nullptr,
    const StuckTaskLimits& limits = {});

/// The tasks of `later` that `earlier` saw stuck too (same PID and TID): a
/// task passes through state D in nvidia code for milliseconds all the time
/// on a busy node, so only one seen at both ends of the sample window counts.
/// Null when either scan is null.
std::optional<std::vector<StuckTask>> persisting_tasks(
    const std::optional<std::vector<StuckTask>>& earlier,
    const std::optional<std::vector<StuckTask>>& later);

/// What /proc/PID/stat says that the scan needs (process_info.h's ProcStat
/// has neither comm nor the thread count).
struct TaskStat {
  uint32_t pid = 0;
  std::string comm;  ///< between the first '(' and the last ')'
  char state = '?';
  std::optional<uint32_t> num_threads;
};
/// Parses a stat line; comm may hold spaces and parentheses. Nullopt when
/// it is not one.
std::optional<TaskStat> parse_task_stat(std::string_view text);

/// The first frame of a /proc/PID/stack text in an NVIDIA module, without
/// its "[<address>] " prefix ("os_acquire_mutex+0x1f/0x30 [nvidia]").
std::optional<std::string> nvidia_stack_frame(std::string_view stack);

/// Whether a bare wait-channel symbol is in one of the NVIDIA driver's name
/// families: nvidia_*, nv_*, nvkms_*, uvm_*, os_acquire_* / os_delay* (the
/// driver's OS layer), and the closed driver's _nvNNN... symbols.
bool nvidia_wchan(std::string_view symbol);

}  // namespace gt
