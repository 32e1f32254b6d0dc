#include "sources/procfs/stuck_tasks.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace stuck_tasks_test {

// A /proc/PID/stat line (52 fields, proc(5)) with `threads` in field 20.
std::string stat_line(uint32_t pid, const std::string& comm, char state, uint32_t threads = 1) {
  return std::to_string(pid) + " (" + comm + ") " + state +
         " 1 100 100 0 -1 4194560 0 0 0 0 12 3 0 0 20 0 " + std::to_string(threads) +
         " 0 1500 20480000 3000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0 "
         "0 0 0 0 0 0 0\n";
}

// The nvidia_uvm frames of a real hang (rwth-i6/returnn#1480), as
// /proc/PID/stack prints them on a current kernel (addresses hidden).
constexpr char kUvmStack[] =
    "[<0>] __schedule+0x23d/0x590\n"
    "[<0>] schedule+0x4e/0xb0\n"
    "[<0>] schedule_preempt_disabled+0xe/0x10\n"
    "[<0>] __mutex_lock.constprop.0+0x263/0x490\n"
    "[<0>] uvm_page_tree_get_ptes_async+0x93/0x970 [nvidia_uvm]\n"
    "[<0>] uvm_ioctl+0x13e0/0x16f0 [nvidia_uvm]\n"
    "[<0>] __x64_sys_ioctl+0x92/0xd0\n"
    "[<0>] do_syscall_64+0x59/0x90\n";

constexpr char kNfsStack[] =
    "[<0>] rpc_wait_bit_killable+0x1e/0xa0 [sunrpc]\n"
    "[<0>] __rpc_execute+0x11a/0x3c0 [sunrpc]\n"
    "[<0>] nfs4_proc_getattr+0x83/0x110 [nfsv4]\n"
    "[<0>] vfs_statx+0x8b/0x140\n";

void process(const TempTree& t, uint32_t pid, const std::string& comm, char state,
             uint32_t threads = 1) {
  const std::string d = "/proc/" + std::to_string(pid);
  t.write(d + "/stat", stat_line(pid, comm, state, threads));
  t.write(d + "/comm", comm + "\n");
}

TEST(TaskStat, CommWithSpacesAndParentheses) {
  std::optional<TaskStat> s = parse_task_stat(stat_line(4242, "a) R (b c)", 'D', 7));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->pid, 4242u);
  EXPECT_EQ(s->comm, "a) R (b c)");
  EXPECT_EQ(s->state, 'D');
  EXPECT_EQ(s->num_threads, 7u);
}

TEST(TaskStat, RejectsWhatIsNotAStatLine) {
  EXPECT_FALSE(parse_task_stat(""));
  EXPECT_FALSE(parse_task_stat("4242 python3 D 1"));
  EXPECT_FALSE(parse_task_stat("x (python3) D 1"));
  EXPECT_FALSE(parse_task_stat("4242 (python3)"));
  // Truncated before num_threads: the state is known, the count is not.
  std::optional<TaskStat> s = parse_task_stat("4242 (python3) D 1 2 3");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->state, 'D');
  EXPECT_FALSE(s->num_threads);
}

TEST(StackFrame, FirstNvidiaModuleFrame) {
  EXPECT_EQ(nvidia_stack_frame(kUvmStack), "uvm_page_tree_get_ptes_async+0x93/0x970 [nvidia_uvm]");
  // Old kernels print the address; every NVIDIA module counts.
  EXPECT_EQ(nvidia_stack_frame("[<ffffffffc0a1b2c3>] os_acquire_mutex+0x1f/0x30 [nvidia]\n"),
            "os_acquire_mutex+0x1f/0x30 [nvidia]");
  EXPECT_EQ(nvidia_stack_frame("[<0>] nvKmsIoctl+0x10/0x20 [nvidia_modeset]\n"),
            "nvKmsIoctl+0x10/0x20 [nvidia_modeset]");
  EXPECT_FALSE(nvidia_stack_frame(kNfsStack));
  // A module merely named like one, or a symbol named nvidia without a tag.
  EXPECT_FALSE(
      nvidia_stack_frame("[<0>] gdrdrv_ioctl+0x1/0x2 [gdrdrv]\n"
                         "[<0>] nvidia_like+0x1/0x2\n"
                         "[<0>] foo+0x1/0x2 [nvidiafb]\n"));
}

