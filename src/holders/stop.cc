#include "holders/stop.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/shell_word.h"
#include "util/terminal_text.h"

namespace gt {
namespace {

std::string pid_list(const Server& s) {
  std::string out;
  for (const ServerMember& m : s.members) out += (out.empty() ? "" : " ") + std::to_string(m.pid);
  return out;
}

/// "docker container specforge (7c3e9a1b2d4f)", or the id alone.
std::string container_words(const Server& s, const std::string& word, const std::string& id) {
  return word + " container " + (s.container ? container_name_id(*s.container) : id);
}

/// Where a server that its container's command started comes back from,
/// when the container runs on without it.
std::string container_returns(const Server& s) {
  const ContainerInfo& c = *s.container;
  std::string text = fmt::format(
      "Its container's command{} started it and runs on without it; it starts again whenever "
      "the container starts again (restarted, or made anew",
      c.command ? " '" + *c.command + "'" : std::string());
  if (c.created_by_unit)
    text += fmt::format(" as {} does each time it starts{}", *c.created_by_unit,
                        c.auto_remove == true ? ", with docker run --rm" : "");
  return text +
         "): take it out of that command (the image's start script) to keep it from "
         "coming back.";
}

/// "container specforge (7c3e9a1b2d4f)".
std::string container_label(const ContainerInfo& c) { return "container " + container_name_id(c); }

/// What a stop does to the server's container beyond the server.
std::string container_note(const Server& s, bool via_owner) {
  if (!s.container) return "";
  const ContainerInfo& c = *s.container;
  if (via_owner)
    return c.created_by_unit ? "Stopping " + *c.created_by_unit + " ends " + container_label(c) +
                                   " and everything in it."
                             : "Stopping " + container_label(c) + " ends everything in it.";
  if (s.container_main == false) return container_returns(s);
  if (!s.container_main)
    return "Whether its " + container_label(c) +
           " runs on without it, and so whether its command starts it again, is not known "
           "(Docker's record of the container's PID 1 was not read or not borne out).";
  return "It is " + container_label(c) + "'s main process: stopping it ends the container" +
         (c.auto_remove == true ? ", which Docker then removes (docker run --rm)." : ".");
}

/// Commands that stop the owner now and keep it from starting again.
void owner_commands(const Server& s, ServerStop& out) {
  const OwnerKind kind = *s.owner_kind;
  const std::string word = owner_kind_name(kind);
  const std::string name = s.owner_name.value_or("?");
  const std::string id = name.substr(0, 12);
  // The names come from /proc/PID/cgroup, which a user's delegated subtree
  // names at will: each is one quoted word of the command.
  const std::string name_word = shell_word(name);
  const std::string id_word = shell_word(id);
  if (kind == OwnerKind::kSystemdUnit) {
    out.owner_text = "systemd unit " + name;
    out.stop = {"sudo systemctl stop " + name_word};
    out.disable = {"sudo systemctl disable " + name_word};
  } else if ((kind == OwnerKind::kDocker || kind == OwnerKind::kPodman) && s.container &&
             s.container->created_by_unit) {
    // The unit's `docker run` would create the container again.
    const std::string& unit = *s.container->created_by_unit;
    out.owner_text = container_words(s, word, id) + ", created by systemd unit " + unit;
    out.stop = {"sudo systemctl stop " + shell_word(unit)};
    out.disable = {"sudo systemctl disable " + shell_word(unit)};
    // Docker's own policy would restart the container too.
    if (s.container->restart_policy && s.container->restart_policy != "no")
      out.disable.push_back(word + " update --restart=no " + id_word);
  } else if (kind == OwnerKind::kDocker || kind == OwnerKind::kPodman) {
    out.owner_text = container_words(s, word, id);
    out.stop = {word + " stop " + id_word};
    // "no" already: an update would change nothing.
    if (!s.container || s.container->restart_policy != "no")
      out.disable = {word + " update --restart=no " + id_word};
  } else if (kind == OwnerKind::kContainerd || kind == OwnerKind::kCriO) {
    out.owner_text = word + " container " + id;
    out.stop = {"sudo crictl stop " + id_word};
  } else if (kind == OwnerKind::kKubernetesPod) {
    out.owner_text = "Kubernetes pod " + name;
    out.stop = {
        "kubectl get pods -A -o wide --field-selector spec.nodeName=$(hostname)   # the pod "
        "with UID " +
            name,
        "kubectl scale deployment/<name> -n <namespace> --replicas=0   # or delete what "
        "controls the pod"};
  } else if (kind == OwnerKind::kSystemdUserUnit) {
    out.owner_text = "user systemd unit " + name;
    out.stop = {"systemctl --user stop " + name_word + "   # as the user who owns it"};
    out.disable = {"systemctl --user disable " + name_word + "   # as the user who owns it"};
  } else if (kind == OwnerKind::kSlurmJob) {
    out.owner_text = "Slurm job " + name;
    out.stop = {"scancel " + name_word};
  } else {
    out.owner_text = word + " " + name;
  }
}

void signal_commands(const Server& s, ServerStop& out) {
  // The outermost thing that would start it again goes first: a restart
  // loop signalled after the launcher would run it again.
  // The wrapper's command line in the comment as a terminal shows it: a
  // line break in it would end the comment and start a command.
  for (const ServerProcess& w : s.wrappers)
    out.stop.push_back(
        fmt::format("kill {}   # SIGTERM first to its wrapper '{}', which would "
                    "start the launcher again",
                    w.pid, for_terminal(w.cmdline.substr(0, 80))));
  if (s.launcher_exited) {
    out.stop.push_back("kill " + pid_list(s) +
                       "   # SIGTERM to each worker: their launcher exited");
  } else if (s.root_pid && s.members.size() > 1) {
    out.stop.push_back(
        fmt::format("kill {}   # SIGTERM to the launcher of PIDs {}", *s.root_pid, pid_list(s)));
  } else if (s.root_pid && (s.members.empty() || s.members.front().pid != *s.root_pid)) {
    out.stop.push_back(
        fmt::format("kill {}   # SIGTERM to the launcher of PID {}", *s.root_pid, pid_list(s)));
  } else {
    out.stop.push_back("kill " + pid_list(s) + "   # SIGTERM");
  }
}

}  // namespace

std::vector<std::string> ServerStop::all() const {
  std::vector<std::string> c = stop;
  c.insert(c.end(), disable.begin(), disable.end());
  return c;
}

bool owner_stoppable(OwnerKind kind) {
  return kind == OwnerKind::kSystemdUnit || kind == OwnerKind::kDocker ||
         kind == OwnerKind::kPodman;
}

namespace {

/// A transient scope (a terminal's tmux-spawn-*.scope, systemd-run's
/// run-*.scope, a login session) or a user manager's unit is not a service
/// gpu-triage may stop: stopping it ends the operator's own shell, or the
/// system manager has a different unit of that name.
bool owner_path_allowed(const Server& s) {
  if (!s.owner_kind || *s.owner_kind == OwnerKind::kSystemdUserUnit) return false;
  if (*s.owner_kind == OwnerKind::kSystemdUnit && s.owner_name && s.owner_name->ends_with(".scope"))
    return false;
  return true;
}

}  // namespace

ServerStop server_stop(const Server& s, bool via_owner, bool force_signal) {
  ServerStop out;
  ServerStop owner;
  const bool has_owner = s.owner_kind && *s.owner_kind != OwnerKind::kUserSession &&
                         *s.owner_kind != OwnerKind::kCgroup;
  if (has_owner) owner_commands(s, owner);
  out.owner_text =
      has_owner ? owner.owner_text : "no owner found (not in a unit, container or job)";
  const bool owner_path = has_owner && owner_path_allowed(s) && !owner.stop.empty() &&
                          !force_signal && (via_owner || s.restarts_when_signalled);
  if (owner_path) {
    out.via_owner = true;
    out.stop = owner.stop;
    out.disable = owner.disable;
    out.note = container_note(s, true);
    if (!owner_stoppable(*s.owner_kind))
      out.manual_only = owner.owner_text + " must be stopped through " +
                        (*s.owner_kind == OwnerKind::kKubernetesPod ? std::string("Kubernetes")
                                                                    : std::string("its runtime")) +
                        (s.restart_policy ? " (" + *s.restart_policy + ")" : std::string()) +
                        "; a signal would only make it come back";
    return out;
  }
  signal_commands(s, out);
  out.note = container_note(s, false);
  // A container that runs on without it (or may): stopping or disabling the
  // container would take the rest of it too; its command brings it back.
  if (s.container && s.container_main != true) return out;
  // Started at boot or by a policy: the durable fix keeps it from returning.
  if (has_owner && (s.auto_started || s.restarts_when_signalled)) out.disable = owner.disable;
  return out;
}

std::string without_sudo(const std::string& command) {
  std::string out;
  char quote = 0;  // the shell quote we are inside, if any
  bool starts = true;
  size_t i = 0;
  while (i < command.size()) {
    const char c = command[i];
    // "sudo " at the start of the line or of a command after && || | ; (,
    // as the shell reads it: a word inside quotes or after a backslash is
    // text, never a command.
    if (!quote && starts && command.compare(i, 5, "sudo ") == 0 &&
        command.compare(i + 5, 1, "-") != 0) {
      i += 5;
      continue;
    }
    if (quote) {
      if (c == quote) quote = 0;
      if (c == '\\' && quote == '"' && i + 1 < command.size()) out += command[i++];
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\' && i + 1 < command.size()) {
      out += command[i++];
    }
    if (!quote && c != ' ') starts = std::string("&|;(").find(c) != std::string::npos;
    if (quote) starts = false;
    out += command[i++];
  }
  return out;
}

std::string format_memory(uint64_t bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", bytes / (kMiB * 1024.0));
  return fmt::format("{:.0f} MiB", bytes / kMiB);
}

std::string format_memory(const std::optional<uint64_t>& bytes) {
  return bytes ? format_memory(*bytes) : "unknown";
}

}  // namespace gt
