#include "sources/cuda/device_nodes.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace {

void driver_gpu(const TempTree& t, const std::string& bus, int minor) {
  t.write("/proc/driver/nvidia/gpus/" + bus + "/information",
          "Model: \t\t NVIDIA H100 80GB HBM3\nBus Location: \t " + bus + "\nDevice Minor: \t " +
              std::to_string(minor) + "\nGPU Excluded:\t No\n");
}

NodeSnapshot nvml_up() {
  NodeSnapshot s;
  s.nvml.loaded = s.nvml.initialized = true;
  return s;
}

}  // namespace

TEST(DeviceNodes, AContainerWithoutUvmAndOneGpuNode) {
  TempTree t;
  t.write("/.dockerenv", "");
  t.write("/dev/nvidiactl", "");
  t.write("/dev/nvidia0", "");
  driver_gpu(t, "0000:19:00.0", 0);
  driver_gpu(t, "0000:3b:00.0", 1);
  t.write("/proc/modules", "nvidia 1 0 - Live 0x0\nnvidia_modeset 1 0 - Live 0x0\n");
  std::optional<CudaDeviceNodes> d = read_device_nodes(t.root(), nvml_up());
  ASSERT_TRUE(d);
  EXPECT_EQ(d->nvidiactl, true);
  EXPECT_EQ(d->nvidia_uvm, false);
  EXPECT_EQ(d->uvm_module_loaded, false);  // nvidia_modeset is not nvidia_uvm
  EXPECT_TRUE(d->in_container);
  ASSERT_EQ(d->missing_gpu_nodes.size(), 1u);
  EXPECT_EQ(d->missing_gpu_nodes[0], (std::pair<uint32_t, std::string>{1, "0000:3b:00.0"}));
}

TEST(DeviceNodes, UnknownWhenTheTreeIsNotTheDevNvmlOpened) {
  TempTree t;
  driver_gpu(t, "0000:19:00.0", 0);
  EXPECT_FALSE(read_device_nodes(t.root(), nvml_up()));  // no nvidiactl, NVML answers
  NodeSnapshot down;
  EXPECT_TRUE(read_device_nodes(t.root(), down));  // NVML down: the nodes are judged
}

TEST(DeviceNodes, ADirectoryIsNotADeviceAndAnUnparsedMinorIsANote) {
  TempTree t;
  t.write("/dev/nvidiactl", "");
  t.write("/dev/nvidia-uvm/x", "");
  t.write("/proc/driver/nvidia/gpus/0000:19:00.0/information", "Device Minor: \t zero\n");
  t.write("/sys/module/nvidia_uvm/refcnt", "0\n");
  std::optional<CudaDeviceNodes> d = read_device_nodes(t.root(), nvml_up());
  ASSERT_TRUE(d);
  EXPECT_EQ(d->nvidia_uvm, false);
  EXPECT_EQ(d->uvm_module_loaded, true);  // /sys/module when /proc/modules is absent
  EXPECT_TRUE(d->missing_gpu_nodes.empty());
  ASSERT_EQ(d->notes.size(), 2u);
  EXPECT_NE(d->notes[0].find("has no Device Minor line"), std::string::npos);
  EXPECT_EQ(d->notes[1], "/dev/nvidia-uvm exists but is not a character device");
}

TEST(DeviceNodes, UnderTheRealRootOnlyACharacterDeviceCounts) {
  TempTree t;
  t.write("/nvidia-uvm", "");
  FsRoot live("/");
  std::vector<std::string> notes;
  EXPECT_TRUE(node_present(live, "/dev/null", notes));  // a character device everywhere
  EXPECT_FALSE(node_present(live, t.path("/nvidia-uvm"), notes));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], t.path("/nvidia-uvm") + " exists but is not a character device");
  EXPECT_TRUE(node_present(t.root(), "/nvidia-uvm", notes));  // a fixture's stand-in
  EXPECT_FALSE(node_present(live, t.path("/absent"), notes));
}

}  // namespace gt
