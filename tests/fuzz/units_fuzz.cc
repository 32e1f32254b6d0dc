// A server's owner and how it restarts: systemd unit files and drop-ins
// (the unit, its template, a .conf in <unit>.d on two search-path folders)
// and Docker's hostconfig.json. Each input is all of them; the restart
// policy is read for a systemd unit, a template instance and a container.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.h"
#include "sources/procfs/servers.h"
#include "tree_target.h"

namespace units_fuzz {

constexpr const char* kContainer =
    "4f2a9c1e7b3d8e6f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f";

GT_FUZZ_TARGET(units) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  static const gt::fuzz::ScratchTree t;
  t.write("/etc/systemd/system/vllm.service", text);
  t.write("/etc/systemd/system/vllm.service.d/10-restart.conf", text);
  t.write("/run/systemd/system/vllm.service.d/20-override.conf", text);
  t.write("/lib/systemd/system/sglang@.service", text);
  t.write("/etc/systemd/system/sglang@.service.d/restart.conf", text);
  t.write(std::string("/var/lib/docker/containers/") + kContainer + "/hostconfig.json", text);
  t.write(std::string("/var/lib/docker/containers/") + kContainer + "/config.v2.json", text);
  const gt::FsRoot root = t.root();
  (void)gt::owner_restart_policy(root, gt::OwnerKind::kSystemdUnit, "vllm.service");
  (void)gt::owner_restart_policy(root, gt::OwnerKind::kSystemdUnit, "sglang@1.service");
  (void)gt::owner_restart_policy(root, gt::OwnerKind::kDocker, kContainer);
  return 0;
}

}  // namespace units_fuzz
