// NCCL's limits in a container (sources/cuda/nccl_limits.h). NCCL's
// troubleshooting guide ("Shared memory", docs/physics.md R-NCCL-SHM):
// NCCL creates its shared-memory segments in /dev/shm and fails to
// initialise when there is not enough ("failed to extend /dev/shm/nccl-...
// to N bytes"); containers default to limited shared memory, its advice is
// `--shm-size=1g --ulimit memlock=-1`. Judged per job (one per launcher
// tree: torchrun, DeepSpeed or accelerate workers, MPI ranks, a server's
// rank processes), its local ranks its processes on GPUs here:
// - /dev/shm at Docker's default 64 MiB or less under a job with NCCL peers
//   on this node (two or more local ranks, or a server of TP > 1 whose
//   ranks are not all shown) fails NCCL's setup;
// - larger, it is still too small below what NCCL's SHM transport
//   allocates for the local ranks: each receives from a local peer over at
//   least one channel into a segment of NCCL's default buffers (SIMPLE
//   NCCL_BUFFSIZE 4 MiB, LL 512 KiB, LL128 4.6875 MiB: src/init.cc
//   computeBuffSizes, src/transport/shm.cc shmRecvSetup), so N ranks need
//   at least N x 9,633,792 bytes. A lower bound: more channels need more.
// A /dev/shm whose size could not be read under such a job in a container
// is said as unknown, never passed: there the size is the runtime's choice
// (Docker's 64 MiB unless --shm-size). On the host /dev/shm is the
// kernel's tmpfs at half of RAM by default (Documentation/filesystems/
// tmpfs.rst), far above any local ranks' need, so an unread size there
// is left as the null it is (cuda.dev_shm_bytes). A memlock limit other than unlimited on a node
// with RDMA devices limits the memory the InfiniBand transport can
// register (warning).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "checks/checks.h"
#include "checks/cuda_node_parts.h"
#include "util/byte_units.h"

