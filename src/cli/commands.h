// The subcommands: one table (ninja's kTools). `gpu-triage` with no
// subcommand, or with options only, runs the main triage.
#pragma once

#include <string>
#include <vector>

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

/// The subcommands' names, in table order.
std::vector<std::string> command_names();

/// "Subcommands:" with each name and description, a line each, for --help.
std::string commands_help();

/// "gpu-triage: unknown command 'fre'; did you mean 'free'?" on stderr; 64.
int unknown_command(const std::string& word);

}  // namespace gt
