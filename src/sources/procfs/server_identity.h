// What a server is, serves and listens on, read as its own parser reads
// it (holders/server_flags.h): the command lines of its launcher and of
// the processes holding the GPUs, the launcher's environment where it may
// be read (OLLAMA_HOST, TGI's PORT and MODEL_ID), and a config file named
// on its command line (vLLM and SGLang --config), read bounded. What cannot
// be read is said in Server::identity_notes, never guessed.
#pragma once

#include <optional>

#include "model/server.h"
#include "sources/procfs/process_tree.h"
#include "util/fs_root.h"
#include "util/result.h"

namespace gt {

/// Sets kind, recognised, model, port (and port_source), the parallel
/// sizes, world sizes and member ranks. `root` null: a capture (command
/// lines only). Never throws.
void identify_server(Server& s, const std::optional<ProcInfo>& root_info, const FsRoot* root);

/// A config file a process named: relative to its working directory, a
/// regular file of at most kMaxServerConfigBytes, opened without blocking
/// (a FIFO or device named there is refused, not read).
inline constexpr size_t kMaxServerConfigBytes = 1u << 20;
Result<std::string> read_server_config(const FsRoot& root, uint32_t pid, const std::string& path);

}  // namespace gt