namespace gt {
namespace {

constexpr uint64_t kDockerDefaultShmBytes = 64ull << 20;
constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();
/// One SHM transport receive segment with NCCL's default buffer sizes:
/// LL 8 lines x 512 threads x 8 steps x 16 B + LL128 120 x 640 x 8 x 8 B +
/// SIMPLE 4 MiB (NCCL src/init.cc, src/include/device.h).
constexpr uint64_t kNcclShmPeerBytes = 524288ull + 4915200ull + 4194304ull;

/// Whether the job has NCCL peers on this node: two or more of its
/// processes on GPUs here, or a tensor-parallel size above 1 (a server
/// that keeps its ranks in one process tree it does not show).
bool has_local_peers(const ProcessLimits& l) {
  return l.rank_pids.size() > 1 || l.tensor_parallel.value_or(1) > 1;
}

/// What NCCL's SHM transport needs at least for the job's local ranks;
/// null when its ranks are not seen (a TP size alone may span nodes).
std::optional<uint64_t> shm_need_bytes(const ProcessLimits& l) {
  if (l.rank_pids.size() < 2) return std::nullopt;
  return l.rank_pids.size() * kNcclShmPeerBytes;
}

/// "8 local ranks (pids 101, 102, ...)", or "" with fewer than two.
std::string local_ranks_words(const ProcessLimits& l) {
  if (l.rank_pids.size() < 2) return "";
  return fmt::format("{} local ranks (pids {})", l.rank_pids.size(), fmt::join(l.rank_pids, ", "));
}

/// "; its job's root is PID 4200 (torchrun)": the server the job's first
/// rank belongs to, as grouped; "" when it is not in the servers.
std::string job_root_words(const NodeSnapshot& s, const ProcessLimits& l) {
  for (const Server& sv : s.servers.value_or(std::vector<Server>{}))
    for (const ServerMember& m : sv.members)
      if (m.pid == l.pid && sv.root_pid)
        return fmt::format("; the job's root is PID {} ({})", *sv.root_pid, sv.kind);
  return "";
}

std::string job_title(const ProcessLimits& l, const std::string& size) {
  if (l.tensor_parallel.value_or(1) > 1)
    return fmt::format("/dev/shm is {} under a TP={} server: NCCL's shared-memory setup fails",
                       size, *l.tensor_parallel);
  return fmt::format("/dev/shm is {} under {} with {}: NCCL's shared-memory setup fails", size,
                     l.who, local_ranks_words(l));
}

Finding shm_finding(const NodeSnapshot& s, const ProcessLimits& l) {
  Finding f = node_finding("nccl.dev_shm_small");
  f.subject.pid = l.pid;
  f.action =
      "Recreate the container with a larger /dev/shm (NCCL's guide: --shm-size=1g "
      "--ulimit memlock=-1; Kubernetes: an emptyDir of medium Memory on /dev/shm).";
  f.commands = {
      "docker rm -f CONTAINER && docker run --shm-size=1g --ulimit memlock=-1 ...   "
      "# the same arguments otherwise"};
  f.evidence = fmt::format("{} runs", l.who);
  if (l.tensor_parallel) f.evidence += fmt::format(" with tensor parallel {}", *l.tensor_parallel);
  if (const std::string ranks = local_ranks_words(l); !ranks.empty())
    f.evidence += "; its NCCL peers on this node: " + ranks;
  f.evidence += job_root_words(s, l);
  return f;
}

/// One job's finding, if /dev/shm is too small for it or unknown.
void dev_shm_job(const NodeSnapshot& s, const CudaReadiness& r, const ProcessLimits& l,
                 std::vector<Finding>& out) {
  if (!has_local_peers(l)) return;
  const std::optional<uint64_t> need = shm_need_bytes(l);
  Finding f = shm_finding(s, l);
  if (!r.dev_shm_bytes) {
    const bool container = r.devices && r.devices->in_container;
    // Its ranks not seen, the host's tmpfs, or a bundle's replay: a bundle
    // holds no /dev/shm size (the recording judged the node's).
    if (!need || !container || s.bundle_replay) return;
    f.severity = Severity::kWarning;
    f.title = fmt::format(
        "/dev/shm's size could not be read under {} with {}: whether NCCL's shared memory fits "
        "is unknown",
        l.who, local_ranks_words(l));
    f.evidence = fmt::format(
                     "statvfs(/dev/shm) gave no size; NCCL's SHM transport needs at least "
                     "{} for its local ranks; ",
                     format_bytes(*need)) +
                 f.evidence;
    f.action = "Check that /dev/shm is mounted and large enough (df -h /dev/shm). " + f.action;
    out.push_back(f);
    return;
  }
  const uint64_t size = *r.dev_shm_bytes;
  const bool docker_default = size <= kDockerDefaultShmBytes;
  if (!docker_default && (!need || size >= *need)) return;
  f.title = job_title(l, format_bytes(size));
  std::string why = docker_default ? "Docker's default is 64 MiB" : "";
  if (need)
    why += fmt::format(
        "{}NCCL's SHM transport needs at least {} for {} local ranks ({} bytes each: its "
        "default LL, LL128 and SIMPLE buffers for one peer)",
        why.empty() ? "" : "; ", format_bytes(*need), l.rank_pids.size(), kNcclShmPeerBytes);
  f.evidence = fmt::format("/dev/shm {} (statvfs), {}; ", format_bytes(size), why) + f.evidence;
  out.push_back(f);
}

void memlock(const CudaReadiness& r, std::vector<Finding>& out) {
  if (!r.rdma_devices || r.rdma_devices->empty()) return;
  for (const ProcessLimits& l : r.limits) {
    if (!l.memlock_bytes || *l.memlock_bytes == kUnlimited) continue;
    Finding f = node_finding("nccl.memlock_limited");
    f.subject.pid = l.pid;
    f.title = fmt::format("{} may lock only {} of memory: NCCL over RDMA ({}) needs unlimited",
                          l.who, format_bytes(*l.memlock_bytes), fmt::join(*r.rdma_devices, ", "));
    f.evidence = fmt::format(
        "/proc/{}/limits: Max locked memory {} bytes; RDMA devices in "
        "/sys/class/infiniband: {}",
        l.pid, *l.memlock_bytes, fmt::join(*r.rdma_devices, ", "));
    f.action =
        "Start it with an unlimited memlock limit (docker: --ulimit memlock=-1; "
        "systemd: LimitMEMLOCK=infinity), or multi-node NCCL over InfiniBand fails to "
        "register its buffers.";
    f.commands = {
        "docker rm -f CONTAINER && docker run --ulimit memlock=-1 ...   # or "
        "LimitMEMLOCK=infinity in the unit"};
    out.push_back(f);
  }
}

}  // namespace

void check_nccl_limits(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.cuda) return;
  for (const ProcessLimits& l : s.cuda->limits) dev_shm_job(s, *s.cuda, l, out);
  memlock(*s.cuda, out);
}

}  // namespace gt
