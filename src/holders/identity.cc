// A process is a server's by its program, never by a word anywhere in its
// command line: an executable or console script (vllm, trtllm-serve,
// llama-server, "llama serve"), a Python module run with -m
// (sglang.launch_server) or the same module's file run as a script
// (.../sglang/launch_server.py, as pm2 and supervisord run it), or a process
// title its workers set (SGLang's "sglang::scheduler_TP0", vLLM's
// "VLLM::Worker_TP0", Ray's "ray::..."). A venv named "vllm", a script of
// one's own beside SGLang's sources, or a framework's --sglang_tp_size flag
// names no kind. Each entry point is named with the file that defines it.
#include "holders/identity.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "holders/wrapper_command.h"

namespace gt {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 // A byte >= 0x80 (a UTF-8 path): tolower's int back into
                 // char through an explicit cast, never an implicit truncation.
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string base(const std::string& w) { return w.substr(w.rfind('/') + 1); }

struct Executable {
  std::string_view name;  // argv[0]'s (or a script's) file name
  std::string_view kind;
  std::string_view subcommand;  // "" when any; else the first word must be it
};

// Console scripts and binaries. sglang: python/pyproject.toml ("sglang
// serve", sglang/launch_server.py's recommended entry point); vllm:
// vllm.entrypoints.cli.main; TGI: launcher/ (text-generation-launcher) and
// server/ (text-generation-server); tritonserver; TensorRT-LLM: trtllm-serve
// (tensorrt_llm/commands/serve.py) and trtllm-llmapi-launch (a wrapper,
// tensorrt_llm/llmapi/trtllm-llmapi-launch); lmdeploy (lmdeploy.cli:run);
// ollama; llama.cpp: llama-server and the single binary's "llama serve"
// (README.md); torchrun, deepspeed; Ray's "ray" CLI and its raylet;
// Open MPI / MPICH and Slurm. Product runners by their shipped names:
// TGI's router (backends/v3/Cargo.toml [[bin]] text-generation-router);
// Ollama's llama.cpp runner before the Go runner (the CMake target
// ollama_llama_server its llm/generate scripts build); Aphrodite
// (setup.py console_scripts aphrodite = aphrodite.endpoints.cli:main);
// Infinity (libs/infinity_emb/pyproject.toml [tool.poetry.scripts]
// infinity_emb); MLC LLM (python/setup.py console_scripts mlc_llm, whose
// "serve" subcommand is its server; "chat" and "compile" are not).
constexpr Executable kExecutables[] = {
    {"sglang", "SGLang", ""},
    {"vllm", "vLLM", ""},
    {"text-generation-launcher", "TGI", ""},
    {"text-generation-server", "TGI", ""},
    {"text-generation-router", "TGI", ""},
    {"tritonserver", "Triton", ""},
    {"trtllm-serve", "TensorRT-LLM", ""},
    {"trtllm-llmapi-launch", "TensorRT-LLM", ""},
    {"lmdeploy", "LMDeploy", ""},
    {"ollama", "Ollama", ""},
    {"ollama_llama_server", "Ollama", ""},
    {"aphrodite", "Aphrodite", ""},
    {"infinity_emb", "Infinity", ""},
    {"mlc_llm", "MLC LLM", "serve"},
    {"llama-server", "llama.cpp server", ""},
    {"llama", "llama.cpp server", "serve"},
    {"torchrun", "torchrun", ""},
    {"deepspeed", "DeepSpeed", ""},
    {"ray", "Ray", ""},
    {"raylet", "Ray", ""},
    {"mpirun", "mpirun", ""},
    {"mpiexec", "mpirun", ""},
    {"orterun", "mpirun", ""},
    {"prterun", "mpirun", ""},
    {"srun", "srun", ""},
};

struct Module {
  std::string_view name;  // as after "python -m"; its file is the same path with ".py"
  std::string_view kind;
};

// Python modules that start a server or a launcher (each a file of that
// project: sglang/launch_server.py; vllm/entrypoints/openai/api_server.py,
// vllm/entrypoints/api_server.py, vllm/entrypoints/cli/main.py;
// text_generation_server/cli.py; tensorrt_llm/commands/serve.py and the
// MPI leader / worker that trtllm-llmapi-launch starts; lmdeploy/__main__.py,
// lmdeploy/serve/openai/api_server.py; torch/distributed/run.py and
// launch.py; deepspeed/launcher/runner.py and launch.py;
// aphrodite/endpoints/openai/api_server.py and the cli module the console
// script runs, aphrodite/endpoints/cli.py).
constexpr Module kModules[] = {
    {"sglang.launch_server", "SGLang"},
    {"vllm.entrypoints.openai.api_server", "vLLM"},
    {"vllm.entrypoints.api_server", "vLLM"},
    {"vllm.entrypoints.cli.main", "vLLM"},
    {"text_generation_server.cli", "TGI"},
    {"tensorrt_llm.commands.serve", "TensorRT-LLM"},
    {"tensorrt_llm.llmapi.mgmn_leader_node", "TensorRT-LLM"},
    {"tensorrt_llm.llmapi.mgmn_worker_node", "TensorRT-LLM"},
    {"lmdeploy", "LMDeploy"},
    {"lmdeploy.serve.openai.api_server", "LMDeploy"},
    {"torch.distributed.run", "torchrun"},
    {"torch.distributed.launch", "torchrun"},
    {"deepspeed.launcher.runner", "DeepSpeed"},
    {"deepspeed.launcher.launch", "DeepSpeed"},
    {"aphrodite.endpoints.openai.api_server", "Aphrodite"},
    {"aphrodite.endpoints.cli", "Aphrodite"},
};

// Process titles (setproctitle): SGLang's schedulers and detokenizer
// ("sglang::scheduler_TP3"), vLLM's workers and engine core
// ("VLLM::Worker_TP0", "VLLM::EngineCore"), Ray's workers ("ray::...").
constexpr std::pair<std::string_view, std::string_view> kTitles[] = {
    {"sglang::", "SGLang"}, {"vllm::", "vLLM"}, {"ray::", "Ray"}};

bool is_python(const std::string& b) { return b.starts_with("python") || b == "pypy3"; }
bool is_shell(const std::string& b) { return b == "bash" || b == "sh" || b == "dash"; }

/// The file a module is: "a.b" is a/b.py, or a/__main__.py for a package.
bool script_is_module(const std::string& script, std::string_view module) {
  std::string file(module);
  std::replace(file.begin(), file.end(), '.', '/');
  for (const std::string& f : {file + ".py", file + "/__main__.py"})
    if (script == f || (script.size() > f.size() && script.ends_with(f) &&
                        script[script.size() - f.size() - 1] == '/'))
      return true;
  return false;
}

std::optional<std::string> by_title(const std::string& word) {
  const std::string w = lower(word.substr(0, 64));
  for (const auto& [prefix, kind] : kTitles)
    if (w.starts_with(prefix)) return std::string(kind);
  return std::nullopt;
}

// Hugging Face Accelerate's "accelerate launch" (src/accelerate/commands/
// launch.py, launch_command_parser): these options are switches
// (store_true), every other one takes one value; the first positional
// argument is the training script, a module with -m/--module.
constexpr std::string_view kAccelerateSwitches[] = {"-q",
                                                    "--quiet",
                                                    "--cpu",
                                                    "--multi_gpu",
                                                    "--tpu",
                                                    "--enable_cpu_affinity",
                                                    "--dynamo_use_fullgraph",
                                                    "--dynamo_use_dynamic",
                                                    "--dynamo_use_regional_compilation",
                                                    "--use_deepspeed",
                                                    "--use_fsdp",
                                                    "--use_parallelism_config",
                                                    "--use_megatron_lm",
                                                    "--same_network",
                                                    "-m",
                                                    "--module",
                                                    "--no_python",
                                                    "--tpu_cluster",
                                                    "--no_tpu_cluster",
                                                    "--tpu_use_sudo",
                                                    "--downcast_bf16",
                                                    "--fp8_use_autocast_during_eval",
                                                    "--debug"};

/// Sets `p` to the script "accelerate launch" runs (its options from
/// `from`); false when none follows them.
bool accelerate_script(const std::vector<std::string>& argv, size_t from, Program& p) {
  size_t i = from;
  bool module = false;
  while (i < argv.size() && argv[i].size() > 1 && argv[i][0] == '-') {
    const std::string& w = argv[i];
    module = module || w == "-m" || w == "--module";
    const bool sw = w.find('=') != std::string::npos ||
                    std::find(std::begin(kAccelerateSwitches), std::end(kAccelerateSwitches), w) !=
                        std::end(kAccelerateSwitches);
    i += sw ? 1 : 2;
  }
  if (i >= argv.size()) return false;
  p.name = argv[i];
  p.module = module;
  p.args_from = i + 1;
  return true;
}

std::optional<uint32_t> small_uint(const std::optional<std::string>& text, uint32_t lo,
                                   uint32_t hi) {
  if (!text || text->empty()) return std::nullopt;
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size() || v < lo || v > hi)
    return std::nullopt;
  return v;
}

