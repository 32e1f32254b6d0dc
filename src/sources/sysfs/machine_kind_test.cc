#include "sources/sysfs/machine_kind.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace {

constexpr const char* kGuestCpu =
    "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae hypervisor lahf_lm\n\n"
    "processor\t: 1\nflags\t\t: fpu vme de pse tsc msr pae hypervisor lahf_lm\n";
constexpr const char* kHostCpu = "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae lahf_lm\n";

TEST(MachineKind, HypervisorFlagIsAVm) {
  TempTree t;
  t.write("/proc/cpuinfo", kGuestCpu);
  auto m = read_machine_kind(t.root());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, "vm");
  EXPECT_EQ(m->evidence, "cpuinfo: hypervisor flag");
}

TEST(MachineKind, QemuDmiIsAVmEvenWithoutTheFlag) {
  TempTree t;
  t.write("/sys/class/dmi/id/sys_vendor", "QEMU\n");
  t.write("/sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n");
  auto m = read_machine_kind(t.root());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, "vm");
  EXPECT_EQ(m->evidence, "DMI: QEMU Standard PC (Q35 + ICH9, 2009)");
}

TEST(MachineKind, ServerDmiWithoutTheFlagIsBareMetal) {
  TempTree t;
  t.write("/sys/class/dmi/id/sys_vendor", "Supermicro\n");
  t.write("/sys/class/dmi/id/product_name", "SYS-821GE-TNHR\n");
  t.write("/proc/cpuinfo", kHostCpu);
  auto m = read_machine_kind(t.root());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, "bare-metal");
  EXPECT_EQ(m->evidence, "DMI: Supermicro SYS-821GE-TNHR; cpuinfo: no hypervisor flag");
}

TEST(MachineKind, Ec2MetalIsBareMetalAndEc2InstanceIsAVm) {
  TempTree t;
  t.write("/sys/class/dmi/id/sys_vendor", "Amazon EC2\n");
  t.write("/sys/class/dmi/id/product_name", "p5.48xlarge\n");
  EXPECT_EQ(read_machine_kind(t.root())->kind, "vm");
  t.write("/sys/class/dmi/id/product_name", "p4d.metal\n");
  EXPECT_EQ(read_machine_kind(t.root())->kind, "bare-metal");
}

TEST(MachineKind, NothingReadableIsUnknown) {
  TempTree t;
  EXPECT_FALSE(read_machine_kind(t.root()));
  // An ARM cpuinfo has "Features", not "flags": still unknown without DMI.
  t.write("/proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd evtstrm\n");
  EXPECT_FALSE(read_machine_kind(t.root()));
}

}  // namespace
}  // namespace gt
