// The catalogue (xid_catalog.cc) names a handful of commands in its
// imperatives; each is recognised by its exact words here, never by a
// general parse of prose, so a new catalogue text with a new command needs
// a row below (action_commands_test.cc holds every catalogue row to it).
#include "checks/action_commands.h"

#include <algorithm>

namespace gt {
namespace {

struct Named {
  const char* words;    ///< as the catalogue writes it
  const char* command;  ///< with {} for the target
};

constexpr Named kNamed[] = {
    {"nvidia-smi -r -i <index>", "sudo nvidia-smi -r -i {}"},
    {"dcgmi diag -r 3", "dcgmi diag -r 3 -i {}"},
    {"nvidia-smi -q -d ECC", "nvidia-smi -q -d ECC -i {}"},
    {"nvidia-smi -q -d PCIE", "nvidia-smi -q -d PCIE -i {}"},
    {"nvidia-smi nvlink -e", "nvidia-smi nvlink -e -i {}"},
};

std::string with_target(const char* pattern, const std::string& target) {
  std::string out = pattern;
  out.replace(out.find("{}"), 2, target);
  return out;
}

}  // namespace

std::vector<std::string> action_commands(const std::string& action, const std::string& target) {
  std::vector<std::pair<size_t, std::string>> found;  // in the order the text names them
  if (target.empty()) return {};
  for (const Named& n : kNamed)
    if (size_t at = action.find(n.words); at != std::string::npos)
      found.emplace_back(at, with_target(n.command, target));
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [at, c] : found) out.push_back(std::move(c));
  return out;
}

std::string fill_target(std::string action, const std::string& target) {
  if (target.empty()) return action;
  for (size_t at; (at = action.find("<index>")) != std::string::npos;)
    action.replace(at, 7, target);
  return action;
}

bool is_reboot_command(const std::string& c) {
  return c.starts_with("sudo reboot") || c.starts_with("reboot") ||
         c.find("systemctl reboot") != std::string::npos;
}

bool is_reset_command(const std::string& c) {
  return c.find("nvidia-smi -r") != std::string::npos || c.find("--gpu-reset") != std::string::npos;
}

void bundle_before_drastic(std::vector<std::string>& commands) {
  auto drastic = std::find_if(commands.begin(), commands.end(), [](const std::string& c) {
    return is_reboot_command(c) || is_reset_command(c);
  });
  if (drastic == commands.end()) return;
  const std::string bundle =
      std::string(drastic->starts_with("sudo ") ? "sudo " : "") + "gpu-triage bundle";
  if (std::find(commands.begin(), commands.end(), bundle) != commands.end()) return;
  commands.insert(commands.begin(), bundle);
}

}  // namespace gt
