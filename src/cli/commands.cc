#include "cli/commands.h"

#include <cstring>
#include <string>

#include "cli/args.h"
#include "cli/cmd_data.h"
#include "cli/suggest.h"
#include "cli/usage.h"

namespace gt {

int cmd_free(int argc, char** argv);
int cmd_serve(int argc, char** argv);
int cmd_history(int argc, char** argv);
int cmd_watch(int argc, char** argv);
int cmd_help(int argc, char** argv);

namespace {

// Subcommands register here, one line each, in the order `--help` lists them.
const Command kCommands[] = {
    {"free", "release GPUs held by leftover processes, safely (plan first)", cmd_free},
    {"serve", "Prometheus exporter: /metrics and /healthz over HTTP", cmd_serve},
    {"data", "is the job's output intact, and which samples must be redone?", cmd_data},
    {"watch", "follow the node live: GPUs by server, driver events, the job's new output",
     cmd_watch},
    {"history", "the record across boots: GPUs with the same Xid after reboots; --clear",
     cmd_history},
    {"help", "this help, or a command's: gpu-triage help COMMAND", cmd_help},
    {nullptr, nullptr, nullptr},  // sentinel
};

/// Runs argv as a command line of the program itself ("gpu-triage --help").
int run_words(std::vector<std::string> words) {
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(words.size());
  if (const Command* cmd = find_command(argv[0])) return cmd->run(argc, argv.data());
  return static_cast<int>(parse_args(argc, argv.data()).exit_code);
}

}  // namespace

/// `gpu-triage help [COMMAND]`: the same text as --help and COMMAND --help.
int cmd_help(int argc, char** argv) {
  if (argc > 2) return usage_error("gpu-triage", "help takes one COMMAND at most");
  if (argc == 1 || std::strcmp(argv[1], "help") == 0) return run_words({"gpu-triage", "--help"});
  if (find_command(argv[1]) == nullptr) return unknown_command(argv[1]);
  return run_words({argv[1], "--help"});
}

const Command* find_command(const char* name) {
  for (const Command& c : kCommands)
    if (c.name != nullptr && std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const Command& c : kCommands)
    if (c.name != nullptr) names.emplace_back(c.name);
  return names;
}

std::string commands_help() {
  std::string out = "Subcommands: (gpu-triage help COMMAND shows a command's options)\n";
  for (const Command& c : kCommands) {
    if (c.name == nullptr) continue;
    std::string name = c.name;
    out += "  " + name + std::string(name.size() < 9 ? 9 - name.size() : 1, ' ') + c.description +
           "\n";
  }
  return out;
}

int unknown_command(const std::string& word) {
  return usage_error("gpu-triage",
                     "unknown command '" + word + "'" + did_you_mean(word, command_names()));
}

}  // namespace gt
