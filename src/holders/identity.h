// What a server is, from its command lines: its kind (SGLang, vLLM, ...),
// the model it serves, its port and its parallel sizes. Pure functions over
// text, shared by the /proc grouping and the capture path.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gt {

/// The program a command line runs: argv[0], or what an interpreter runs
/// (python's -m module or script, a shell's script, "uv run" / "uvx" /
/// "pipx run"'s program, "accelerate launch"'s training script). `args_from`
/// is the index of the program's first own argument.
struct Program {
  std::string name;     ///< the path or module as given ("" for an empty command line)
  bool module = false;  ///< `name` is a Python module ("python -m NAME")
  size_t args_from = 0;
};
Program program_of(const std::vector<std::string>& argv);

/// The kind a process is by its program alone ("SGLang", "vLLM", "TGI",
/// "Triton", "TensorRT-LLM", "LMDeploy", "Ollama", "llama.cpp server",
/// "torchrun", "DeepSpeed", "Ray", and the generic launchers "mpirun" and
/// "srun" when the program they run is of no known kind): its executable or
/// console script, its Python module or that module's file run as a script,
/// or its process title, through process launchers (mpirun, mpiexec, srun
/// and MPMD segments, holders/wrapper_command.h); never a word
/// elsewhere in its arguments or its path (a venv named "vllm", a
/// supervisor's "sglang.yaml"). `comm` counts only for a process with no
/// command line. Nullopt for anything else: an unknown program is unknown.
std::optional<std::string> recognise_program(const std::string& comm, std::string_view cmdline);

/// The program a process launcher's command line (mpirun, mpiexec, srun)
/// runs, by its base name through interpreters ("train.py", "my_server"):
/// its first MPMD segment's; nullopt when the command line is no launcher's.
std::optional<std::string> launched_program(std::string_view cmdline);

/// Whether `kind` is a generic launcher (Ray, mpirun, srun, torchrun,
/// DeepSpeed) that runs whatever program it is given: the kind of the
/// server then comes from the processes that hold the GPUs.
bool generic_launcher(const std::string& kind);

/// A command line split into words (by spaces, as /proc's NULs are joined).
std::vector<std::string> split_cmdline(std::string_view cmdline);

/// The value of the first of `flags` present as "--flag V" or "--flag=V".
std::optional<std::string> flag_value(const std::vector<std::string>& argv,
                                      std::initializer_list<std::string_view> flags);

/// The model a server serves: --model-path, --model, --model-id, -m, or the
/// positional argument of "vllm serve M" / "trtllm-serve M".
std::optional<std::string> model_of(const std::vector<std::string>& argv);

/// --port N (1-65535).
std::optional<uint32_t> port_of(const std::vector<std::string>& argv);

/// Tensor, data and pipeline parallel sizes (--tp, --tp-size,
/// --tensor-parallel-size, -tp; --dp...; --pp...), 1-4096: the common
/// spellings, for processes of no known kind (server_flags.h reads the
/// known kinds as their own parsers do).
struct ParallelSizes {
  std::optional<uint32_t> tensor, data, pipeline;
};
ParallelSizes parallel_of(const std::vector<std::string>& argv);

/// "SGLang server", "torchrun job", "process python3": how a sentence names it.
std::string server_noun(const std::string& kind, bool recognised);

}  // namespace gt
