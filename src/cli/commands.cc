#include "cli/commands.h"

#include <cstdio>
#include <cstring>

#include "cli/cmd_data.h"

namespace gt {

int cmd_free(int argc, char** argv);
int cmd_serve(int argc, char** argv);

namespace {

// Subcommands register here, one line each, in the order `--help` lists them.
const Command kCommands[] = {
    {"free", "release GPUs held by leftover processes, safely (plan first)", cmd_free},
    {"serve", "Prometheus exporter: /metrics and /healthz over HTTP", cmd_serve},
    {"data", "is the job's output intact, and which samples must be redone?", cmd_data},
    {nullptr, nullptr, nullptr},  // sentinel
};

}  // namespace

const Command* find_command(const char* name) {
  for (const Command& c : kCommands)
    if (c.name != nullptr && std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

void print_commands() {
  bool any = false;
  for (const Command& c : kCommands) {
    if (c.name == nullptr) continue;
    if (!any) std::printf("\nSubcommands:\n");
    any = true;
    std::printf("  %-8s %s\n", c.name, c.description);
  }
}

}  // namespace gt
