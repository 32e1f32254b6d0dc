// /proc/PID/cgroup has one "hierarchy-ID:controllers:path" line per mounted
// hierarchy. Under cgroup v2 there is a single "0::/path" line; cgroup v1
// lists one line per controller ("4:memory:/docker/<id>"); hybrid systems
// show both, and there the "0::" line (systemd's own tree) may be just "/".
// Paths are relative to the reader's cgroup namespace, so inside a container
// with a private namespace the process's own cgroup reads as "/" and we learn
// nothing. A v2 cgroup that was removed while a process (a zombie) still sat
// in it reads "0::/path (deleted)".
//
// The path encodes the owner by convention, not by contract (ecosystem.md
// section 7): systemd names units "<name>.service" / "<name>.scope", container
// runtimes name scopes "<runtime>-<id>.scope" (systemd driver) or nest plain
// ids under "/docker" (cgroupfs driver), the kubelet nests containers under
// "kubepods[-<qos>]-pod<uid>.slice" (uid dashes turned into underscores) or
// "/kubepods/<qos>/pod<uid>", and Slurm puts steps under ".../job_<id>/".
// We classify from the most specific convention to the least and keep the raw
// path so a reader can always check the guess.
#include "sources/procfs/cgroup_owner.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace gt {
namespace {

using Parts = std::vector<std::string_view>;

struct ContainerPrefix {
  std::string_view prefix;
  OwnerKind kind;
};

// Scope/cgroup name prefixes that container runtimes use; "cri-containerd-"
// comes before "containerd-" so the longer one wins.
constexpr ContainerPrefix kContainerPrefixes[] = {
    {"cri-containerd-", OwnerKind::kContainerd},
    {"containerd-", OwnerKind::kContainerd},
    {"docker-", OwnerKind::kDocker},
    {"libpod-", OwnerKind::kPodman},
    {"crio-", OwnerKind::kCriO},
};

// Splits on `sep`, dropping empty pieces.
Parts split(std::string_view s, char sep) {
  Parts parts;
  while (!s.empty()) {
    size_t at = s.find(sep);
    std::string_view part = s.substr(0, at);
    if (!part.empty()) parts.push_back(part);
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return parts;
}

bool is_hex_id(std::string_view s) {
  return s.size() >= 12 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) != 0;
         });
}

std::string_view strip_suffix(std::string_view s, std::string_view suffix) {
  if (s.ends_with(suffix)) s.remove_suffix(suffix.size());
  return s;
}

// Lower is better: the v1 hierarchies most likely to carry the owner's path.
int v1_rank(std::string_view controllers) {
  int rank = controllers == "name=systemd" ? 3 : 4;
  for (std::string_view c : split(controllers, ',')) {
    if (c == "pids") rank = std::min(rank, 0);
    if (c == "memory") rank = std::min(rank, 1);
    if (c == "cpu" || c == "cpuacct") rank = std::min(rank, 2);
  }
  return rank;
}

// Picks the path that best names the owner; empty when every line is root.
std::string_view choose_path(std::string_view text) {
  std::string_view best;
  int best_rank = 100;
  for (std::string_view line : split(text, '\n')) {
    size_t c1 = line.find(':');
    size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    std::string_view controllers = line.substr(c1 + 1, c2 - c1 - 1);
    std::string_view path = strip_suffix(line.substr(c2 + 1), "\r");
    path = strip_suffix(path, " (deleted)");
    if (split(path, '/').empty()) continue;  // the root cgroup
    bool v2 = line.substr(0, c1) == "0" && controllers.empty();
    int rank = v2 ? -1 : v1_rank(controllers);
    if (rank < best_rank) best = path, best_rank = rank;
  }
  return best;
}

ProcessOwner make_owner(OwnerKind kind, std::string name, std::string_view path) {
  return ProcessOwner{kind, std::move(name), std::nullopt, std::string(path)};
}

// "cri-containerd-<id>.scope" / "crio-conmon-<id>.scope" / "<id>" -> "<id>".
std::string_view container_id_of(std::string_view part) {
  part = strip_suffix(part, ".scope");
  size_t dash = part.rfind('-');
  return dash == std::string_view::npos ? part : part.substr(dash + 1);
}

