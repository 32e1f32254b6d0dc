// Whether Fabric Manager runs, from more than its process: its systemd unit
// and its command socket. systemd keeps the link
// /run/systemd/units/invocation:UNIT while a unit is active (src/core/unit.c,
// unit_export_invocation_id). Fabric Manager listens for its API on
// fabricmanager.cfg's FM_CMD_BIND_INTERFACE:FM_CMD_PORT_NUMBER (defaults
// 127.0.0.1 and 6666: NVIDIA's fabricmanager.cfg reference and
// nv_fm_agent.h's FM_CMD_PORT_NUMBER), or on FM_CMD_UNIX_SOCKET_PATH when
// that is set; a listener there shows it running where its process is not
// visible (a container sharing the host's network). docs/physics.md R11.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// Where Fabric Manager takes its API commands.
struct FmCommandSocket {
  std::string address = "127.0.0.1";
  uint16_t port = 6666;
  std::optional<std::string> unix_path;  ///< set: the unix socket instead of TCP
  /// A key of the socket's whose value does not read ("FM_CMD_PORT_NUMBER=
  /// 99999"): where Fabric Manager listens is then unknown, never guessed.
  std::optional<std::string> unreadable;
  bool operator==(const FmCommandSocket&) const = default;
};

/// fabricmanager.cfg's KEY=VALUE lines ('#' comment lines); keys absent or
/// empty keep Fabric Manager's defaults, a value that does not read is
/// `unreadable`.
FmCommandSocket parse_fabricmanager_cfg(std::string_view text);

/// An IPv4 TCP socket in LISTEN state.
struct TcpListener {
  std::string address;  ///< "127.0.0.1"
  uint16_t port = 0;
  bool operator==(const TcpListener&) const = default;
};

/// The LISTEN (st 0A) entries of /proc/net/tcp (proc(5): local_address is
/// the address in hex, in the kernel's byte order, and the port in hex).
std::vector<TcpListener> parse_tcp_listeners(std::string_view proc_net_tcp);

/// The paths of listening sockets in /proc/net/unix (flags __SO_ACCEPTCON,
/// 0x00010000).
std::vector<std::string> parse_unix_listeners(std::string_view proc_net_unix);

/// Reads the unit link, fabricmanager.cfg and /proc/net under `root`.
FabricManagerSigns read_fabric_manager_signs(const FsRoot& root);

}  // namespace gt