bool is_flag(const std::string& w) { return w.size() > 1 && w[0] == '-'; }

std::string joined_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out.substr(0, 4096);
}

}  // namespace

Program program_of(const std::vector<std::string>& argv) {
  Program p;
  if (argv.empty()) return p;
  p.name = argv[0];
  p.args_from = 1;
  // An interpreter (python, a shell, uv / uvx / pipx) runs what follows it;
  // at most four of them in a row are looked through.
  for (int hop = 0; hop < 4 && p.args_from <= argv.size(); ++hop) {
    const std::string b = base(p.name);
    const size_t at = p.args_from;
    if (is_python(b)) {
      size_t i = at;
      for (; i < argv.size(); ++i) {
        const std::string& w = argv[i];
        if (w == "-m" && i + 1 < argv.size()) {
          p.name = argv[i + 1];
          p.module = true;
          p.args_from = i + 2;
          return p;
        }
        if (w == "-c" || w == "-" || w == "--") {
          p.name = w;
          p.args_from = argv.size();
          return p;
        }
        if (w == "-W" || w == "-X") {  // options of the interpreter's that take a value
          ++i;
          continue;
        }
        if (!is_flag(w)) break;
      }
      if (i >= argv.size()) return p;  // the interpreter alone
      p.name = argv[i];
      p.args_from = i + 1;
      continue;  // the script may be a console script of a kind
    }
    const bool runner =
        b == "uvx" || ((b == "uv" || b == "pipx") && at < argv.size() && argv[at] == "run");
    if (is_shell(b) || runner) {
      size_t i = at + (runner && b != "uvx" ? 1 : 0);
      while (i < argv.size() && is_flag(argv[i])) ++i;
      if (i >= argv.size() || (is_shell(b) && i > at)) return p;  // "bash -c ...", a shell
      p.name = argv[i];
      p.args_from = i + 1;
      continue;
    }
    if (b == "accelerate" && at < argv.size() && argv[at] == "launch") {
      if (!accelerate_script(argv, at + 1, p)) return p;
      if (p.module) return p;
      continue;
    }
    return p;
  }
  return p;
}

