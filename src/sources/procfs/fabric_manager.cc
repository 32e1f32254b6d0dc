#include "sources/procfs/fabric_manager.h"

#include <arpa/inet.h>

#include "util/numeric.h"
#include "util/text.h"

namespace gt {
namespace {

constexpr const char* kFmConfig = "/usr/share/nvidia/nvswitch/fabricmanager.cfg";
constexpr const char* kFmUnitLink = "/run/systemd/units/invocation:nvidia-fabricmanager.service";
constexpr uint32_t kSoAcceptCon = 0x00010000;

std::string_view fm_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// "0100007F:1A0A" -> 127.0.0.1:6666.
std::optional<TcpListener> fm_local_address(std::string_view field) {
  const size_t colon = field.find(':');
  if (colon != 8) return std::nullopt;
  const std::optional<uint32_t> raw = parse_int<uint32_t>(field.substr(0, 8), 16);
  const std::optional<uint16_t> port = parse_int<uint16_t>(field.substr(9), 16);
  if (!raw || !port) return std::nullopt;
  // The kernel prints the address as the in-memory word, network order.
  char text[INET_ADDRSTRLEN] = {};
  const uint32_t word = *raw;
  if (!inet_ntop(AF_INET, &word, text, sizeof text)) return std::nullopt;
  return TcpListener{text, *port};
}

/// Whether `text` begins with the kernel's header line of that file (its
/// column names): anything else is not the file, and says nothing.
bool fm_kernel_table(std::string_view text, std::string_view column) {
  return text.substr(0, std::min(text.find('\n'), text.size())).find(column) !=
         std::string_view::npos;
}

std::optional<bool> fm_listening(const FsRoot& root, const FmCommandSocket& sock) {
  if (sock.unreadable) return std::nullopt;
  if (sock.unix_path) {
    Result<std::string> unix_text = root.read("/proc/net/unix");
    if (!unix_text || !fm_kernel_table(*unix_text, "RefCount")) return std::nullopt;
    for (const std::string& p : parse_unix_listeners(*unix_text))
      if (p == *sock.unix_path) return true;
    return false;
  }
  Result<std::string> tcp = root.read("/proc/net/tcp");
  if (!tcp || !fm_kernel_table(*tcp, "local_address")) return std::nullopt;
  for (const TcpListener& l : parse_tcp_listeners(*tcp))
    if (l.port == sock.port && (l.address == sock.address || l.address == "0.0.0.0")) return true;
  return false;
}

std::optional<bool> fm_unit_active(const FsRoot& root) {
  if (root.read_link(kFmUnitLink)) return true;
  // systemd's directory there without the link: the unit is not active.
  if (root.list("/run/systemd/units")) return false;
  return std::nullopt;
}

}  // namespace

FmCommandSocket parse_fabricmanager_cfg(std::string_view text) {
  FmCommandSocket s;
  for (std::string_view line : split_words(text, "\n")) {
    line = fm_trim(line);
    const size_t eq = line.find('=');
    if (line.empty() || line.front() == '#' || eq == std::string_view::npos) continue;
    const std::string_view key = fm_trim(line.substr(0, eq));
    const std::string_view value = fm_trim(line.substr(eq + 1));
    const auto unreadable = [&] {
      s.unreadable = std::string(key) + "=" + std::string(value.substr(0, 40));
    };
    if (key == "FM_CMD_BIND_INTERFACE" && !value.empty()) {
      in_addr a{};
      if (inet_pton(AF_INET, std::string(value).c_str(), &a) == 1)
        s.address = std::string(value);
      else
        unreadable();
    } else if (key == "FM_CMD_PORT_NUMBER" && !value.empty()) {
      const std::optional<uint16_t> p = parse_int<uint16_t>(value, 10);
      if (p && *p > 0)
        s.port = *p;
      else
        unreadable();
    } else if (key == "FM_CMD_UNIX_SOCKET_PATH" && !value.empty()) {
      s.unix_path = std::string(value);
    }
  }
  return s;
}

std::vector<TcpListener> parse_tcp_listeners(std::string_view proc_net_tcp) {
  std::vector<TcpListener> out;
  for (std::string_view line : split_words(proc_net_tcp, "\n")) {
    const std::vector<std::string_view> f = split_words(line, " ");
    // sl local_address rem_address st ...
    if (f.size() < 4 || f[3] != "0A") continue;
    if (std::optional<TcpListener> l = fm_local_address(f[1])) out.push_back(std::move(*l));
  }
  return out;
}

std::vector<std::string> parse_unix_listeners(std::string_view proc_net_unix) {
  std::vector<std::string> out;
  for (std::string_view line : split_words(proc_net_unix, "\n")) {
    const std::vector<std::string_view> f = split_words(line, " ");
    // Num RefCount Protocol Flags Type St Inode Path
    if (f.size() < 8) continue;
    const std::optional<uint32_t> flags = parse_int<uint32_t>(f[3], 16);
    if (flags && (*flags & kSoAcceptCon)) out.emplace_back(f[7]);
  }
  return out;
}

FabricManagerSigns read_fabric_manager_signs(const FsRoot& root) {
  FmCommandSocket sock;
  if (Result<std::string> cfg = root.read(kFmConfig)) sock = parse_fabricmanager_cfg(*cfg);
  FabricManagerSigns s;
  s.unit_active = fm_unit_active(root);
  s.listening = fm_listening(root, sock);
  s.socket = sock.unreadable  ? "unknown (fabricmanager.cfg: " + *sock.unreadable + ")"
             : sock.unix_path ? *sock.unix_path
                              : sock.address + ":" + std::to_string(sock.port);
  return s;
}

}  // namespace gt
