// A server's command line read the way its own argument parser reads it:
// one flag table per kind, taken from each project's argument definitions
// (the file is named beside each table in server_flags.cc). Every spelling
// that parser accepts: "--flag V" and "--flag=V", its short forms (vLLM's
// -tp/-pp/-dp, llama.cpp's -m), dashes or underscores where it converts
// them (vLLM), prefix abbreviations where the parser allows them (argparse,
// getopt_long), the positional model ("vllm serve M", "trtllm-serve M",
// "lmdeploy serve api_server M"), implied values (SGLang's
// --enable-dp-attention, vLLM's --enable-expert-parallel) and the port a
// server listens on when none is given ("default port"). Pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gt {

struct ServerFlags {
  std::optional<std::string> model;
  std::optional<uint32_t> port;
  std::optional<std::string> port_source;  ///< "--port", "default port", "OLLAMA_HOST", "config F"
  std::optional<uint32_t> tensor, data, pipeline, expert;
  /// torchrun / DeepSpeed / mpirun / srun: processes in the job and on this
  /// node. Their launchers do not know how the script splits the world.
  std::optional<uint32_t> world_size, local_world_size;
  std::optional<std::string> config_file;  ///< a config file named on the command line
};

/// The words `kind`'s parser reads: after the interpreter's "-m module" or
/// script, or after argv[0]. For a generic wrapper (mpirun, srun) the words
/// from the program it runs. Capped at 4096 words.
std::vector<std::string> parser_words(const std::vector<std::string>& argv);

/// Reads `argv` (a whole command line) as `kind`'s parser would. Nothing
/// is guessed: a flag whose value is not a number in range stays null.
ServerFlags parse_server_flags(const std::string& kind, const std::vector<std::string>& argv);

/// Fills what is still null from the launcher's environment, as the
/// server itself reads it: OLLAMA_HOST (Ollama's envconfig), PORT /
/// MODEL_ID / NUM_SHARD (TGI's launcher), LLAMA_ARG_PORT / LLAMA_ARG_MODEL
/// (llama.cpp), WORLD_SIZE / LOCAL_WORLD_SIZE (torchrun and DeepSpeed).
void apply_server_environment(const std::string& kind,
                              const std::map<std::string, std::string>& env, ServerFlags& f);

/// Fills what is still null from a YAML config file (vLLM and SGLang
/// --config: top-level "key: value", keys spelled as the long flags without
/// dashes). `name` is how the source is reported ("config x.yaml").
void apply_server_config(const std::string& kind, const std::string& yaml, const std::string& name,
                         ServerFlags& f);

/// The port `kind` listens on when none is given, if it has one.
std::optional<uint32_t> default_port(const std::string& kind);

}  // namespace gt
