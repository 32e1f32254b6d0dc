#include "free/free_hint.h"

#include <algorithm>

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
  if (o.whole_server) out.push_back("--whole-server");
  if (o.via_owner) out.push_back("--via-owner");
  if (o.force_signal) out.push_back("--signal");
  return out;
}

std::string free_command_adding(const FreeOptions& o, const std::vector<std::string>& extra) {
  std::vector<std::string> args = selection_args(o);
  for (const std::string& a : extra)
    if (a.rfind("--", 0) != 0 || std::find(args.begin(), args.end(), a) == args.end())
      args.push_back(a);
  return free_command(args);
}

std::string whole_server_command(uint32_t pid) {
  return free_command({"--pid", std::to_string(pid), "--whole-server"});
}

}  // namespace gt
