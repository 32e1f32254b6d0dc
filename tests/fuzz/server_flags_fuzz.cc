// A server's identity from its words: each input is a command line (up to
// the first newline; NULs as /proc joins them) read by recognise_program and
// by every kind's flag table, and the rest a config file read by every
// kind's config reader (vLLM's and SGLang's --config YAML).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_target.h"
#include "holders/identity.h"
#include "holders/server_flags.h"
#include "util/proc_environ.h"

namespace server_flags_fuzz {

GT_FUZZ_TARGET(server_flags) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const size_t nl = text.find('\n');
  std::string line(text.substr(0, nl));
  for (char& c : line)
    if (c == '\0') c = ' ';
  const std::string yaml(nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1));
  const std::vector<std::string> argv = gt::split_cmdline(line);
  (void)gt::recognise_program(line.substr(0, 15), line);
  (void)gt::program_of(argv);
  for (const char* kind : {"SGLang", "vLLM", "TGI", "Triton", "TensorRT-LLM", "LMDeploy", "Ollama",
                           "llama.cpp server", "torchrun", "DeepSpeed", "mpirun", "srun", "Ray"}) {
    gt::ServerFlags f = gt::parse_server_flags(kind, argv);
    gt::apply_server_config(kind, yaml, "config fuzz.yaml", f);
    gt::apply_server_environment(kind, gt::parse_environ(yaml), f);
  }
  return 0;
}

}  // namespace server_flags_fuzz