std::optional<std::string> recognise_program(const std::string& comm, std::string_view cmdline) {
  std::vector<std::string> argv = split_cmdline(cmdline.substr(0, 4096));
  if (argv.empty()) {
    if (std::optional<std::string> t = by_title(comm)) return t;
    // A kernel-truncated name (15 bytes) of a known executable.
    const std::string c = base(comm);
    for (const Executable& e : kExecutables)
      if (e.subcommand.empty() && !c.empty() && (e.name == c || e.name.substr(0, 15) == c))
        return std::string(e.kind);
    return std::nullopt;
  }
  if (std::optional<std::string> t = by_title(argv[0])) return t;
  if (std::optional<std::string> t = by_title(comm)) return t;
  // A process launcher is what it runs: the first MPMD segment whose
  // program is of a known kind; the launcher's own kind only when none is.
  for (const std::vector<std::string>& seg : launched_commands(argv))
    if (std::optional<std::string> k = recognise_program("", joined_words(seg));
        k && !is_process_launcher(*k))
      return k;
  const Program p = program_of(argv);
  if (p.module) {
    for (const Module& m : kModules)
      if (p.name == m.name) return std::string(m.kind);
    return std::nullopt;
  }
  const std::string b = base(p.name);
  std::string first;  // the program's first word that is not an option
  for (size_t i = p.args_from; i < argv.size() && first.empty(); ++i)
    if (!is_flag(argv[i])) first = argv[i];
  for (const Executable& e : kExecutables)
    if (b == e.name && (e.subcommand.empty() || first == e.subcommand)) return std::string(e.kind);
  if (p.name.ends_with(".py"))
    for (const Module& m : kModules)
      if (script_is_module(p.name, m.name)) return std::string(m.kind);
  return std::nullopt;
}

