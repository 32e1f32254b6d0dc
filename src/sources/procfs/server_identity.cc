// The kind comes from the launcher's program, unless that is a generic
// launcher (Ray, mpirun, srun) running a known server: then from the
// processes that hold the GPUs. A program of no known name is a server's
// when its flags are one server's alone (holders/flag_grammar.h), said in
// its identity notes; else it is "unknown (PROGRAM)": the program through
// its interpreter and any process launcher ("unknown (train.py)"), never
// the launcher's or the interpreter's name. Flags are read with that
// kind's table, on the command lines of processes that are that program
// (a supervisor's arguments are not the server's).
#include "sources/procfs/server_identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "holders/flag_grammar.h"
#include "holders/identity.h"
#include "holders/server_flags.h"
#include "util/proc_environ.h"
#include "util/read_capped.h"

namespace gt {
namespace {

/// "unknown (train.py)": the program a process launcher (mpirun, srun)
/// runs when it is of no known kind; the launcher's name is no kind.
std::optional<std::string> unknown_under_launcher(const std::string& kind,
                                                  const std::string& cmdline) {
  if (kind != "mpirun" && kind != "srun") return std::nullopt;
  std::optional<std::string> program = launched_program(cmdline);
  if (!program) return std::nullopt;
  return "unknown (" + *program + ")";
}

/// The program a command line runs, by its base name, through
/// interpreters ("serve.py", "sglang.launch_server"); "" for none.
std::string program_name(const std::string& cmdline) {
  const std::vector<std::string> argv = split_cmdline(cmdline);
  if (argv.empty()) return "";
  const Program p = program_of(argv);
  // "python -c CODE": the interpreter is all there is to name.
  const std::string& name = p.name == "-c" || p.name == "-" || p.name == "--" ? argv[0] : p.name;
  return name.substr(name.rfind('/') + 1);
}

/// "unknown (serve.py)": a launcher tree of no known kind, named by its
/// root's program (else a member's), never its interpreter's name; "PID N"
/// when no name was read. A desktop program holding only graphics contexts
/// (Xorg, a compositor, a browser) is no job: its process name is its kind.
std::string unknown_kind(const Server& s, const std::optional<ProcInfo>& root_info) {
  const bool graphics = std::all_of(s.members.begin(), s.members.end(),
                                    [](const ServerMember& m) { return m.type == "graphics"; });
  const ServerMember& m = s.members.front();
  std::string name;
  if (root_info) name = graphics ? root_info->comm : program_name(root_info->cmdline);
  if (name.empty() && root_info) name = root_info->comm;
  if (name.empty() && graphics && m.name) name = *m.name;
  if (name.empty() && m.cmdline) name = program_name(*m.cmdline);
  if (name.empty() && m.name) name = *m.name;
  if (name.empty()) return "PID " + std::to_string(m.pid);
  return graphics ? name : "unknown (" + name + ")";
}

/// A program of no known name whose flags are one server's alone takes
/// that kind; the flags found are said either way.
void decide_by_flags(Server& s, const std::optional<ProcInfo>& root_info) {
  FlagVerdict all;
  auto add = [&](const std::string& cmdline) {
    const FlagVerdict v = kind_by_flags(split_cmdline(cmdline.substr(0, 4096)));
    for (const std::string& f : v.flags)
      if (std::find(all.flags.begin(), all.flags.end(), f) == all.flags.end())
        all.flags.push_back(f);
    for (const std::string& k : v.kinds)
      if (std::find(all.kinds.begin(), all.kinds.end(), k) == all.kinds.end())
        all.kinds.push_back(k);
  };
  if (root_info) add(root_info->cmdline);
  for (const ServerMember& m : s.members)
    if (m.cmdline) add(*m.cmdline);
  if (all.kinds.size() == 1) all.kind = all.kinds.front();
  // The program, as unknown_kind named it ("unknown (serve.py)").
  std::string program = s.kind;
  if (program.starts_with("unknown (") && program.ends_with(")"))
    program = program.substr(9, program.size() - 10);
  const std::string note = flag_verdict_note(all, program);
  if (note.empty()) return;
  s.identity_notes.push_back(note);
  if (!all.kind) return;
  s.kind = *all.kind;
  s.recognised = true;
}

void set_kind(Server& s, const std::optional<ProcInfo>& root_info) {
  std::optional<std::string> launcher =
      root_info ? recognise_program(root_info->comm, root_info->cmdline) : std::nullopt;
  std::optional<std::string> held, held_generic;
  for (const ServerMember& m : s.members) {
    std::optional<std::string> k = recognise_program(m.name.value_or(""), m.cmdline.value_or(""));
    if (k && !generic_launcher(*k) && !held) held = k;
    if (k && generic_launcher(*k) && !held_generic) held_generic = k;
  }
  if (launcher && generic_launcher(*launcher) && held) {
    s.kind = *held;
    s.recognised = true;
  } else if (std::optional<std::string> unknown =
                 launcher ? unknown_under_launcher(*launcher, root_info->cmdline) : std::nullopt) {
    s.kind = *unknown;
  } else if (launcher) {
    s.kind = *launcher;
    s.recognised = true;
  } else if (held || held_generic) {
    // The holders are a known kind's (a capture, or a launcher of no known kind).
    s.kind = held ? *held : *held_generic;
    s.recognised = true;
  } else {
    s.kind = unknown_kind(s, root_info);
  }
  if (!s.recognised) decide_by_flags(s, root_info);
}

void merge(const ServerFlags& from, ServerFlags& into) {
  if (!into.model) into.model = from.model;
  if (!into.port) {
    into.port = from.port;
    into.port_source = from.port_source;
  }
  auto keep = [](const std::optional<uint32_t>& a, std::optional<uint32_t>& b) {
    if (!b) b = a;
  };
  keep(from.tensor, into.tensor);
  keep(from.data, into.data);
  keep(from.pipeline, into.pipeline);
  keep(from.expert, into.expert);
  keep(from.world_size, into.world_size);
  keep(from.local_world_size, into.local_world_size);
  if (!into.config_file) into.config_file = from.config_file;
}

/// Unrecognised processes: the common spellings only (--model, --port, --tp).
ServerFlags generic_flags(const std::vector<std::string>& argv) {
  ServerFlags f;
  f.model = model_of(argv);
  if ((f.port = port_of(argv))) f.port_source = "--port";
  ParallelSizes p = parallel_of(argv);
  f.tensor = p.tensor;
  f.data = p.data;
  f.pipeline = p.pipeline;
  return f;
}

std::optional<std::map<std::string, std::string>> environ_of(const FsRoot& root, uint32_t pid,
                                                             Server& s) {
  Result<std::string> text = root.read("/proc/" + std::to_string(pid) + "/environ");
  if (!text) {
    s.identity_notes.push_back("the environment of PID " + std::to_string(pid) +
                               " could not be read (" + text.error().message +
                               "), so a port or model set there is not known");
    return std::nullopt;
  }
  return parse_environ(*text);
}

bool uses_environment(const std::string& kind) {
  return kind == "Ollama" || kind == "TGI" || kind == "llama.cpp server" || kind == "torchrun" ||
         kind == "DeepSpeed";
}

}  // namespace

Result<std::string> read_server_config(const FsRoot& root, uint32_t pid, const std::string& path) {
  std::string abs = path;
  if (!path.starts_with("/")) {
    std::optional<std::string> cwd = root.read_link("/proc/" + std::to_string(pid) + "/cwd");
    if (!cwd || !cwd->starts_with("/"))
      return Error{ErrorKind::kNotFound,
                   "the working directory of PID " + std::to_string(pid) + " is not readable"};
    abs = *cwd + "/" + path;
  }
  // The path is the node's data: it is opened inside the root, never beside it.
  Result<int> opened = root.open(abs, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!opened) return Error{ErrorKind::kIo, abs + " cannot be opened"};
  const int fd = *opened;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{ErrorKind::kMalformed, abs + " is not a regular file"};
  }
  Result<std::string> text =
      read_fd_capped(fd, abs, kMaxServerConfigBytes, "a server's config file");
  ::close(fd);
  return text;
}

