#include "holders/wrapper_command.h"

#include <algorithm>
#include <string_view>

namespace gt {
namespace {

constexpr int kMaxNestedLaunchers = 8;

std::string launcher_base(const std::string& w) { return w.substr(w.rfind('/') + 1); }

// Open MPI mpirun(1) / prte and MPICH Hydra switches that take no value.
constexpr std::string_view kMpiSwitches[] = {"--allow-run-as-root",
                                             "--oversubscribe",
                                             "--nooversubscribe",
                                             "--report-bindings",
                                             "--display-map",
                                             "--display-allocation",
                                             "--display-devel-map",
                                             "--tag-output",
                                             "-tag-output",
                                             "--timestamp-output",
                                             "--merge-stderr-to-stdout",
                                             "--xml",
                                             "-q",
                                             "--quiet",
                                             "-v",
                                             "--verbose",
                                             "--pernode",
                                             "-pernode",
                                             "--nolocal",
                                             "-nolocal",
                                             "--noprefix",
                                             "--use-hwthread-cpus",
                                             "--bynode",
                                             "-bynode",
                                             "--byslot",
                                             "-byslot",
                                             "--bind-to-core",
                                             "--bind-to-socket",
                                             "--debug-daemons",
                                             "--leave-session-attached",
                                             "--enable-recovery",
                                             "--disable-recovery",
                                             "--show-progress",
                                             "--continuous",
                                             "-genvall",
                                             "-genvnone",
                                             "-envall",
                                             "-envnone",
                                             "-l",
                                             "-prepend-rank",
                                             "-verbose",
                                             "-info",
                                             "-print-all-exitcodes",
                                             "-disable-x",
                                             "-enable-x",
                                             "-profile",
                                             "-debug",
                                             "--help",
                                             "-h",
                                             "--version",
                                             "-V"};
// Open MPI's and Hydra's options that take two words (a name and a value).
constexpr std::string_view kMpiTwoWords[] = {"--mca", "-mca", "--gmca", "-gmca", "-genv", "-env"};
// Slurm srun switches (src/srun/opt.c, no_argument; optional-argument
// options take their value only after "=").
constexpr std::string_view kSrunSwitches[] = {"-l",
                                              "--label",
                                              "-u",
                                              "--unbuffered",
                                              "-v",
                                              "--verbose",
                                              "-Q",
                                              "--quiet",
                                              "-K",
                                              "--kill-on-bad-exit",
                                              "-k",
                                              "--no-kill",
                                              "-X",
                                              "--disable-status",
                                              "-E",
                                              "--preserve-env",
                                              "-s",
                                              "--oversubscribe",
                                              "-O",
                                              "--overcommit",
                                              "-Z",
                                              "--no-allocate",
                                              "-H",
                                              "--hold",
                                              "-I",
                                              "--immediate",
                                              "--pty",
                                              "--overlap",
                                              "--exact",
                                              "--exclusive",
                                              "--contiguous",
                                              "--spread-job",
                                              "--use-min-nodes",
                                              "--test-only",
                                              "--quit-on-interrupt",
                                              "--reboot",
                                              "--multi-prog",
                                              "--help",
                                              "-h",
                                              "--usage",
                                              "--version",
                                              "-V",
                                              "--whole"};

bool launcher_listed(std::string_view w, const std::string_view* begin,
                     const std::string_view* end) {
  return std::find(begin, end, w) != end;
}

/// How many words after `w` its launcher's parser takes as its values.
size_t launcher_values(bool mpi, const std::string& w) {
  if (w.find('=') != std::string::npos) return 0;
  if (mpi) {
    if (launcher_listed(w, std::begin(kMpiSwitches), std::end(kMpiSwitches))) return 0;
    return launcher_listed(w, std::begin(kMpiTwoWords), std::end(kMpiTwoWords)) ? 2 : 1;
  }
  if (launcher_listed(w, std::begin(kSrunSwitches), std::end(kSrunSwitches))) return 0;
  // A short option's value may be glued to it ("-n4").
  return w.size() > 2 && w[1] != '-' ? 0 : 1;
}

/// The segment's program and arguments: the words after the launcher's own
/// options, up to the next ":" (MPI) or the end.
std::vector<std::string> launcher_segment(const std::vector<std::string>& argv, size_t& at,
                                          bool mpi) {
  while (at < argv.size() && argv[at] != ":" && argv[at].size() > 1 && argv[at][0] == '-')
    at += 1 + launcher_values(mpi, argv[at]);
  std::vector<std::string> out;
  for (; at < argv.size() && !(mpi && argv[at] == ":"); ++at) out.push_back(argv[at]);
  if (at < argv.size()) ++at;  // past ":"
  return out;
}

}  // namespace

bool is_mpi_launcher(const std::string& program) {
  const std::string b = launcher_base(program);
  return b == "mpirun" || b == "mpiexec" || b == "orterun" || b == "prterun" ||
         b == "mpiexec.hydra";
}

bool is_process_launcher(const std::string& program) {
  const std::string b = launcher_base(program);
  return is_mpi_launcher(b) || b == "srun";
}

std::vector<std::vector<std::string>> launched_commands(const std::vector<std::string>& argv) {
  std::vector<std::vector<std::string>> out;
  // A launcher that is a shell script is run by its shell: Intel MPI's
  // mpirun ("/bin/sh .../bin/mpirun -n 2 prog") is one.
  const std::string shell = argv.empty() ? "" : launcher_base(argv[0]);
  const bool script = argv.size() > 1 && (shell == "sh" || shell == "bash" || shell == "dash") &&
                      is_process_launcher(argv[1]);
  if (argv.empty() || !is_process_launcher(argv[script ? 1 : 0])) return out;
  std::vector<std::vector<std::string>> todo = {
      std::vector<std::string>(argv.begin() + (script ? 1 : 0), argv.end())};
  for (int depth = 0; depth < kMaxNestedLaunchers && !todo.empty(); ++depth) {
    std::vector<std::vector<std::string>> next;
    for (const std::vector<std::string>& cmd : todo) {
      const bool mpi = is_mpi_launcher(cmd.front());
      size_t at = 1;
      while (at < cmd.size()) {
        std::vector<std::string> seg = launcher_segment(cmd, at, mpi);
        if (seg.empty()) continue;
        (is_process_launcher(seg.front()) ? next : out).push_back(std::move(seg));
      }
    }
    todo = std::move(next);
  }
  return out;
}

}  // namespace gt
