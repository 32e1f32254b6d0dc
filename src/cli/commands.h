// The commands: one table (ninja's kTools), and with each the pipeline it
// runs. A command declares what it collects (collect/collect.h's stages)
// and what it does after collecting (judge, record the run across boots),
// as ninja's tools declare when they run; its run function reads both from
// its own entry, so the table is what runs. `gpu-triage` with options only
// runs the "triage" entry; a fleet option (--host, --reports...) the
// "fleet" entry (main.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collect/collect.h"

namespace gt {

/// What a command does with its snapshot after collecting it.
enum class Step : uint32_t {
  kJudge = 1u << 0,   ///< checks: findings, verdict, plan
  kRecord = 1u << 1,  ///< writes the record across boots (history/) after judging
};
using Steps = uint32_t;
constexpr Steps operator|(Step a, Step b) { return static_cast<Steps>(a) | static_cast<Steps>(b); }
constexpr bool has(Steps s, Step x) { return (s & static_cast<Steps>(x)) != 0; }

struct Command;

/// Runs a command. argv[0] is the command's name, so CLI11 parsing inside it
/// sees only its own options. Returns the process exit code.
using CommandFn = int (*)(const Command& self, int argc, char** argv);

struct Command {
  const char* name;
  const char* description;
  CommandFn run;
  /// What it collects of its origin, through the one pipeline; 0 for a
  /// command that builds no snapshot (data reads its DIR, history the
  /// record, help nothing).
  Stages stages;
  Steps steps;
  bool listed;  ///< in --help's list (the default command is not)
};

/// The entry named `name`, or null.
const Command* find_command(const char* name);

/// The entry run when no command is named ("triage").
const Command& default_command();

/// The entry run for a fleet ("fleet").
const Command& fleet_command();

/// The commands' names, in table order.
std::vector<std::string> command_names();

/// "Subcommands:" with each listed name and description, a line each.
std::string commands_help();

/// "gpu-triage: unknown command 'fre'; did you mean 'free'?" on stderr; 64.
int unknown_command(const std::string& word);

}  // namespace gt
