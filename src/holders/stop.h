// How to stop a server: the one answer the report's plan and `gpu-triage
// free` both give. A server whose owner brings back what a signal stops
// (systemd Restart=, a Docker restart policy, a Kubernetes controller) is
// stopped through its owner; any other is stopped by SIGTERM to its
// launcher, which takes its workers with it. The commands name every
// process (or the owner) that holds the server's GPUs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/server.h"

namespace gt {

struct ServerStop {
  bool via_owner = false;            ///< stop the unit / container, not signal PIDs
  std::string owner_text;            ///< "systemd unit sglang.service", "no owner found ..."
  std::vector<std::string> stop;     ///< the commands that stop it now, in order
  std::vector<std::string> disable;  ///< what keeps it from starting again (boot, policy)
  /// When the owner restarts what a signal stops and its owner cannot be
  /// stopped by gpu-triage itself (Kubernetes): why `free` will not act.
  std::optional<std::string> manual_only;
  /// What the operator must know beside the commands, about its container:
  /// where it comes back from when no command here keeps it away (the
  /// container's command, which runs on without it), or that the stop ends
  /// the container; empty otherwise.
  std::string note;
  /// Every command, stop then disable: what the plan lists.
  std::vector<std::string> all() const;
};

/// Whether gpu-triage free can stop this owner kind itself (systemctl,
/// docker, podman).
bool owner_stoppable(OwnerKind owner_kind);

/// The stop for `s`. `via_owner`: the operator asked for the owner path
/// (--via-owner); it is also chosen when the owner restarts what a signal
/// stops. `force_signal`: the operator insists on signalling (--signal).
ServerStop server_stop(const Server& s, bool via_owner, bool force_signal);

/// `command` without "sudo " in front of it or of any command it chains
/// (as root, advice is written without sudo: the report and free alike).
std::string without_sudo(const std::string& command);

/// "70.6 GiB" / "512 MiB": binary units, as nvidia-smi counts (MiB, GiB);
/// one unit for memory in every human output.
std::string format_memory(uint64_t bytes);
std::string format_memory(const std::optional<uint64_t>& bytes);  ///< "unknown" for null

}  // namespace gt
