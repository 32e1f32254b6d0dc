// The subcommands: one table (ninja's kTools). `gpu-triage` with no
// subcommand, or with options only, runs the main triage.
#pragma once

namespace gt {

/// Runs a subcommand. argv[0] is the subcommand's name, so CLI11 parsing
/// inside it sees only its own options. Returns the process exit code.
using CommandFn = int (*)(int argc, char** argv);

struct Command {
  const char* name;
  const char* description;
  CommandFn run;
};

/// The table of subcommands (not including the default triage).
const Command* find_command(const char* name);

/// Prints "Subcommands:" with each name and description.
void print_commands();

}  // namespace gt
