// What NCCL meets in a container (docs/checks.md "nccl.*"): /dev/shm's size
// and each GPU server's RLIMIT_MEMLOCK, with the node's RDMA devices.
//
// /dev/shm's size is statvfs(2) of it on a live node ("/"). Under another
// root, statvfs of the tree's directory would measure the disk the tree
// lies on, not the node's tmpfs: the tree gives the size in
// .gt-fixture/dev-shm-bytes (a number of bytes), as it gives its clock in
// .gt-fixture/clock (sources/incident/host.h); without it the size is
// unknown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/cuda_readiness.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

std::optional<uint64_t> read_dev_shm_bytes(const FsRoot& root);

/// One entry per GPU server: its first member's "Max locked memory" soft
/// limit from /proc/PID/limits (null, with a note in `notes`, when it
/// cannot be read), and its compute processes on GPUs (its local ranks).
std::vector<ProcessLimits> read_server_limits(const FsRoot& root, const NodeSnapshot& snap,
                                              std::vector<std::string>& notes);

/// The RDMA devices in /sys/class/infiniband; null when /sys was not read.
std::optional<std::vector<std::string>> read_rdma_devices(const FsRoot& root);

/// The soft "Max locked memory" of a /proc/PID/limits text; UINT64_MAX for
/// "unlimited"; null when the line is missing or does not parse.
std::optional<uint64_t> memlock_soft_bytes(const std::string& limits);

}  // namespace gt
