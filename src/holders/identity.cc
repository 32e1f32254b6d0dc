// Servers announce themselves in their command line or process title:
// SGLang's schedulers call setproctitle ("sglang::scheduler_TP3"), vLLM's
// workers ("VLLM::Worker_TP0") and its CLI ("vllm serve"), TGI's launcher and
// shards ("text-generation-launcher", "text-generation-server"), Triton
// ("tritonserver"), TensorRT-LLM ("trtllm-serve"), Ollama ("ollama serve" /
// "ollama runner"), llama.cpp ("llama-server"), and training launchers
// torchrun / deepspeed / ray, whose workers carry "torch.distributed.run",
// "deepspeed" or "ray::" in their argv.
#include "holders/identity.h"

#include <algorithm>
#include <cctype>
#include <charconv>

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

struct Pattern {
  const char* needle;  // lowercase substring of name + " " + cmdline
  const char* kind;
};

// Order matters: more specific first (trtllm before triton, tgi before torch).
constexpr Pattern kPatterns[] = {
    {"sglang", "SGLang"},
    {"vllm", "vLLM"},
    {"text-generation-launcher", "TGI"},
    {"text-generation-server", "TGI"},
    {"text_generation_server", "TGI"},
    {"trtllm", "TensorRT-LLM"},
    {"tensorrt_llm", "TensorRT-LLM"},
    {"tritonserver", "Triton"},
    {"lmdeploy", "LMDeploy"},
    {"ollama", "Ollama"},
    {"llama-server", "llama.cpp server"},
    {"llama.cpp", "llama.cpp server"},
    {"torchrun", "torchrun"},
    {"torch.distributed.run", "torchrun"},
    {"torch.distributed.launch", "torchrun"},
    {"deepspeed", "DeepSpeed"},
    {"ray::", "Ray"},
};

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

}  // namespace

std::optional<std::string> recognise_server_kind(std::string_view name_and_cmdline) {
  const std::string text = lower(name_and_cmdline);
  for (const Pattern& p : kPatterns)
    if (text.find(p.needle) != std::string::npos) return std::string(p.kind);
  return std::nullopt;
}

std::optional<std::string> recognise_program(const std::string& comm, std::string_view cmdline) {
  std::vector<std::string> argv = split_cmdline(cmdline.substr(0, 4096));
  auto base = [](const std::string& w) { return w.substr(w.rfind('/') + 1); };
  std::string program = comm;
  if (!argv.empty()) {
    const std::string b = base(argv[0]);
    program += " " + argv[0];
    if (b == "mpirun" || b == "mpiexec" || b == "orterun" || b == "prterun" || comm == "mpirun" ||
        comm == "mpiexec")
      return std::string("mpirun");
    if (b == "srun" || comm == "srun") return std::string("srun");
    // An interpreter runs the module after -m, or its first non-flag word.
    if (b.starts_with("python") || b == "uv" || b == "pipx")
      for (size_t i = 1; i < argv.size(); ++i) {
        if (argv[i] == "-m" && i + 1 < argv.size()) {
          program += " " + argv[i + 1];
          break;
        }
        if (argv[i].front() != '-') {
          program += " " + base(argv[i]);
          break;
        }
      }
  }
  // Ray's node daemon runs every Ray worker of the node ("ray::..." titles).
  const std::string b0 = argv.empty() ? comm : base(argv[0]);
  if (comm == "raylet" || b0 == "raylet" || b0 == "ray") return std::string("Ray");
  return recognise_server_kind(program);
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
