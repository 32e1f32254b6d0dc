// gpu-triage: are the GPUs alive, and what is holding them?
#include "cli/commands.h"
#include "cli/fleet_args.h"

int main(int argc, char** argv) {
  // `gpu-triage COMMAND ...` runs the command table's entry.
  if (argc > 1 && argv[1][0] != '-') {
    if (const gt::Command* cmd = gt::find_command(argv[1]))
      return cmd->run(*cmd, argc - 1, argv + 1);
    return gt::unknown_command(argv[1]);
  }
  // Options only: the triage of this node, or of a fleet when they name one
  // (--host h1,h2: the fleet command's options, given without its name).
  const gt::Command& cmd =
      gt::names_a_fleet(argc, argv) ? gt::fleet_command() : gt::default_command();
  return cmd.run(cmd, argc, argv);
}
