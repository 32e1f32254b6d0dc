#include "cli/commands.h"

#include <cstring>
#include <string>

#include "cli/args.h"
#include "cli/cmd_data.h"
#include "cli/fleet_main.h"
#include "cli/run_triage.h"
#include "cli/suggest.h"
#include "cli/usage.h"

namespace gt {

int cmd_free(const Command& self, int argc, char** argv);
int cmd_serve(const Command& self, int argc, char** argv);
int cmd_history(const Command& self, int argc, char** argv);
int cmd_watch(const Command& self, int argc, char** argv);
int cmd_help(const Command& self, int argc, char** argv);
int cmd_cuda(const Command& self, int argc, char** argv);
int cmd_cuda_child(const Command& self, int argc, char** argv);
int cmd_bundle(const Command& self, int argc, char** argv);
int cmd_topo(const Command& self, int argc, char** argv);

namespace {

using enum Stage;
using enum Step;

/// Everything a node has to say; the kernel log is left out by
/// --no-kernel-log at run time.
constexpr Stages kNode = kAllStages;
/// What a host over ssh answers (nvidia-smi, its /proc and /sys copies, the
/// kernel log, df), what watch reads each tick.
constexpr Stages kGathered = kGpus | kHost | kServers | kKernelLog | kDisks;
constexpr Stages kTick = kGpus | kServers | kHost | kReadiness | kKernelLog;

// Commands register here, one line each, in the order `--help` lists them:
// name, description, run, what it collects, what it does after collecting.
const Command kCommands[] = {
    {"triage", "the node's verdict, findings and plan (the default: gpu-triage [OPTIONS])",
     cmd_triage, kNode, kJudge | kRecord, false},
    {"free", "release GPUs held by leftover processes, safely (plan first)", cmd_free,
     kGpus | kServers, 0, true},
    {"serve", "Prometheus exporter: /metrics and /healthz over HTTP", cmd_serve, kNode,
     kJudge | kRecord, true},
    {"data", "is the job's output intact, and which samples must be redone?", cmd_data, 0, 0, true},
    {"watch", "follow the node live: GPUs by server, driver events, the job's new output",
     cmd_watch, kTick, static_cast<Steps>(kJudge), true},
    {"fleet", "many hosts over ssh, captures or saved reports: a line each, shared Xids, drift",
     cmd_fleet, kGathered, static_cast<Steps>(kJudge), true},
    {"history", "the record across boots: GPUs with the same Xid after reboots; --clear",
     cmd_history, 0, 0, true},
    {"cuda", "run CUDA on every selected GPU, each under its own deadline: does it really work?",
     cmd_cuda, kGpus | kHost | kServers, 0, true},
    {"topo", "the GPUs and RDMA NICs as a group: the matrix of what each pair shares, NUMA nodes",
     cmd_topo, kGpus | kHost, 0, true},
    {"bundle", "one archive of the node as the triage saw it, redacted, before acting on it",
     cmd_bundle, kNode, static_cast<Steps>(kJudge), true},
    {"__cuda-child", "the cuda command's child process (internal, not for people)", cmd_cuda_child,
     0, 0, false},
    {"help", "this help, or a command's: gpu-triage help COMMAND", cmd_help, 0, 0, true},
};

/// Runs argv as a command line of the program itself ("gpu-triage --help").
int run_words(std::vector<std::string> words) {
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(words.size());
  const Command* cmd = find_command(argv[0]);
  return cmd != nullptr ? cmd->run(*cmd, argc, argv.data())
                        : static_cast<int>(parse_args(argc, argv.data()).exit_code);
}

}  // namespace

/// `gpu-triage help [COMMAND]`: the same text as --help and COMMAND --help.
int cmd_help(const Command&, int argc, char** argv) {
  if (argc > 2) return usage_error("gpu-triage", "help takes one COMMAND at most");
  if (argc == 1 || std::strcmp(argv[1], "help") == 0) return run_words({"gpu-triage", "--help"});
  if (find_command(argv[1]) == nullptr) return unknown_command(argv[1]);
  return run_words({argv[1], "--help"});
}

const Command* find_command(const char* name) {
  for (const Command& c : kCommands)
    if (std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

const Command& default_command() { return *find_command("triage"); }

const Command& fleet_command() { return *find_command("fleet"); }

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const Command& c : kCommands) names.emplace_back(c.name);
  return names;
}

std::string commands_help() {
  std::string out = "Subcommands: (gpu-triage help COMMAND shows a command's options)\n";
  for (const Command& c : kCommands) {
    if (!c.listed) continue;
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
