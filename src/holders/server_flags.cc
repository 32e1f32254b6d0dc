// Flag tables from each server's own argument definitions. Each table
// names the file it was read from. A running server's command line was
// accepted by its parser, so an abbreviation it used was unambiguous in
// that version: where the parser allows prefixes (Python's argparse with
// allow_abbrev, getopt_long), a prefix that matches the long names of
// exactly one field here is read as that field; anything else stays null.
#include "holders/server_flags.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "holders/identity.h"
#include "holders/wrapper_command.h"

namespace gt {
namespace {

enum class Field {
  kModel,
  kPort,
  kTensor,
  kData,
  kPipeline,
  kExpert,
  kConfig,
  kDpAttention,   // SGLang --enable-dp-attention: data parallel attention over the TP ranks
  kEpMoe,         // SGLang --enable-ep-moe: expert parallel over the TP ranks
  kEnableEp,      // vLLM --enable-expert-parallel: experts over TP x DP
  kNprocPerNode,  // torchrun
  kNnodes,
  kStandalone,
  kNumGpus,  // DeepSpeed
  kNumNodes,
  kInclude,
  kWorld,         // mpirun -np, srun -n
  kTasksPerNode,  // srun --ntasks-per-node
  kSwitch,        // a launcher's flag without a value (so the next word is not taken)
  kPortArg,       // a port given as a positional argument (LMDeploy's fire-era CLI)
  kIgnored,       // a positional argument whose value is not needed here
  kRepository,    // Triton --model-repository: where models are, not a model
  kLoadModel,     // Triton --load-model NAME (explicit model control)
  kLoadModels,    // set when --load-model is given more than once
};

struct Opt {
  Field field;
  std::vector<std::string_view> names;
  bool value = true;  // takes a value ("--tp 8", "--tp=8")
};

struct Table {
  std::string_view kind;
  bool underscores_to_dashes = false;  // the parser rewrites --a_b as --a-b
  bool abbreviations = false;          // unambiguous prefixes of long options
  std::vector<Opt> opts;
  std::vector<Field> positionals;             // what each positional argument is, in order
  std::vector<std::string_view> subcommands;  // leading words before the positionals
  bool script_follows = false;  // the first positional is a script; the rest are its arguments
};

// python/sglang/srt/server_args.py (ServerArgs.add_cli_args), parsed by a
// plain argparse.ArgumentParser in sglang/launch_server.py: prefixes allowed
// ("--tp 8" is --tp-size). --config reads a YAML file of the same keys.
// __post_init__: --enable-ep-moe sets ep_size = tp_size; --enable-dp-attention
// in the releases that implied it set dp_size = tp_size.
const Table kSglang{"SGLang",
                    false,
                    true,
                    {{Field::kModel, {"--model-path", "--model"}},
                     {Field::kPort, {"--port"}},
                     {Field::kTensor, {"--tensor-parallel-size", "--tp-size"}},
                     {Field::kData, {"--data-parallel-size", "--dp-size"}},
                     {Field::kPipeline, {"--pipeline-parallel-size", "--pp-size"}},
                     {Field::kExpert, {"--expert-parallel-size", "--ep-size", "--ep"}},
                     {Field::kConfig, {"--config"}},
                     {Field::kDpAttention, {"--enable-dp-attention"}, false},
                     {Field::kEpMoe, {"--enable-ep-moe"}, false}}};

// vllm/engine/arg_utils.py (EngineArgs.add_cli_args: -tp, -pp, -dp short
// forms), vllm/entrypoints/openai/cli_args.py (--port 8000) and
// vllm/entrypoints/cli/serve.py ("vllm serve MODEL", --config YAML). Its
// FlexibleArgumentParser (vllm/utils) rewrites underscores in long options
// to dashes; it does not accept abbreviations.
const Table kVllm{"vLLM",
                  true,
                  false,
                  {{Field::kModel, {"--model"}},
                   {Field::kPort, {"--port"}},
                   {Field::kTensor, {"--tensor-parallel-size", "-tp"}},
                   {Field::kData, {"--data-parallel-size", "-dp"}},
                   {Field::kPipeline, {"--pipeline-parallel-size", "-pp"}},
                   {Field::kConfig, {"--config"}},
                   {Field::kEnableEp, {"--enable-expert-parallel"}, false}},
                  {Field::kModel},
                  {"serve"}};

// text-generation-inference launcher/src/main.rs (clap derive: long names
// with dashes, --port/-p, env fallbacks MODEL_ID, NUM_SHARD, PORT); its
// shards run "text-generation-server serve MODEL_ID" (server/cli.py).
const Table kTgi{"TGI",
                 false,
                 false,
                 {{Field::kModel, {"--model-id"}},
                  {Field::kPort, {"--port", "-p"}},
                  {Field::kTensor, {"--num-shard"}}},
                 {Field::kModel},
                 {"serve"}};

// triton-inference-server src/command_line_parser.cc (getopt_long: prefixes
// allowed): --model-repository (alias --model-store) names the folder of
// every model it may serve, not a model; --load-model NAME (repeatable) the
// models loaded at start under --model-control-mode=explicit; --http-port.
const Table kTriton{"Triton",
                    false,
                    true,
                    {{Field::kRepository, {"--model-repository", "--model-store"}},
                     {Field::kLoadModel, {"--load-model"}},
                     {Field::kPort, {"--http-port"}}}};

// TensorRT-LLM tensorrt_llm/commands/serve.py (click: names as declared,
// with underscores; no prefixes): "trtllm-serve [serve] MODEL", --port,
// --tp_size, --pp_size, --ep_size.
const Table kTrtllm{"TensorRT-LLM",
                    false,
                    false,
                    {{Field::kPort, {"--port"}},
                     {Field::kTensor, {"--tp_size"}},
                     {Field::kPipeline, {"--pp_size"}},
                     {Field::kExpert, {"--ep_size"}}},
                    {Field::kModel},
                    {"serve"}};

// lmdeploy/cli/serve.py and lmdeploy/cli/utils.py (ArgumentHelper; plain
// argparse, prefixes allowed; since d99bc9c9, Jan 2024): "lmdeploy serve
// api_server MODEL_PATH", --server-port (23333), --tp, --dp, --ep. Before it
// (169d5169, Oct 2023) the CLI was python-fire over SubCliServe.api_server(
// model_path, server_name, server_port, instance_num, tp): those five are
// positional in order ("api_server MODEL 0.0.0.0 6006") or flags spelled
// either way (--server_port, --server-port). The later parser takes one
// positional only, so a second one is always the fire form's.
const Table kLmdeploy{
    "LMDeploy",
    false,
    true,
    {{Field::kPort, {"--server-port", "--server_port"}},
     {Field::kTensor, {"--tp"}},
     {Field::kData, {"--dp"}},
     {Field::kExpert, {"--ep"}}},
    {Field::kModel, Field::kIgnored, Field::kPortArg, Field::kIgnored, Field::kTensor},
    {"serve", "api_server"}};

// ollama runner/runner.go (Go's flag package: -model and --model alike,
// -port=N): the runner that holds the GPU; the API port is the serve
// process's OLLAMA_HOST (envconfig/config.go).
const Table kOllama{"Ollama", false, false, {{Field::kModel, {"--model", "-model"}}}};

// llama.cpp common/arg.cpp: -m/--model, -hf/-hfr/--hf-repo, --port (8080);
// exact names only. The single binary's "llama serve" (README.md) takes
// llama-server's arguments after "serve".
const Table kLlamaCpp{
    "llama.cpp server",
    false,
    false,
    {{Field::kModel, {"--model", "-m", "--hf-repo", "-hf", "-hfr"}}, {Field::kPort, {"--port"}}}};

// aphrodite-engine aphrodite/endpoints/cli.py ("aphrodite run MODEL", a
// FlexibleArgumentParser as vLLM's: underscores read as dashes),
// aphrodite/engine/args_tools.py (-tp, -pp) and endpoints/openai/args.py
// (--port 2242).
const Table kAphrodite{"Aphrodite",
                       true,
                       false,
                       {{Field::kModel, {"--model"}},
                        {Field::kPort, {"--port"}},
                        {Field::kTensor, {"--tensor-parallel-size", "-tp"}},
                        {Field::kPipeline, {"--pipeline-parallel-size", "-pp"}}},
                       {Field::kModel},
                       {"run"}};

// mlc-llm python/mlc_llm/cli/serve.py (argparse, prefixes allowed):
// "mlc_llm serve MODEL", --port 8000.
const Table kMlcLlm{"MLC LLM",       false,    true, {{Field::kPort, {"--port"}}},
                    {Field::kModel}, {"serve"}};

// infinity libs/infinity_emb/infinity_emb/cli.py (typer: exact names):
// "infinity_emb v2 --model-id M --port P" (port default 7997, env.py);
// --model-id repeats, one per model served: one names the model, as
// Triton's --load-model.
const Table kInfinity{
    "Infinity", false, false, {{Field::kLoadModel, {"--model-id"}}, {Field::kPort, {"--port"}}}};

// torch/distributed/run.py get_args_parser (argparse, prefixes allowed;
// both spellings declared): the training script and its arguments follow.
const Table kTorchrun{
    "torchrun",
    false,
    true,
    {{Field::kNprocPerNode, {"--nproc-per-node", "--nproc_per_node"}},
     {Field::kNnodes, {"--nnodes"}},
     {Field::kStandalone, {"--standalone"}, false},
     {Field::kSwitch,
      {"--no-python", "--no_python", "--module", "-m", "--run-path", "--run_path"},
      false}},
    {},
    {},
    true};

// deepspeed/launcher/runner.py parse_args (argparse, prefixes allowed).
const Table kDeepspeed{
    "DeepSpeed",
    false,
    true,
    {{Field::kNumGpus, {"--num_gpus", "--num-gpus"}},
     {Field::kNumNodes, {"--num_nodes", "--num-nodes"}},
     {Field::kInclude, {"--include", "-i"}},
     {Field::kSwitch,
      {"--no_python", "--no-python", "--module", "--no_local_rank", "--force_multi"},
      false}},
    {},
    {},
    true};

// Megatron-LM megatron/training/arguments.py (_add_distributed_args): the
// layout a training script itself is given.
const Table kMegatron{"Megatron",
                      false,
                      false,
                      {{Field::kTensor, {"--tensor-model-parallel-size"}},
                       {Field::kPipeline, {"--pipeline-model-parallel-size"}},
                       {Field::kExpert, {"--expert-model-parallel-size"}}}};

// Open MPI orterun / MPICH mpiexec: -np/-n/--np; Slurm srun: -n/--ntasks,
// --ntasks-per-node.
const Table kMpirun{"mpirun", false, false, {{Field::kWorld, {"-np", "-n", "--np", "-c"}}}};
const Table kSrun{
    "srun",
    false,
    false,
    {{Field::kWorld, {"--ntasks", "-n"}}, {Field::kTasksPerNode, {"--ntasks-per-node"}}}};

const Table* table_for(std::string_view kind) {
  for (const Table* t :
       {&kSglang, &kVllm, &kTgi, &kTriton, &kTrtllm, &kLmdeploy, &kOllama, &kLlamaCpp, &kAphrodite,
        &kMlcLlm, &kInfinity, &kTorchrun, &kDeepspeed, &kMpirun, &kSrun})
    if (t->kind == kind) return t;
  return nullptr;
}

std::optional<uint32_t> number(const std::optional<std::string>& text, uint32_t lo, uint32_t hi) {
  if (!text || text->empty() || text->size() > 10) return std::nullopt;
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size() || v < lo || v > hi)
    return std::nullopt;
  return v;
}

/// A word that starts an option (a negative number is a value, not one).
/// Named apart from identity.cc's is_flag: both land in one unity batch.
bool is_option_word(const std::string& w) {
  return w.size() > 1 && w[0] == '-' && !(w[1] >= '0' && w[1] <= '9');
}

/// The option `name` means in `t`: exactly, else (where the parser allows
/// it) as the prefix of the long names of one field only.
const Opt* lookup(const Table& t, std::string name) {
  if (t.underscores_to_dashes && name.starts_with("--"))
    std::replace(name.begin() + 2, name.end(), '_', '-');
  for (const Opt& o : t.opts)
    for (std::string_view n : o.names)
      if (n == name) return &o;
  if (!t.abbreviations || !name.starts_with("--") || name.size() < 3) return nullptr;
  const Opt* hit = nullptr;
  for (const Opt& o : t.opts)
    for (std::string_view n : o.names)
      if (n.starts_with("--") && n.starts_with(name)) {
        if (hit && hit->field != o.field) return nullptr;  // ambiguous
        hit = &o;
      }
  return hit;
}

using Values = std::map<Field, std::string>;

/// Reads `words` (the parser's own, argv[0] excluded) against `t`: options
/// into `v`, positional arguments into `pos`. Returns the index of the
/// script for a launcher whose script follows (else size).
size_t read_words(const Table& t, const std::vector<std::string>& words, Values& v, Values& pos) {
  bool sure = true;    // no unknown option may have taken the next word
  bool other = false;  // a subcommand other than the table's: its positionals are not known
  size_t positionals = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") return words.size();
    if (is_option_word(w)) {
      size_t eq = w.find('=');
      const Opt* o = lookup(t, w.substr(0, eq));
      if (!o) {
        // An option of its parser not in this table: it may take the next word.
        if (eq == std::string::npos && i + 1 < words.size() && !is_option_word(words[i + 1])) {
          if (t.script_follows)
            ++i;  // launchers' unknown options take values
          else
            sure = false;
        }
        continue;
      }
      std::string value = "1";
      if (o->value && eq != std::string::npos)
        value = w.substr(eq + 1);
      else if (o->value && i + 1 < words.size())
        value = words[++i];
      else if (o->value)
        continue;
      if (o->field == Field::kLoadModel && v.count(Field::kLoadModel) &&
          v[Field::kLoadModel] != value)
        v[Field::kLoadModels] = "1";
      v[o->field] = value;
      continue;
    }
    if (t.script_follows) return i;
    if (t.positionals.empty() || !sure || other) continue;
    if (positionals < t.subcommands.size()) {
      if (w == t.subcommands[positionals]) {
        ++positionals;
        continue;
      }
      // trtllm-serve takes MODEL with or without "serve".
      if (t.kind != "TensorRT-LLM" || positionals != 0) {
        other = true;
        continue;
      }
      positionals = t.subcommands.size();
    }
    const size_t k = positionals - t.subcommands.size();
    if (k < t.positionals.size()) pos.emplace(t.positionals[k], w);
    ++positionals;
  }
  return words.size();
}

}  // namespace