TEST(Wchan, NvidiaFamiliesOnly) {
  for (const char* yes : {"os_acquire_mutex", "os_acquire_rwlock_write", "nv_open_device",
                          "nvidia_ioctl", "uvm_gpu_retain_by_uuid", "nvkms_ioctl", "_nv012345rm"})
    EXPECT_TRUE(nvidia_wchan(yes)) << yes;
  for (const char* no : {"rpc_wait_bit_killable", "io_schedule", "os_", "nv_", "osq_lock",
                         "_nvme_submit", "nvme_poll", "0", ""})
    EXPECT_FALSE(nvidia_wchan(no)) << no;
}

TEST(StuckTasks, DTaskWithNvidiaFrame) {
  TempTree t;
  process(t, 1, "systemd", 'S');
  process(t, 4242, "python3", 'D');
  t.write("/proc/4242/wchan", "uvm_page_tree_get_ptes_async");
  t.write("/proc/4242/stack", kUvmStack);
  auto tasks = read_stuck_nvidia_tasks(t.root());
  ASSERT_TRUE(tasks);
  ASSERT_EQ(tasks->size(), 1u);
  const StuckTask& s = tasks->front();
  EXPECT_EQ(s.pid, 4242u);
  EXPECT_FALSE(s.tid);
  EXPECT_EQ(s.comm, "python3");
  EXPECT_EQ(s.wchan, "uvm_page_tree_get_ptes_async");
  EXPECT_EQ(s.nvidia_frame, "uvm_page_tree_get_ptes_async+0x93/0x970 [nvidia_uvm]");
  EXPECT_FALSE(s.sleeping_s);  // /proc does not say
}

TEST(StuckTasks, OneThreadOfAMultiThreadedProcess) {
  TempTree t;
  process(t, 500, "python3", 'S', 3);
  for (uint32_t tid : {500u, 501u})
    t.write("/proc/500/task/" + std::to_string(tid) + "/stat", stat_line(tid, "python3", 'S'));
  t.write("/proc/500/task/502/stat", stat_line(502, "pt_nvml (1)", 'D'));
  t.write("/proc/500/task/502/stack", "[<0>] os_acquire_mutex+0x1f/0x30 [nvidia]\n");
  t.write("/proc/500/task/502/wchan", "os_acquire_mutex");
  auto tasks = read_stuck_nvidia_tasks(t.root());
  ASSERT_TRUE(tasks);
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ(tasks->front().pid, 500u);
  EXPECT_EQ(tasks->front().tid, 502u);
  EXPECT_EQ(tasks->front().comm, "python3");  // the process's /proc/PID/comm
  EXPECT_EQ(tasks->front().nvidia_frame, "os_acquire_mutex+0x1f/0x30 [nvidia]");
}

TEST(StuckTasks, StuckMainThreadIsNotCountedTwice) {
  TempTree t;
  process(t, 600, "nvidia-smi", 'D', 2);
  t.write("/proc/600/task/600/stat", stat_line(600, "nvidia-smi", 'D'));
  t.write("/proc/600/task/601/stat", stat_line(601, "nvidia-smi", 'S'));
  t.write("/proc/600/stack", "[<0>] os_acquire_rwlock_write+0x3c/0x70 [nvidia]\n");
  auto tasks = read_stuck_nvidia_tasks(t.root());
  ASSERT_TRUE(tasks);
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_FALSE(tasks->front().tid);
}

TEST(StuckTasks, NonNvidiaDTaskIsIgnored) {
  TempTree t;
  t.write("/sys/module/nvidia/version", "570.133.20\n");
  process(t, 700, "rsync", 'D');
  t.write("/proc/700/stack", kNfsStack);
  // Even with a wait channel of an nvidia-looking name: the stack decides.
  t.write("/proc/700/wchan", "nv_lookalike");
  process(t, 701, "python3", 'S');  // sleeping in nvidia code is normal, not stuck
  t.write("/proc/701/stack", "[<0>] os_acquire_mutex+0x1f/0x30 [nvidia]\n");
  auto tasks = read_stuck_nvidia_tasks(t.root());
  ASSERT_TRUE(tasks);
  EXPECT_TRUE(tasks->empty());
}

