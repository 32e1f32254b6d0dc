// gpu-triage: are the GPUs alive, and what is holding them?
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/run_triage.h"

int main(int argc, char** argv) {
  // `gpu-triage SUBCOMMAND ...` dispatches through the command table.
  if (argc > 1 && argv[1][0] != '-') {
    if (const gt::Command* cmd = gt::find_command(argv[1])) return cmd->run(argc - 1, argv + 1);
    return gt::unknown_command(argv[1]);
  }
  gt::ParsedArgs parsed = gt::parse_args(argc, argv);
  if (!parsed.options) return static_cast<int>(parsed.exit_code);
  bool abandoned = false;
  int code = gt::run_triage(*parsed.options, abandoned);
  if (abandoned) {
    // A thread is stuck inside the driver: running destructors or
    // nvmlShutdown could block on it. Flush and leave now.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    _exit(code);
  }
  return code;
}
