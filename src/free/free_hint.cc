#include "free/free_hint.h"

#include "util/index_list.h"

namespace gt {

std::string gpus_arg(const std::vector<uint32_t>& indices) {
  std::string out;
  for (char c : format_index_list(indices))
    if (c != ' ') out += c;
  return out;
}

std::string free_command(const std::vector<std::string>& args) {
  std::string out = "`gpu-triage free";
  for (const std::string& a : args) out += " " + a;
  return out + "`";
}

std::vector<std::string> selection_args(const FreeOptions& o) {
  std::vector<std::string> out;
  if (o.gpus) out.insert(out.end(), {"--gpus", gpus_arg(*o.gpus)});
  for (uint32_t p : o.pids) out.insert(out.end(), {"--pid", std::to_string(p)});
  return out;
}

std::string whole_server_command(uint32_t pid) {
  return free_command({"--pid", std::to_string(pid), "--whole-server"});
}

}  // namespace gt