std::vector<std::string> parser_words(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  const Program p = program_of(argv);
  // lmdeploy/serve/openai/api_server.py run by itself is "serve api_server".
  if (p.name == "lmdeploy.serve.openai.api_server" ||
      p.name.ends_with("lmdeploy/serve/openai/api_server.py"))
    out = {"serve", "api_server"};
  for (size_t i = p.args_from; i < argv.size() && out.size() < 4096; ++i) out.push_back(argv[i]);
  return out;
}

std::optional<uint32_t> default_port(const std::string& kind) {
  // sglang server_args.py port=30000; vllm cli_args.py 8000; TGI main.rs
  // 3000; Triton --http-port 8000; trtllm-serve 8000; lmdeploy
  // --server-port 23333; ollama envconfig 11434; llama.cpp common.h 8080;
  // aphrodite openai/args.py 2242; mlc_llm cli/serve.py 8000; infinity 7997.
  static const std::map<std::string, uint32_t> kPorts = {
      {"SGLang", 30000},      {"vLLM", 8000},      {"TGI", 3000},     {"Triton", 8000},
      {"TensorRT-LLM", 8000}, {"LMDeploy", 23333}, {"Ollama", 11434}, {"llama.cpp server", 8080},
      {"Aphrodite", 2242},    {"MLC LLM", 8000},   {"Infinity", 7997}};
  auto it = kPorts.find(kind);
  return it == kPorts.end() ? std::nullopt : std::optional<uint32_t>(it->second);
}

