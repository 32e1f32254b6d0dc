// Issue 12, items B, C, D: no GPU at all is UNKNOWN (or a count mismatch
// when GPUs are expected); advice fits the context (no sudo as root, the
// kernel log's real failure, what holds the modules); every --path judged.
#include <gtest/gtest.h>

#include <algorithm>

#include "checks/checks.h"
#include "checks/registry.h"
#include "checks/test_node.h"
#include "holders/stop.h"

namespace gt {
namespace advice_test {

const Finding* find(const Report& r, const std::string& id) {
  for (const Finding& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

bool any_command_has(const Report& r, const std::string& needle) {
  for (const Finding& f : r.findings)
    for (const std::string& c : f.commands)
      if (c.find(needle) != std::string::npos) return true;
  for (const PlanStep& p : r.plan)
    for (const std::string& c : p.commands)
      if (c.find(needle) != std::string::npos) return true;
  return false;
}

/// Nothing NVIDIA here: no library, nothing on the bus, no module; the
/// kernel log unreadable too (it must not matter).
Report no_gpu() {
  Report r;
  r.snapshot.nvml.library_path = "libnvidia-ml.so.1";
  r.snapshot.nvml.init_error = NvmlInitError::kLibraryNotFound;
  r.snapshot.kernel_log = KernelLog{};
  r.snapshot.kernel_log->sources = {
      {"/dev/kmsg", LogBoot::kCurrent, false, std::string("permission denied"), 0}};
  return r;
}

TEST(NoGpu, NothingToCheckIsUnknownWithNoFindings) {
  Report r = no_gpu();
  judge(r, {});
  EXPECT_TRUE(r.could_not_check);
  EXPECT_EQ(verdict_word(r), "UNKNOWN");
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().id;
  EXPECT_TRUE(r.plan.empty());
}

TEST(NoGpu, ExpectedGpusMakeItACriticalCountMismatch) {
  Report r = no_gpu();
  CheckOptions o;
  o.expect_gpus = 8;
  judge(r, o);
  EXPECT_FALSE(r.could_not_check);
  const Finding* f = find(r, "gpu.count_mismatch");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kCritical);
  EXPECT_NE(f->title.find("expected 8"), std::string::npos);
  EXPECT_EQ(verdict_word(r), "CRITICAL");
}

TEST(NoGpu, ALoadedModuleIsADriverWithoutItsLibrary) {
  Report r = no_gpu();
  r.snapshot.kernel_module_version = "570.133.20";
  judge(r, {});
  EXPECT_FALSE(r.could_not_check);
  EXPECT_TRUE(find(r, "nvml.library_missing"));
}

TEST(Sudo, DroppedInFrontOfEveryChainedCommandOnly) {
  EXPECT_EQ(without_sudo("sudo reboot"), "reboot");
  EXPECT_EQ(without_sudo("sudo systemctl isolate x && sudo rmmod a b"),
            "systemctl isolate x && rmmod a b");
  EXPECT_EQ(without_sudo("sudo journalctl -k | grep x"), "journalctl -k | grep x");
  EXPECT_EQ(without_sudo("sudo -u nvpd true"), "sudo -u nvpd true");
  EXPECT_EQ(without_sudo("echo pseudo sudo x"), "echo pseudo sudo x");
  // Quoted or escaped, ";" and "sudo" are text: the command is kept whole.
  EXPECT_EQ(without_sudo("echo 'a; sudo rm x'"), "echo 'a; sudo rm x'");
  EXPECT_EQ(without_sudo("echo \"a && sudo rm x\"; sudo true"), "echo \"a && sudo rm x\"; true");
  EXPECT_EQ(without_sudo("echo a\\; sudo rm"), "echo a\\; sudo rm");
  EXPECT_EQ(without_sudo("(sudo a) | sudo b"), "(a) | b");
}

TEST(Sudo, NoneAsRootSomeOtherwise) {
  Report r = healthy_node();
  r.snapshot.gpus[3].status = GpuStatus::kLost;
  r.snapshot.gpus[2].persistence_mode = false;
  Report user = r;
  judge(user, {});
  EXPECT_TRUE(any_command_has(user, "sudo "));
  CheckOptions root;
  root.running_as_root = true;
  judge(r, root);
  EXPECT_FALSE(any_command_has(r, "sudo ")) << r.plan.front().commands.front();
  EXPECT_TRUE(any_command_has(r, "reboot"));
}

Report log_failing(std::vector<KernelLog::Source> sources) {
  Report r = healthy_node();
  r.snapshot.kernel_log->sources = std::move(sources);
  return r;
}

TEST(KernelLogCause, NoPersistentJournalIsNotAPermissionProblem) {
  Report r = log_failing(
      {{"/dev/kmsg", LogBoot::kCurrent, true, std::nullopt, 100},
       {"journalctl -k -b -1", LogBoot::kPrevious, false,
        std::string("Specifying boot ID or boot offset has no effect, no persistent journal "
                    "was found."),
        0}});
  judge(r, {});
  const Finding* f = find(r, "kernel_log.unreadable");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_NE(f->evidence.find("no persistent journal"), std::string::npos) << f->evidence;
  EXPECT_EQ(f->action.find("root"), std::string::npos) << f->action;
  EXPECT_NE(f->action.find("/var/log/journal"), std::string::npos) << f->action;
  r = log_failing({{"/dev/kmsg", LogBoot::kCurrent, true, std::nullopt, 100},
                   {"journalctl -k -b -1", LogBoot::kPrevious, false,
                    std::string("No journal files were found."), 0}});
  judge(r, {});
  EXPECT_NE(find(r, "kernel_log.unreadable")->evidence.find("no persistent journal"),
            std::string::npos);
}

TEST(KernelLogCause, EachSourceSaysWhatFailed) {
  Report r = log_failing({{"/dev/kmsg", LogBoot::kCurrent, false,
                           std::string("permission denied (run as root or with CAP_SYSLOG)"), 0},
                          {"journalctl -k -b -1", LogBoot::kPrevious, false,
                           std::string("cannot run journalctl: No such file or directory"), 0}});
  judge(r, {});
  const Finding* f = find(r, "kernel_log.unreadable");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->evidence.find("permission denied (not root)"), std::string::npos) << f->evidence;
  EXPECT_NE(f->evidence.find("journalctl is not installed"), std::string::npos) << f->evidence;
  EXPECT_NE(f->action.find("--kernel-log"), std::string::npos);
  CheckOptions root;
  root.running_as_root = true;
  judge(r = log_failing(
            {{"/dev/kmsg", LogBoot::kCurrent, false, std::string("permission denied"), 0}}),
        root);
  EXPECT_NE(find(r, "kernel_log.unreadable")->evidence.find("CAP_SYSLOG"), std::string::npos);
  EXPECT_FALSE(any_command_has(r, "sudo"));
  r = log_failing({{"/dev/kmsg", LogBoot::kCurrent, true, std::nullopt, 100},
                   {"journalctl -k -b -1", LogBoot::kPrevious, false,
                    std::string("timed out after 3000 ms"), 0}});
  judge(r, {});
  EXPECT_NE(find(r, "kernel_log.unreadable")->evidence.find("timed out"), std::string::npos);
}

// A --kernel-log FILE that cannot be opened (a mistyped path): the title
// names the file and why, and the advice is not to pass --kernel-log.
TEST(KernelLogCause, AMissingKernelLogFileIsNamedInTheTitle) {
  Report r =
      log_failing({{"/var/log/kern.lgo", LogBoot::kFile, false,
                    std::string("cannot open /var/log/kern.lgo: No such file or directory"), 0}});
  judge(r, {});
  const Finding* f = find(r, "kernel_log.unreadable");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->title, "--kernel-log /var/log/kern.lgo: no such file: Xid errors are unknown");
  EXPECT_EQ(f->action.find("pass a saved log"), std::string::npos) << f->action;
  EXPECT_NE(f->action.find("Check the path given to --kernel-log"), std::string::npos) << f->action;
}

// systemd before 254 says "No such boot ID" both for a first boot and for
// a journal that is not persistent: a note that says both, no permission talk.
TEST(KernelLogCause, NoEarlierBootSaysBothMeanings) {
  Report r = log_failing(
      {{"/dev/kmsg", LogBoot::kCurrent, true, std::nullopt, 100},
       {"journalctl -k -b -1", LogBoot::kPrevious, false,
        std::string("Data from the specified boot (-1) is not available: No such boot ID in "
                    "journal"),
        0}});
  judge(r, {});
  const Finding* f = find(r, "kernel_log.unreadable");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_NE(f->evidence.find("not persistent"), std::string::npos) << f->evidence;
  EXPECT_EQ(f->action.find("root"), std::string::npos) << f->action;
}

TEST(KernelLogCause, ABootReadElsewhereIsNoFinding) {
  Report r = log_failing({{"/dev/kmsg", LogBoot::kCurrent, true, std::nullopt, 100},
                          {"journalctl -k -b -1", LogBoot::kPrevious, false,
                           std::string("No journal files were found."), 0},
                          {"/var/log/kern.log", LogBoot::kPrevious, true, std::nullopt, 5000}});
  judge(r, {});
  EXPECT_FALSE(find(r, "kernel_log.unreadable"));
}

Report mismatch_with_holders() {
  Report r = healthy_node();
  NodeSnapshot& s = r.snapshot;
  s.nvml.initialized = false;
  s.nvml.init_error = NvmlInitError::kVersionMismatch;
  s.nvml.library_version = "570.124.06";
  s.kernel_module_version = "570.133.20";
  s.gpus.clear();
  s.nvidia_modules = {{"nvidia_peermem", 0, {}},
                      {"nvidia_uvm", 0, {}},
                      {"nvidia_drm", 2, {}},
                      {"nvidia_modeset", 1, {"nvidia_drm"}},
                      {"nvidia", 30, {"nvidia_modeset", "nvidia_peermem", "nvidia_uvm"}}};
  s.nvidia_services = {
      {"nvidia-persistenced", 2210, "nvidia-persiste", std::string("nvidia-persistenced.service")},
      {"Fabric Manager", 2305, "nv-fabricmanage", std::nullopt},
      {"DCGM", 2400, "nv-hostengine", std::string("nvidia-dcgm.service")}};
  return r;
}

TEST(ModuleReload, MismatchRecipeNamesWhatHoldsTheModulesAndTheUnloadOrder) {
  Report r = mismatch_with_holders();
  judge(r, {});
  const Finding* f = find(r, "nvml.version_mismatch");
  ASSERT_TRUE(f);
  for (const char* what : {"nvidia-persistenced (PID 2210", "Fabric Manager (PID 2305",
                           "DCGM (PID 2400", "module nvidia_peermem", "nvidia_drm in use 2"})
    EXPECT_NE(f->evidence.find(what), std::string::npos) << what << " in " << f->evidence;
  EXPECT_NE(f->action.find("nvidia_peermem, nvidia_uvm, nvidia_drm, nvidia_modeset, nvidia"),
            std::string::npos)
      << f->action;
  const std::vector<std::string>& c = f->commands;
  auto at = [&](const std::string& s) {
    return std::find_if(c.begin(), c.end(),
                        [&](const std::string& x) { return x.find(s) != std::string::npos; }) -
           c.begin();
  };
  EXPECT_LT(at("reboot"), at("rmmod")) << "reboot is the simple path, named first";
  EXPECT_LT(at("systemctl stop nvidia-persistenced.service nvidia-fabricmanager.service "
               "nvidia-dcgm.service"),
            at("rmmod"));
  EXPECT_LT(at("isolate multi-user.target"), at("rmmod"));
  EXPECT_LT(at("rmmod nvidia_peermem nvidia_uvm nvidia_drm nvidia_modeset nvidia"),
            static_cast<long>(c.size()));
  EXPECT_LT(at("rmmod"), at("modprobe -a nvidia nvidia_modeset nvidia_drm nvidia_uvm "
                            "nvidia_peermem"));
}

TEST(ModuleReload, UnknownHoldersStillGiveTheFullOrder) {
  Report r = mismatch_with_holders();
  r.snapshot.nvidia_modules.clear();
  r.snapshot.nvidia_services.clear();
  judge(r, {});
  const Finding* f = find(r, "nvml.version_mismatch");
  ASSERT_TRUE(f);
  EXPECT_NE(f->evidence.find("unknown"), std::string::npos) << f->evidence;
  EXPECT_TRUE(
      any_command_has(r, "rmmod nvidia_peermem nvidia_uvm nvidia_drm nvidia_modeset nvidia"));
}

TEST(ModuleReload, AnUpgradeWithoutARebootListsTheProcessesOnTheOldFilesAsHolders) {
  Report r = healthy_node();
  r.snapshot.nvml.initialized = false;  // the installed 590 NVML is refused
  r.snapshot.nvml.init_error = NvmlInitError::kVersionMismatch;
  r.snapshot.nvml.library_version = "590.48.01";   // installed, newer
  r.snapshot.kernel_module_version = "580.95.05";  // still running
  r.snapshot.gpus.clear();
  ProcessMappings p;  // found by its maps: NVML lists nothing
  p.pid = 4242;
  p.who = "pid 4242 (python3)";
  p.libraries = {{"/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05", "580.95.05", true}};
  r.snapshot.cuda = CudaReadiness{};
  r.snapshot.cuda->mapped.push_back(p);
  judge(r, {});
  const Finding* f = find(r, "nvml.version_mismatch");
  ASSERT_TRUE(f);
  EXPECT_NE(f->evidence.find("GPU processes 4242"), std::string::npos) << f->evidence;
  EXPECT_TRUE(any_command_has(r, "rmmod"));
}

TEST(Disks, APathOnTheFilesystemOfAnotherIsJudgedOnceNamingBoth) {
  Report r = healthy_node();
  r.snapshot.disks[0].available_bytes = 20;  // 2% of 1000
  DiskUsage data = r.snapshot.disks[0];
  data.path = "/data";
  data.same_filesystem_as = "/";
  r.snapshot.disks.push_back(data);
  judge(r, {});
  int low = 0;
  for (const Finding& f : r.findings)
    if (f.id == "disk.low_space") {
      ++low;
      EXPECT_NE(f.title.find("/ (and /data)"), std::string::npos) << f.title;
    }
  EXPECT_EQ(low, 1);
}

}  // namespace advice_test
}  // namespace gt