// Pod UID from "kubepods-burstable-pod<uid_>.slice" or cgroupfs "pod<uid>".
std::optional<std::string> pod_uid_of(std::string_view part) {
  std::string_view uid;
  size_t pod = part.rfind("-pod");
  if (part.ends_with(".slice") && pod != std::string_view::npos) {
    uid = strip_suffix(part.substr(pod + 4), ".slice");
  } else if (part.starts_with("pod")) {
    uid = part.substr(3);
  }
  if (uid.empty()) return std::nullopt;
  std::string out(uid);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

std::optional<ProcessOwner> match_kubernetes(const Parts& parts, std::string_view path) {
  bool under_kubepods = false;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].find("kubepods") != std::string_view::npos) {
      under_kubepods = true;  // also "kubelet-kubepods.slice" roots
    }
    std::optional<std::string> uid;
    if (under_kubepods) uid = pod_uid_of(parts[i]);
    if (!uid) continue;
    ProcessOwner owner = make_owner(OwnerKind::kKubernetesPod, *uid, path);
    if (i + 1 < parts.size()) {
      owner.container_id = std::string(container_id_of(parts[i + 1]));
    }
    return owner;
  }
  return std::nullopt;
}

// v2: ".../slurmstepd.scope/job_123/step_0/..."; v1: "/slurm/uid_1000/job_123".
std::optional<ProcessOwner> match_slurm(const Parts& parts, std::string_view path) {
  bool under_slurm = false;
  for (std::string_view part : parts) {
    if (part.starts_with("slurm")) under_slurm = true;
    if (under_slurm && part.starts_with("job_") && part.size() > 4) {
      return make_owner(OwnerKind::kSlurmJob, std::string(part.substr(4)), path);
    }
  }
  return std::nullopt;
}

// The innermost container wins (docker-in-docker nests them).
std::optional<ProcessOwner> match_container(const Parts& parts, std::string_view path) {
  for (size_t i = parts.size(); i-- > 0;) {
    std::string_view part = parts[i];
    if (i > 0 && parts[i - 1] == "docker" && is_hex_id(part)) {
      return make_owner(OwnerKind::kDocker, std::string(part), path);  // cgroupfs
    }
    for (const ContainerPrefix& p : kContainerPrefixes) {
      if (!part.starts_with(p.prefix)) continue;
      std::string_view id = container_id_of(part);
      if (is_hex_id(id)) return make_owner(p.kind, std::string(id), path);
    }
  }
  return std::nullopt;
}

// "/user.slice/user-1000.slice/session-3.scope" -> "session-3 (uid 1000)".
std::optional<ProcessOwner> match_session(const Parts& parts, std::string_view path) {
  std::string_view uid;
  for (std::string_view part : parts) {
    if (part.starts_with("user-") && part.ends_with(".slice")) {
      uid = strip_suffix(part.substr(5), ".slice");
    }
    if (!part.starts_with("session-") || !part.ends_with(".scope")) continue;
    std::string name(strip_suffix(part, ".scope"));
    if (!uid.empty()) name += " (uid " + std::string(uid) + ")";
    return make_owner(OwnerKind::kUserSession, name, path);
  }
  return std::nullopt;
}

// The deepest unit: "foo.service" in ".../user@1000.service/app.slice/
// foo.service", "sglang.service" in "/system.slice/sglang.service/payload".
std::optional<ProcessOwner> match_systemd_unit(const Parts& parts, std::string_view path) {
  for (size_t i = parts.size(); i-- > 0;) {
    if (parts[i].ends_with(".service") || parts[i].ends_with(".scope")) {
      return make_owner(OwnerKind::kSystemdUnit, std::string(parts[i]), path);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<ProcessOwner> parse_cgroup_owner(std::string_view cgroup_text) {
  std::string_view path = choose_path(cgroup_text);
  Parts parts = split(path, '/');
  if (parts.empty()) return std::nullopt;
  // Most specific convention first: a pod's container is also a container
  // scope, and a Slurm step lives inside slurmstepd.scope.
  for (auto* match :
       {match_kubernetes, match_slurm, match_container, match_session, match_systemd_unit}) {
    if (std::optional<ProcessOwner> owner = match(parts, path)) return owner;
  }
  return make_owner(OwnerKind::kCgroup, std::string(path), path);
}

}  // namespace gt
