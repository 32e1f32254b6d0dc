// /proc/PID files (cmdline, stat, status, cgroup, comm, environ, net/tcp and
// tcp6) and /proc/stat: each input is every one of them for one GPU
// process, then the process details, the process tree, the cgroup owner,
// listening ports and server grouping read them, and the report is judged
// and rendered. No parser of the tool reads environ; it is written so that
// a reader added later is fuzzed too.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "report_pipeline.h"
#include "sources/procfs/cgroup_owner.h"
#include "sources/procfs/process_info.h"
#include "sources/procfs/process_tree.h"
#include "sources/procfs/servers.h"
#include "tree_target.h"

namespace {

const gt::fuzz::ScratchTree& tree() {
  static const gt::fuzz::ScratchTree t = [] {
    gt::fuzz::ScratchTree s;
    // Socket links for listening_ports: the inodes the input's tables name.
    s.link("socket:[12345]", "/proc/4242/fd/3");
    s.link("socket:[2]", "/proc/4242/fd/4");
    s.link("/dev/nvidia0", "/proc/4242/fd/5");
    return s;
  }();
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const gt::fuzz::ScratchTree& t = tree();
  for (const char* f :
       {"cmdline", "stat", "status", "cgroup", "comm", "environ", "net/tcp", "net/tcp6"})
    t.write(std::string("/proc/4242/") + f, text);
  t.write("/proc/stat", text);
  (void)gt::parse_proc_stat(text);
  (void)gt::parse_cgroup_owner(text);
  const gt::FsRoot root = t.root();
  (void)gt::read_proc(root, 4242);
  (void)gt::read_boot_time_unix_s(root);
  (void)gt::listening_ports(root, 4242);
  gt::Report report;
  gt::GpuState g;
  g.index = 0;
  g.uuid = "GPU-fuzz";
  g.pci_bus_id = "00000000:19:00.0";
  gt::GpuProcess p;
  p.pid = 4242;
  p.type = "compute";
  p.used_memory_bytes = 1 << 30;
  gt::fill_process_details(root, p);
  g.processes = std::vector<gt::GpuProcess>{p};
  report.snapshot.gpus.push_back(g);
  report.snapshot.servers = gt::group_servers(report.snapshot, &root);
  gt::judge_and_render(report);
  return 0;
}
