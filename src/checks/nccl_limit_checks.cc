// NCCL's limits in a container (sources/cuda/nccl_limits.h). NCCL's
// troubleshooting guide ("Docker"): NCCL creates shared-memory segments in
// /dev/shm for intra-node transport, and containers default to limited
// shared and pinned memory; its advice is `--shm-size=1g --ulimit
// memlock=-1`. The rule here, no finer than what is documented: /dev/shm of
// Docker's default 64 MiB or less under a job with NCCL peers on this node
// (two or more of its processes on GPUs, or a server of TP > 1) fails
// NCCL's setup (critical); NCCL documents no size per local peer, so none
// is computed; a memlock limit other than unlimited on a node with RDMA
// devices limits the memory the InfiniBand transport can register (warning).
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

/// The first job with NCCL peers on this node: two or more of its
/// processes on GPUs here (torchrun, DeepSpeed or accelerate workers, MPI
/// ranks, a server's rank processes), or a tensor-parallel size above 1 (a
/// server that keeps its ranks in one process tree it does not show).
const ProcessLimits* multi_process_job(const CudaReadiness& r) {
  for (const ProcessLimits& l : r.limits)
    if (l.rank_pids.size() > 1 || l.tensor_parallel.value_or(1) > 1) return &l;
  return nullptr;
}

/// "8 local ranks (pids 101, 102, ...)", or "" with fewer than two.
std::string local_ranks_words(const ProcessLimits& l) {
  if (l.rank_pids.size() < 2) return "";
  return fmt::format("{} local ranks (pids {})", l.rank_pids.size(), fmt::join(l.rank_pids, ", "));
}

void dev_shm(const CudaReadiness& r, std::vector<Finding>& out) {
  const ProcessLimits* job = multi_process_job(r);
  if (!r.dev_shm_bytes || *r.dev_shm_bytes > kDockerDefaultShmBytes || !job) return;
  Finding f = node_finding("nccl.dev_shm_small");
  f.subject.pid = job->pid;
  const std::string ranks = local_ranks_words(*job);
  f.title =
      job->tensor_parallel.value_or(1) > 1
          ? fmt::format("/dev/shm is {} under a TP={} server: NCCL's shared-memory setup fails",
                        format_bytes(*r.dev_shm_bytes), *job->tensor_parallel)
          : fmt::format("/dev/shm is {} under {} with {}: NCCL's shared-memory setup fails",
                        format_bytes(*r.dev_shm_bytes), job->who, ranks);
  f.evidence = fmt::format("/dev/shm {} (statvfs), Docker's default is 64 MiB; {} runs",
                           format_bytes(*r.dev_shm_bytes), job->who);
  if (job->tensor_parallel)
    f.evidence += fmt::format(" with tensor parallel {}", *job->tensor_parallel);
  if (!ranks.empty()) f.evidence += "; its NCCL peers on this node: " + ranks;
  f.action =
      "Recreate the container with a larger /dev/shm (NCCL's guide: --shm-size=1g "
      "--ulimit memlock=-1; Kubernetes: an emptyDir of medium Memory on /dev/shm).";
  f.commands = {
      "docker rm -f CONTAINER && docker run --shm-size=1g --ulimit memlock=-1 ...   "
      "# the same arguments otherwise"};
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
  dev_shm(*s.cuda, out);
  memlock(*s.cuda, out);
}

}  // namespace gt
