// The commands a catalogue action names in its text ("reset it (nvidia-smi
// -r -i <index>)"), as commands with the GPU filled in, so every step that
// says what to run gives a `$` line to run.
#pragma once

#include <string>
#include <vector>

namespace gt {

/// The commands named in `action`, each with `target` (a GPU index or PCI
/// bus id, which nvidia-smi -i and dcgmi -i accept) filled in; privileged
/// ones with sudo. Empty when `target` is empty or nothing is named.
std::vector<std::string> action_commands(const std::string& action, const std::string& target);

/// `action` with "<index>" replaced by `target` (unchanged when empty).
std::string fill_target(std::string action, const std::string& target);

/// A `$` line that reboots the node: reboot, sudo reboot, systemctl reboot.
bool is_reboot_command(const std::string& command);

/// A `$` line that resets a GPU: nvidia-smi -r, nvidia-smi --gpu-reset.
bool is_reset_command(const std::string& command);

/// The evidence first (issue 37): commands that reset a GPU or reboot the
/// node begin with `gpu-triage bundle` (sudo when the reset or reboot has
/// it), which records the node before the driver's state and the kernel log
/// are lost. Other commands unchanged; never twice.
void bundle_before_drastic(std::vector<std::string>& commands);

}  // namespace gt
