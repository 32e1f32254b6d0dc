// Who is holding GPU memory: recognising inference servers and training
// launchers from a process's command line, and the commands that stop the
// owner (systemd unit, container, pod, Slurm job) and keep it from coming
// back at boot.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/snapshot.h"

namespace gt {

/// "SGLang", "vLLM", "TGI", "Triton", "TensorRT-LLM", "Ollama",
/// "llama.cpp server", "torchrun", "DeepSpeed"; nullopt when not recognised.
std::optional<std::string> recognise_holder(const GpuProcess& p);

/// How a human should name the holder: the recognised server, else the
/// process name, else "PID n".
std::string holder_label(const GpuProcess& p);

/// Commands that stop the owner now and keep it from starting again.
struct StopCommands {
  std::vector<std::string> stop;     ///< stop it now
  std::vector<std::string> disable;  ///< keep it from coming back (boot, restart policy)
  std::string owner_text;            ///< "systemd unit sglang.service", "docker container 1a2b..."
};

/// For a process with `owner` (or none: plain kill of the PID).
StopCommands stop_commands(const GpuProcess& p);

}  // namespace gt
