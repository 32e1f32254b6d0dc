#include "sources/procfs/fabric_manager.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace fabric_manager_test {

// /proc/net/tcp as the kernel's tcp4_seq_show() prints it: Fabric Manager on
// 127.0.0.1:6666 (0100007F:1A0A) in LISTEN (0A), sshd on 0.0.0.0:22, one
// established connection to 6666 (01).
constexpr char kProcNetTcp[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
    "timeout inode\n"
    "   0: 0100007F:1A0A 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        "
    "0 41234 1 0000000000000000 100 0 0 10 0\n"
    "   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        "
    "0 20311 1 0000000000000000 100 0 0 10 0\n"
    "   2: 0100007F:D431 0100007F:1A0A 01 00000000:00000000 00:00000000 00000000     0        "
    "0 51234 1 0000000000000000 20 4 30 10 -1\n";

// /proc/net/unix as unix_seq_show() prints it: a listening socket (flags
// 00010000) and a connected one without a path.
constexpr char kProcNetUnix[] =
    "Num       RefCount Protocol Flags    Type St Inode Path\n"
    "0000000000000000: 00000002 00000000 00010000 0001 01 38211 /run/nvidia-fabricmanager/fm.sock\n"
    "0000000000000000: 00000003 00000000 00000000 0001 03 38250\n"
    "0000000000000000: 00000003 00000000 00000000 0001 03 38251 /run/other.sock\n";

TEST(FabricManagerSigns, TcpListenersInTheKernelsFormat) {
  EXPECT_EQ(parse_tcp_listeners(kProcNetTcp),
            (std::vector<TcpListener>{{"127.0.0.1", 6666}, {"0.0.0.0", 22}}));
  EXPECT_TRUE(parse_tcp_listeners("").empty());
  EXPECT_TRUE(parse_tcp_listeners("   0: 0100007F:1A0A\n   1: zz:1A0A 0 0A\n").empty());
}

TEST(FabricManagerSigns, UnixListenersByTheAcceptFlag) {
  EXPECT_EQ(parse_unix_listeners(kProcNetUnix),
            (std::vector<std::string>{"/run/nvidia-fabricmanager/fm.sock"}));
}

TEST(FabricManagerSigns, TheConfigsCommandSocketAndItsDefaults) {
  EXPECT_EQ(parse_fabricmanager_cfg(""), (FmCommandSocket{"127.0.0.1", 6666, std::nullopt}));
  const FmCommandSocket s = parse_fabricmanager_cfg(
      "# Description: TCP port number for Fabric Manager SDK/API\n"
      "LOG_LEVEL=4\n"
      "FM_CMD_BIND_INTERFACE=10.0.0.5\n"
      "FM_CMD_PORT_NUMBER=16001\n"
      "FM_CMD_UNIX_SOCKET_PATH=\n");
  EXPECT_EQ(s, (FmCommandSocket{"10.0.0.5", 16001, std::nullopt}));
  EXPECT_EQ(parse_fabricmanager_cfg("FM_CMD_UNIX_SOCKET_PATH=/run/fm.sock\n").unix_path,
            "/run/fm.sock");
  // A value that does not read leaves the socket unknown, never the default
  // (a listener may be on the port meant).
  for (const char* cfg : {"FM_CMD_PORT_NUMBER=66666\n", "FM_CMD_BIND_INTERFACE=lo\n",
                          "FM_CMD_PORT_NUMBER=abc\n", "FM_CMD_PORT_NUMBER = 6667 # the SDK's\n"})
    EXPECT_TRUE(parse_fabricmanager_cfg(cfg).unreadable) << cfg;
}

// Trial finding (issue 49): a /proc/net/tcp that is not the kernel's table,
// or a config whose port does not read, said "nothing listening" and 802.
TEST(FabricManagerSigns, WhatDoesNotReadIsUnknownNotSilence) {
  TempTree t;
  t.write("/proc/net/tcp", "garbage\nmore garbage\n");
  EXPECT_EQ(read_fabric_manager_signs(t.root()).listening, std::nullopt);
  t.write("/proc/net/tcp", kProcNetTcp);
  t.write("/usr/share/nvidia/nvswitch/fabricmanager.cfg", "FM_CMD_PORT_NUMBER=99999\n");
  const FabricManagerSigns s = read_fabric_manager_signs(t.root());
  EXPECT_EQ(s.listening, std::nullopt);
  EXPECT_EQ(s.socket, "unknown (fabricmanager.cfg: FM_CMD_PORT_NUMBER=99999)");
}

TEST(FabricManagerSigns, ReadFromATree) {
  TempTree t;
  t.write("/proc/net/tcp", kProcNetTcp);
  t.write("/run/systemd/units/invocation:ssh.service", "");
  FabricManagerSigns s = read_fabric_manager_signs(t.root());
  EXPECT_EQ(s.listening, true);
  EXPECT_EQ(s.socket, "127.0.0.1:6666");
  EXPECT_EQ(s.unit_active, false);  // systemd's directory, without the unit's link
  t.symlink("2f0c8a7e5e3a4c5f9d1e2b3c4d5e6f70",
            "/run/systemd/units/invocation:nvidia-fabricmanager.service");
  EXPECT_EQ(read_fabric_manager_signs(t.root()).unit_active, true);

  // The config moves the socket: nothing listens on 16001.
  t.write("/usr/share/nvidia/nvswitch/fabricmanager.cfg", "FM_CMD_PORT_NUMBER=16001\n");
  s = read_fabric_manager_signs(t.root());
  EXPECT_EQ(s.listening, false);
  EXPECT_EQ(s.socket, "127.0.0.1:16001");
}

TEST(FabricManagerSigns, NothingReadableIsUnknownNotAbsent) {
  TempTree t;
  const FabricManagerSigns s = read_fabric_manager_signs(t.root());
  EXPECT_EQ(s.unit_active, std::nullopt);
  EXPECT_EQ(s.listening, std::nullopt);
}

}  // namespace fabric_manager_test
}  // namespace gt