namespace {

/// The table's name for a field's option ("--server-port", "--http-port").
std::string option_name(const Table& t, Field x) {
  for (const Opt& o : t.opts)
    if (o.field == x) return std::string(o.names.front());
  return "";
}

/// What `v` (options) and `pos` (positionals) set, where `f` is still null;
/// an option wins over a positional argument for the same field.
void fill(const Values& v, const Values& pos, const std::string& port_source, ServerFlags& f) {
  auto get = [&](Field x) -> std::optional<std::string> {
    if (auto it = v.find(x); it != v.end()) return it->second;
    if (auto it = pos.find(x); it != pos.end()) return it->second;
    return std::nullopt;
  };
  if (!f.model) f.model = get(Field::kModel);
  if (f.model && f.model->empty()) f.model.reset();
  if (!f.port && (f.port = number(get(Field::kPort), 1, 65535)))
    f.port_source = port_source;
  else if (!f.port && (f.port = number(get(Field::kPortArg), 1, 65535)))
    f.port_source = "port argument";
  if (!f.tensor) f.tensor = number(get(Field::kTensor), 1, 4096);
  if (!f.data) f.data = number(get(Field::kData), 1, 4096);
  if (!f.pipeline) f.pipeline = number(get(Field::kPipeline), 1, 4096);
  if (!f.expert) f.expert = number(get(Field::kExpert), 1, 4096);
  if (!f.config_file) f.config_file = get(Field::kConfig);
  if (!f.world_size) f.world_size = number(get(Field::kWorld), 1, 1u << 20);
  if (!f.local_world_size) f.local_world_size = number(get(Field::kTasksPerNode), 1, 4096);
  // Triton (and Infinity) serve what they load: one --load-model names it ("*" is all).
  if (!f.model && !v.count(Field::kLoadModels))
    if (auto m = get(Field::kLoadModel); m && !m->empty() && *m != "*") f.model = m;
}

/// Launchers: the world and this node's share; the script's own layout.
void fill_launcher(const Table& t, const Values& v, ServerFlags& f) {
  auto get = [&](Field x) -> std::optional<std::string> {
    auto it = v.find(x);
    return it == v.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  if (t.kind == "torchrun") {
    f.local_world_size = number(get(Field::kNprocPerNode), 1, 4096);
    // "--nnodes 2" is fixed; "1:4" is elastic, so the world is not known.
    std::optional<uint32_t> nodes = get(Field::kStandalone) ? std::optional<uint32_t>(1)
                                                            : number(get(Field::kNnodes), 1, 65536);
    if (!get(Field::kNnodes) && !get(Field::kStandalone)) nodes = 1;  // torchrun's default "1:1"
    if (nodes && f.local_world_size) f.world_size = *nodes * *f.local_world_size;
  } else if (t.kind == "DeepSpeed") {
    f.local_world_size = number(get(Field::kNumGpus), 1, 4096);
    if (std::optional<std::string> inc = get(Field::kInclude);
        inc && !f.local_world_size && inc->find('@') == std::string::npos &&
        std::count(inc->begin(), inc->end(), ':') == 1)
      f.local_world_size = static_cast<uint32_t>(std::count(inc->begin(), inc->end(), ',') + 1);
    std::optional<uint32_t> nodes = number(get(Field::kNumNodes), 1, 65536);
    if (nodes && f.local_world_size) f.world_size = *nodes * *f.local_world_size;
  }
}

}  // namespace

namespace {

/// Where the program an MPI or Slurm launcher runs starts: its first word
/// that is not an option (or an option's value) and names a program.
size_t wrapped_program(const std::vector<std::string>& argv, size_t from) {
  size_t p = from;
  for (; p < argv.size(); ++p) {
    if (is_option_word(argv[p])) continue;
    std::string rest;
    for (size_t i = p; i < argv.size() && i < p + 8; ++i) rest += argv[i] + " ";
    if (recognise_program("", rest)) break;
  }
  return p;
}

}  // namespace

// Wrappers (mpirun, srun, trtllm-llmapi-launch, nested in any order) are
// walked in a loop, at most kMaxWrappers deep: the outermost launcher's
// world size is the job's; the words after the last wrapper are read once.
ServerFlags parse_server_flags(const std::string& kind, const std::vector<std::string>& argv) {
  constexpr int kMaxWrappers = 8;
  ServerFlags f;
  size_t at = 0;
  for (int hop = 0; hop < kMaxWrappers && at < argv.size(); ++hop) {
    const std::string b = argv[at].substr(argv[at].rfind('/') + 1);
    const bool mpi = is_mpi_launcher(b);
    if (mpi || b == "srun") {
      const size_t p = wrapped_program(argv, at + 1);
      Values v, none;
      read_words(mpi ? kMpirun : kSrun,
                 std::vector<std::string>(argv.begin() + static_cast<std::ptrdiff_t>(at) + 1,
                                          argv.begin() + static_cast<std::ptrdiff_t>(p)),
                 v, none);
      fill(v, none, "", f);
      at = p;
      continue;
    }
    // tensorrt_llm/llmapi/trtllm-llmapi-launch: no options; its arguments
    // are the command it runs (as "bash .../trtllm-llmapi-launch CMD...").
    const size_t shell = (b == "bash" || b == "sh") && at + 1 < argv.size() ? 1 : 0;
    const std::string w = argv[at + shell].substr(argv[at + shell].rfind('/') + 1);
    if (w == "trtllm-llmapi-launch") {
      at += shell + 1;
      continue;
    }
    break;
  }
  const std::optional<uint32_t> world = f.world_size, local = f.local_world_size;
  if (at >= argv.size()) return f;
  const Table* t = table_for(kind);
  if (!t) return f;
  std::vector<std::string> words = parser_words(
      std::vector<std::string>(argv.begin() + static_cast<std::ptrdiff_t>(at), argv.end()));
  ServerFlags inner;
  Values v, pos;
  size_t script = read_words(*t, words, v, pos);
  if (t->script_follows) {
    fill_launcher(*t, v, inner);
    if (script < words.size()) {  // the script's own arguments
      Values m, none;
      read_words(kMegatron,
                 std::vector<std::string>(words.begin() + static_cast<std::ptrdiff_t>(script) + 1,
                                          words.end()),
                 m, none);
      fill(m, none, "", inner);
    }
  } else {
    fill(v, pos, option_name(*t, Field::kPort), inner);
    if (v.count(Field::kEpMoe) && !inner.expert) inner.expert = inner.tensor.value_or(1);
    if (v.count(Field::kDpAttention) && !inner.data && inner.tensor) inner.data = inner.tensor;
    if (v.count(Field::kEnableEp) && !inner.expert)
      inner.expert = inner.tensor.value_or(1) * inner.data.value_or(1);
  }
  if (at > 0) {  // the wrappers' world, as before: theirs when they give one
    inner.world_size = world;
    inner.local_world_size = local;
  }
  return inner;
}

namespace {

/// OLLAMA_HOST as envconfig.Host() reads it: "[scheme://]host[:port][/path]";
/// the port defaults to 11434, or 80 / 443 for an explicit http / https.
std::optional<uint32_t> ollama_port(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(0, 1);
  uint32_t fallback = 11434;
  if (size_t at = s.find("://"); at != std::string::npos) {
    std::string scheme = s.substr(0, at);
    if (scheme == "http") fallback = 80;
    if (scheme == "https") fallback = 443;
    s = s.substr(at + 3);
  }
  s = s.substr(0, s.find('/'));
  size_t colon = s.rfind(':');
  if (colon == std::string::npos || (s.front() == '[' && s.back() == ']')) return fallback;
  std::optional<uint32_t> p = number(s.substr(colon + 1), 1, 65535);
  return p ? p : std::optional<uint32_t>(fallback);
}

}  // namespace

void apply_server_environment(const std::string& kind,
                              const std::map<std::string, std::string>& env, ServerFlags& f) {
  auto get = [&](const char* k) -> std::optional<std::string> {
    auto it = env.find(k);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  auto port_from = [&](const char* k) {
    if (f.port) return;
    if ((f.port = number(get(k), 1, 65535))) f.port_source = k;
  };
  if (kind == "Ollama" && !f.port)
    if (std::optional<std::string> host = get("OLLAMA_HOST"); host && !host->empty()) {
      f.port = ollama_port(*host);
      f.port_source = "OLLAMA_HOST";
    }
  if (kind == "TGI") {
    port_from("PORT");
    if (!f.model) f.model = get("MODEL_ID");
    if (!f.tensor) f.tensor = number(get("NUM_SHARD"), 1, 4096);
  }
  if (kind == "llama.cpp server") {
    port_from("LLAMA_ARG_PORT");
    if (!f.model) f.model = get("LLAMA_ARG_MODEL");
  }
  if (kind == "torchrun" || kind == "DeepSpeed") {
    if (!f.world_size) f.world_size = number(get("WORLD_SIZE"), 1, 1u << 20);
    if (!f.local_world_size) f.local_world_size = number(get("LOCAL_WORLD_SIZE"), 1, 4096);
  }
}

void apply_server_config(const std::string& kind, const std::string& yaml, const std::string& name,
                         ServerFlags& f) {
  const Table* t = table_for(kind);
  if (!t) return;
  std::vector<std::string> words;
  size_t i = 0;
  while (i < yaml.size() && words.size() < 4096) {
    size_t end = yaml.find('\n', i);
    if (end == std::string::npos) end = yaml.size();
    std::string line = yaml.substr(i, end - i);
    i = end + 1;
    if (line.empty() || line[0] == ' ' || line[0] == '\t' || line[0] == '#') continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon), value = line.substr(colon + 1);
    if (size_t hash = value.find(" #"); hash != std::string::npos) value.resize(hash);
    // One pass each way: erasing one leading blank at a time is quadratic.
    auto trim = [](std::string& s) {
      const size_t from = s.find_first_not_of(" \t\r");
      if (from == std::string::npos) {
        s.clear();
        return;
      }
      s = s.substr(from, s.find_last_not_of(" \t\r") - from + 1);
      if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
        s = s.substr(1, s.size() - 2);
    };
    trim(key);
    trim(value);
    if (key.empty() || value.empty()) continue;
    std::replace(key.begin(), key.end(), '_', '-');  // both parsers read either spelling
    words.push_back("--" + key + "=" + value);
  }
  Table exact = *t;
  exact.abbreviations = false;  // a config's keys are full names
  Values v, none;
  read_words(exact, words, v, none);
  v.erase(Field::kConfig);
  fill(v, none, "", f);
  if (f.port && !f.port_source) f.port_source = name;
  if (f.port_source && f.port_source->empty()) f.port_source = name;
}

}  // namespace gt
