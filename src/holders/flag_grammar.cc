// Flags that one server's parser alone defines, each list read from that
// parser and checked against the others' (tests/fixtures/real/
// server-cmdlines.md names the commits):
// - vLLM: vllm/engine/arg_utils.py (EngineArgs) through its
//   FlexibleArgumentParser, which reads --a_b as --a-b. Its long-standing
//   flags (--gpu-memory-utilization, --max-num-seqs, --enforce-eager,
//   --swap-space) are Aphrodite's too (aphrodite/engine/args_tools.py, a
//   fork of EngineArgs), so only flags Aphrodite's parser lacks decide.
// - SGLang: python/sglang/srt/server_args.py (ServerArgs; the table in
//   docs/advanced_features/server_arguments.md). --tp-size and --dp-size
//   are left out: training scripts of one's own spell their layout so.
// - TGI: launcher/src/main.rs (clap, kebab-case long names).
// Each was checked absent from the other three parsers (vLLM, SGLang, TGI,
// Aphrodite's args_tools.py and endpoints/openai/args.py).
#include "holders/flag_grammar.h"

#include <algorithm>
#include <string_view>

#include "holders/identity.h"
#include "holders/wrapper_command.h"

namespace gt {
namespace {

struct Grammar {
  std::string_view kind;
  bool underscores_to_dashes;
  std::vector<std::string_view> flags;
};

const std::vector<Grammar>& grammars() {
  static const std::vector<Grammar> kGrammars = {
      {"vLLM",
       true,
       {"--kv-transfer-config", "--enable-expert-parallel", "--async-scheduling",
        "--compilation-config", "--speculative-config", "--enable-sleep-mode",
        "--data-parallel-size-local"}},
      {"SGLang",
       false,
       {"--mem-fraction-static", "--max-running-requests", "--chunked-prefill-size",
        "--disable-radix-cache", "--enable-dp-attention"}},
      {"TGI",
       false,
       {"--num-shard", "--max-batch-prefill-tokens", "--max-batch-total-tokens",
        "--cuda-memory-fraction", "--waiting-served-ratio"}},
  };
  return kGrammars;
}

/// The grammar that defines `word`'s option name, if one does.
const Grammar* grammar_of(const std::string& word, std::string& name) {
  if (!word.starts_with("--") || word.size() < 3) return nullptr;
  const std::string raw = word.substr(0, word.find('='));
  for (const Grammar& g : grammars()) {
    std::string n = raw;
    if (g.underscores_to_dashes) std::replace(n.begin() + 2, n.end(), '_', '-');
    if (std::find(g.flags.begin(), g.flags.end(), n) != g.flags.end()) {
      name = n;
      return &g;
    }
  }
  return nullptr;
}

/// The commands a command line runs: a launcher's segments, else itself.
std::vector<std::vector<std::string>> commands_of(const std::vector<std::string>& argv) {
  std::vector<std::vector<std::string>> segs = launched_commands(argv);
  if (segs.empty()) segs.push_back(argv);
  return segs;
}

}  // namespace

FlagVerdict kind_by_flags(const std::vector<std::string>& argv) {
  FlagVerdict v;
  for (const std::vector<std::string>& cmd : commands_of(argv)) {
    const Program p = program_of(cmd);
    for (size_t i = p.args_from; i < cmd.size(); ++i) {
      if (cmd[i] == "--") break;  // what follows is positional
      std::string name;
      const Grammar* g = grammar_of(cmd[i], name);
      if (!g) continue;
      if (std::find(v.flags.begin(), v.flags.end(), name) == v.flags.end()) v.flags.push_back(name);
      if (std::find(v.kinds.begin(), v.kinds.end(), g->kind) == v.kinds.end())
        v.kinds.emplace_back(g->kind);
    }
  }
  if (v.kinds.size() == 1) v.kind = v.kinds.front();
  return v;
}

std::string flag_verdict_note(const FlagVerdict& v, const std::string& program) {
  if (v.flags.empty()) return "";
  std::string flags;
  for (const std::string& f : v.flags) flags += (flags.empty() ? "" : ", ") + f;
  if (v.kind)
    return "kind " + *v.kind + " by its flags (" + flags + ", defined by " + *v.kind +
           "'s parser alone): " + program + " is no entry point of " + *v.kind + "'s";
  std::string kinds;
  for (const std::string& k : v.kinds) kinds += (kinds.empty() ? "" : " and ") + k;
  return "its flags (" + flags + ") are " + kinds + "'s at once: its kind is not decided by them";
}

}  // namespace gt