std::optional<std::string> launched_program(std::string_view cmdline) {
  const std::vector<std::vector<std::string>> segs =
      launched_commands(split_cmdline(cmdline.substr(0, 4096)));
  if (segs.empty()) return std::nullopt;
  const Program p = program_of(segs.front());
  return p.name.empty() ? std::nullopt : std::optional<std::string>(base(p.name));
}

bool generic_launcher(const std::string& kind) {
  return kind == "Ray" || kind == "mpirun" || kind == "srun" || kind == "torchrun" ||
         kind == "DeepSpeed";
}

std::vector<std::string> split_cmdline(std::string_view cmdline) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < cmdline.size() && out.size() < 4096) {
    while (i < cmdline.size() && cmdline[i] == ' ') ++i;
    size_t j = cmdline.find(' ', i);
    if (j == std::string_view::npos) j = cmdline.size();
    if (j > i) out.emplace_back(cmdline.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<std::string> flag_value(const std::vector<std::string>& argv,
                                      std::initializer_list<std::string_view> flags) {
  for (size_t i = 0; i < argv.size(); ++i)
    for (std::string_view f : flags) {
      const std::string& w = argv[i];
      if (w == f && i + 1 < argv.size() && !is_flag(argv[i + 1])) return argv[i + 1];
      if (w.size() > f.size() + 1 && w.compare(0, f.size(), f) == 0 && w[f.size()] == '=')
        return w.substr(f.size() + 1);
    }
  return std::nullopt;
}

std::optional<std::string> model_of(const std::vector<std::string>& argv) {
  if (auto m = flag_value(argv, {"--model-path", "--model", "--model-id", "--model_path"}))
    return m;
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    const std::string base = argv[i].substr(argv[i].rfind('/') + 1);
    bool serve =
        (argv[i] == "serve" && i > 0 && lower(argv[i - 1]).find("vllm") != std::string::npos) ||
        base == "trtllm-serve";
    if (serve && !is_flag(argv[i + 1])) return argv[i + 1];
  }
  if (auto m = flag_value(argv, {"-m"})) {
    // "python -m sglang.launch_server" names a module, not a model.
    if (m->find('/') != std::string::npos || m->ends_with(".gguf")) return m;
  }
  return std::nullopt;
}

std::optional<uint32_t> port_of(const std::vector<std::string>& argv) {
  return small_uint(flag_value(argv, {"--port"}), 1, 65535);
}

ParallelSizes parallel_of(const std::vector<std::string>& argv) {
  ParallelSizes p;
  p.tensor = small_uint(flag_value(argv, {"--tp", "--tp-size", "--tensor-parallel-size", "-tp",
                                          "--tensor_parallel_size", "--num-shard"}),
                        1, 4096);
  p.data = small_uint(
      flag_value(argv, {"--dp", "--dp-size", "--data-parallel-size", "--data_parallel_size"}), 1,
      4096);
  p.pipeline = small_uint(flag_value(argv, {"--pp", "--pp-size", "--pipeline-parallel-size",
                                            "--pipeline_parallel_size"}),
                          1, 4096);
  return p;
}

std::string server_noun(const std::string& kind, bool recognised) {
  if (!recognised) return "process " + kind;
  if (kind == "torchrun" || kind == "DeepSpeed" || kind == "Ray" || kind == "mpirun" ||
      kind == "srun")
    return kind + " job";
  if (kind.ends_with("server")) return kind;
  return kind + " server";
}

}  // namespace gt