TEST(StuckTasks, UnreadableStackFallsBackToWchanWhileTheModuleIsLoaded) {
  TempTree t;
  process(t, 800, "nvidia-smi", 'D');
  t.write("/proc/800/wchan", "os_acquire_mutex\n");  // no stack file: not root
  process(t, 801, "python3", 'D');
  t.write("/proc/801/wchan", "0");  // another user's task: the kernel says 0
  process(t, 802, "python3", 'D');  // nothing readable but /dev/nvidia0 open
  t.symlink("/dev/nvidia0", "/proc/802/fd/5");
  auto tasks = read_stuck_nvidia_tasks(t.root());
  ASSERT_TRUE(tasks);
  EXPECT_TRUE(tasks->empty()) << "no nvidia module loaded: a bare wchan is not enough";

  t.write("/sys/module/nvidia/version", "570.133.20\n");
  tasks = read_stuck_nvidia_tasks(t.root());
  ASSERT_TRUE(tasks);
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ(tasks->front().pid, 800u);
  EXPECT_EQ(tasks->front().wchan, "os_acquire_mutex");
  EXPECT_FALSE(tasks->front().nvidia_frame);
}

TEST(StuckTasks, CommFallsBackToStat) {
  TempTree t;
  t.write("/proc/900/stat", stat_line(900, "nv_queue", 'D'));  // comm vanished
  t.write("/proc/900/stack", "[<0>] nv_kthread_q_run_self_test+0x1/0x2 [nvidia]\n");
  auto tasks = read_stuck_nvidia_tasks(t.root());
  ASSERT_TRUE(tasks);
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ(tasks->front().comm, "nv_queue");
}

TEST(StuckTasks, NoProcIsNull) {
  TempTree t;
  EXPECT_FALSE(read_stuck_nvidia_tasks(t.root()));
  t.write("/proc/stat", "btime 1\n");
  auto tasks = read_stuck_nvidia_tasks(t.root());
  ASSERT_TRUE(tasks);
  EXPECT_TRUE(tasks->empty());
}

TEST(StuckTasks, TaskBudgetStopsTheScanAndSaysSo) {
  TempTree t;
  for (uint32_t pid = 100; pid < 110; ++pid) {
    process(t, pid, "python3", 'D');
    t.write("/proc/" + std::to_string(pid) + "/stack", "[<0>] os_acquire_mutex+0x1/0x2 [nvidia]\n");
  }
  StuckTaskLimits lim;
  lim.max_tasks = 4;
  std::vector<std::string> warnings;
  auto tasks = read_stuck_nvidia_tasks(t.root(), &warnings, lim);
  ASSERT_TRUE(tasks);
  EXPECT_EQ(tasks->size(), 4u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("stopped after 4 tasks"), std::string::npos) << warnings[0];

  lim = {};
  lim.max_d_tasks = 2;
  warnings.clear();
  tasks = read_stuck_nvidia_tasks(t.root(), &warnings, lim);
  EXPECT_EQ(tasks->size(), 2u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("10 tasks in state D"), std::string::npos) << warnings[0];
}

TEST(StuckTasks, FileReadsAreBounded) {
  TempTree t;
  process(t, 100, "python3", 'D');
  // The nvidia frame lies beyond the byte bound: never read, so not found.
  std::string stack;
  while (stack.size() < 20000) stack += "[<0>] some_kernel_function+0x10/0x20\n";
  t.write("/proc/100/stack", stack + "[<0>] os_acquire_mutex+0x1/0x2 [nvidia]\n");
  auto tasks = read_stuck_nvidia_tasks(t.root());
  ASSERT_TRUE(tasks);
  EXPECT_TRUE(tasks->empty());
  StuckTaskLimits lim;
  lim.max_file_bytes = 64 << 10;
  tasks = read_stuck_nvidia_tasks(t.root(), nullptr, lim);
  EXPECT_EQ(tasks->size(), 1u);
}

TEST(StuckTasks, OnlyATaskSeenAtBothEndsOfTheWindowCounts) {
  StuckTask a;
  a.pid = 10;
  StuckTask b;
  b.pid = 11;
  b.tid = 12;
  StuckTask c = b;
  c.tid = 13;  // another thread of the same process
  auto kept = persisting_tasks(std::vector<StuckTask>{a, b}, std::vector<StuckTask>{b, c});
  ASSERT_TRUE(kept);
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ((*kept)[0].tid, 12u);
  EXPECT_FALSE(persisting_tasks(std::nullopt, std::vector<StuckTask>{a}));
}

}  // namespace stuck_tasks_test
}  // namespace gt
