#include "sources/procfs/docker_container.h"

#include <algorithm>
#include <ctime>
#include <iterator>

#include "sources/procfs/cgroup_owner.h"
#include "util/json_depth.h"

namespace gt {

namespace {

using Json = nlohmann::json;

const Json* member(const Json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

std::optional<std::string> text_of(const Json& o, const char* key) {
  const Json* v = member(o, key);
  if (!v || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

/// Reads n digits at s[i..] into v; advances i.
bool number(std::string_view s, size_t& i, size_t n, int& v) {
  if (i + n > s.size()) return false;
  v = 0;
  for (size_t k = 0; k < n; ++k) {
    char c = s[i + k];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  i += n;
  return true;
}

bool expect(std::string_view s, size_t& i, char c) {
  if (i >= s.size() || s[i] != c) return false;
  ++i;
  return true;
}

std::string joined_command(const Json& cfg) {
  std::string out = text_of(cfg, "Path").value_or("");
  if (const Json* args = member(cfg, "Args"); args && args->is_array())
    for (const Json& a : *args)
      if (a.is_string()) out += (out.empty() ? "" : " ") + a.get<std::string>();
  return out;
}

void read_mounts(const Json& cfg, ContainerInfo& c) {
  const Json* mps = member(cfg, "MountPoints");
  if (!mps || !mps->is_object()) return;
  for (const auto& [dest, mp] : mps->items()) {
    std::optional<std::string> source = text_of(mp, "Source");
    while (source && source->size() > 1 && source->back() == '/') source->pop_back();
    if (!source || source->empty()) continue;  // a volume not yet created
    c.mounts.push_back({*source, text_of(mp, "Destination").value_or(dest)});
  }
}

std::optional<Json> parse_object(std::string_view text) {
  std::string error;
  std::optional<Json> j = try_parse_json(text, error);
  if (!j || !j->is_object()) return std::nullopt;
  return j;
}

/// /proc/PID/cmdline's words: NUL-separated, as the program got them (an
/// argument may hold spaces).
std::vector<std::string> nul_separated(const std::string& raw) {
  std::vector<std::string> words;
  size_t at = 0;
  while (at < raw.size()) {
    size_t end = raw.find('\0', at);
    if (end == std::string::npos) end = raw.size();
    words.push_back(raw.substr(at, end - at));
    at = end + 1;
  }
  return words;
}

/// `docker run` / `podman run` options that take no value (docker's
/// cli/command/container/opts.go and run.go, podman's run flags), and
/// clusters of the short ones ("-dit").
bool run_bool_flag(std::string_view w) {
  static constexpr std::string_view kLong[] = {"--detach",
                                               "--interactive",
                                               "--tty",
                                               "--rm",
                                               "--init",
                                               "--privileged",
                                               "--publish-all",
                                               "--read-only",
                                               "--oom-kill-disable",
                                               "--no-healthcheck",
                                               "--sig-proxy",
                                               "--disable-content-trust",
                                               "--quiet",
                                               "--replace",
                                               "--rmi",
                                               "--env-host",
                                               "--http-proxy",
                                               "--no-hosts",
                                               "--read-only-tmpfs",
                                               "--passwd",
                                               "--tls-verify"};
  if (w.starts_with("--")) {
    for (std::string_view f : kLong)
      if (w == f) return true;
    return false;
  }
  for (char c : w.substr(1))
    if (std::string_view("dtiPq").find(c) == std::string_view::npos) return false;
  return w.size() > 1;
}

}  // namespace

std::optional<int64_t> parse_rfc3339(std::string_view s) {
  std::tm tm{};
  int year = 0, mon = 0, day = 0, hour = 0, min = 0, sec = 0;
  size_t i = 0;
  if (!number(s, i, 4, year) || !expect(s, i, '-') || !number(s, i, 2, mon) || !expect(s, i, '-') ||
      !number(s, i, 2, day) || !expect(s, i, 'T') || !number(s, i, 2, hour) || !expect(s, i, ':') ||
      !number(s, i, 2, min) || !expect(s, i, ':') || !number(s, i, 2, sec))
    return std::nullopt;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
    if (digits == 0 || digits > 9) return std::nullopt;
  }
  int offset_s = 0;
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    const int sign = s[i++] == '-' ? -1 : 1;
    int oh = 0, om = 0;
    if (!number(s, i, 2, oh) || !expect(s, i, ':') || !number(s, i, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset_s = sign * (oh * 3600 + om * 60);
  } else {
    return std::nullopt;
  }
  if (i != s.size() || year < 1970 || mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 ||
      min > 59 || sec > 60)
    return std::nullopt;
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  const time_t t = ::timegm(&tm);
  if (t == -1 || tm.tm_mday != day) return std::nullopt;  // 31 February
  return static_cast<int64_t>(t) - offset_s;
}

bool parse_docker_config(std::string_view text, ContainerInfo& c) {
  std::optional<Json> cfg = parse_object(text);
  if (!cfg) return false;
  if (std::optional<std::string> name = text_of(*cfg, "Name"); name && !name->empty())
    c.name = name->front() == '/' ? name->substr(1) : *name;
  if (std::optional<std::string> created = text_of(*cfg, "Created"))
    c.created_unix_s = parse_rfc3339(*created);
  if (std::string cmd = joined_command(*cfg); !cmd.empty()) c.command = cmd;
  if (const Json* config = member(*cfg, "Config")) {
    c.image = text_of(*config, "Image");
    if (const Json* env = member(*config, "Env"); env && env->is_array())
      for (const Json& e : *env)
        if (e.is_string() && e.get_ref<const std::string&>().starts_with("PATH="))
          c.path_env = e.get<std::string>().substr(5);
  }
  if (const Json* state = member(*cfg, "State"))
    if (const Json* pid = member(*state, "Pid"); pid && pid->is_number_unsigned() &&
                                                 pid->get<uint64_t>() > 0 &&
                                                 pid->get<uint64_t>() <= UINT32_MAX)
      c.init_pid = static_cast<uint32_t>(pid->get<uint64_t>());
  read_mounts(*cfg, c);
  return true;
}

bool parse_docker_hostconfig(std::string_view text, ContainerInfo& c) {
  std::optional<Json> host = parse_object(text);
  if (!host) return false;
  if (const Json* rp = member(*host, "RestartPolicy")) {
    // An empty name is Docker's default: "no".
    if (std::optional<std::string> name = text_of(*rp, "Name"))
      c.restart_policy = name->empty() ? "no" : *name;
  }
  if (const Json* rm = member(*host, "AutoRemove"); rm && rm->is_boolean())
    c.auto_remove = rm->get<bool>();
  return true;
}

std::optional<ContainerInfo> read_docker_container(const FsRoot& root, const std::string& id) {
  const std::string dir = "/var/lib/docker/containers/" + id + "/";
  ContainerInfo c;
  c.id = id;
  bool read = false;
  if (Result<std::string> cfg = root.read(dir + "config.v2.json");
      cfg && cfg->size() <= kMaxDockerConfigBytes)
    read = parse_docker_config(*cfg, c);
  if (Result<std::string> host = root.read(dir + "hostconfig.json");
      host && host->size() <= kMaxDockerConfigBytes)
    read = parse_docker_hostconfig(*host, c) || read;
  if (!read) return std::nullopt;
  return c;
}

std::optional<std::string> run_container_name(const std::vector<std::string>& argv) {
  if (argv.empty()) return std::nullopt;
  const std::string& prog = argv[0].substr(argv[0].rfind('/') + 1);
  if (prog != "docker" && prog != "podman") return std::nullopt;
  // Global options come before the command; those taking a value are
  // given as --opt=value or --opt value (docker's cli/flags/options.go:
  // -H, -c, -l, --config and the TLS files; podman's --url, --connection,
  // --root). Any other option is taken to stand alone.
  static constexpr std::string_view kValued[] = {
      "-H",    "--host",       "-c",          "--context", "--config",
      "-l",    "--log-level",  "--tlscacert", "--tlscert", "--tlskey",
      "--url", "--connection", "--root",      "--runroot", "--identity"};
  size_t i = 1;
  for (; i < argv.size() && argv[i].starts_with("-"); ++i)
    if (argv[i].find('=') == std::string::npos &&
        std::find(std::begin(kValued), std::end(kValued), argv[i]) != std::end(kValued))
      ++i;
  if (i < argv.size() && argv[i] == "container") ++i;
  if (i >= argv.size() || argv[i] != "run") return std::nullopt;
  // Run's options end at the image (the first word that is not an option
  // or an option's value); what follows is the container's own command.
  for (++i; i < argv.size(); ++i) {
    const std::string& w = argv[i];
    if (w == "--" || !w.starts_with("-") || w == "-") return std::nullopt;
    if (w.starts_with("--name=")) return w.size() > 7 ? std::optional(w.substr(7)) : std::nullopt;
    if (w == "--name") return i + 1 < argv.size() ? std::optional(argv[i + 1]) : std::nullopt;
    if (w.find('=') == std::string::npos && !run_bool_flag(w)) ++i;  // its value
  }
  return std::nullopt;
}

std::optional<std::string> unit_running_container(const FsRoot& root, const ProcTable& table,
                                                  std::string_view name) {
  for (const auto& [pid, entry] : table.procs) {
    const std::string dir = "/proc/" + std::to_string(pid);
    std::optional<std::string> comm = root.read_optional_trimmed(dir + "/comm");
    if (!comm || (*comm != "docker" && *comm != "podman")) continue;
    Result<std::string> raw = root.read(dir + "/cmdline");
    Result<std::string> cgroup = root.read(dir + "/cgroup");
    if (!raw || !cgroup) continue;
    std::optional<std::string> n = run_container_name(nul_separated(*raw));
    if (!n || *n != name) continue;
    std::optional<ProcessOwner> o = parse_cgroup_owner(*cgroup);
    if (o && o->kind == OwnerKind::kSystemdUnit &&
        o->cgroup_path.find("/user@") == std::string::npos && !o->name.ends_with(".scope"))
      return o->name;
  }
  return std::nullopt;
}

}  // namespace gt