void identify_server(Server& s, const std::optional<ProcInfo>& root_info, const FsRoot* root) {
  set_kind(s, root_info);
  std::vector<std::pair<std::vector<std::string>, uint32_t>> argvs;  // words, pid
  if (root_info) argvs.push_back({split_cmdline(root_info->cmdline), root_info->pid});
  for (const ServerMember& m : s.members)
    if (m.cmdline) argvs.push_back({split_cmdline(*m.cmdline), m.pid});
  ServerFlags f;
  uint32_t config_pid = 0;
  for (const auto& [argv, pid] : argvs) {
    if (argv.empty()) continue;
    std::string line;
    for (const std::string& w : argv) line += w + " ";
    std::optional<std::string> k = recognise_program(argv[0], line.substr(0, 4096));
    ServerFlags one;
    if (!s.recognised)
      one = generic_flags(argv);
    else if (k == s.kind || k == "mpirun" || k == "srun" ||
             (!k && kind_by_flags(argv).kind == s.kind))  // a program of its flags' kind
      one = parse_server_flags(s.kind, argv);
    if (one.config_file && !f.config_file) config_pid = pid;
    merge(one, f);
  }
  if (f.config_file && root && config_pid && (s.kind == "vLLM" || s.kind == "SGLang")) {
    Result<std::string> text = read_server_config(*root, config_pid, *f.config_file);
    if (text)
      apply_server_config(s.kind, *text, "config " + *f.config_file, f);
    else
      s.identity_notes.push_back("its config file could not be read (" + text.error().message +
                                 "), so what it sets is not known");
  }
  if (root && root_info && uses_environment(s.kind))
    if (auto env = environ_of(*root, root_info->pid, s)) apply_server_environment(s.kind, *env, f);
  if (root && (s.kind == "torchrun" || s.kind == "DeepSpeed"))
    for (ServerMember& m : s.members) {
      Result<std::string> text = root->read("/proc/" + std::to_string(m.pid) + "/environ");
      if (!text) continue;  // said once for the launcher; a rank stays unknown
      std::map<std::string, std::string> env = parse_environ(*text);
      if (auto r = env.find("RANK"); r != env.end() && r->second.size() <= 7 &&
                                     !r->second.empty() &&
                                     r->second.find_first_not_of("0123456789") == std::string::npos)
        m.rank = static_cast<uint32_t>(std::stoul(r->second));
      apply_server_environment(s.kind, env, f);
    }
  s.model = f.model;
  s.port = f.port;
  s.port_source = f.port_source;
  s.tensor_parallel = f.tensor;
  s.data_parallel = f.data;
  s.pipeline_parallel = f.pipeline;
  s.expert_parallel = f.expert;
  s.world_size = f.world_size;
  s.local_world_size = f.local_world_size;
}

}  // namespace gt
