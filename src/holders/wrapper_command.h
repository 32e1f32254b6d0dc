// The programs a process launcher runs: mpirun / mpiexec (Open MPI's
// orterun and prterun, MPICH's Hydra) and Slurm's srun start the program
// named after their own options, and MPI's MPMD form runs several, their
// segments joined by ":" ("mpirun -np 1 leader : -np 7 worker"). Which
// words are the launcher's own is decided by its option grammar, from the
// parsers that define it: Open MPI's mpirun(1) options (prte's
// schizo_ompi.c: --mca/--gmca take two words, the listed switches none,
// every other option one), MPICH Hydra's ui/mpich/utils.c (-genv/-env take
// two words) and Slurm's srun opt table (src/srun/opt.c: a long option's
// value after "=" or as the next word; the switches listed take none).
#pragma once

#include <string>
#include <vector>

namespace gt {

/// Whether `program` (a path or a name) is one of the launchers above.
bool is_process_launcher(const std::string& program);
/// Whether it is one of MPI's (mpirun, mpiexec, orterun, prterun).
bool is_mpi_launcher(const std::string& program);

/// For a command line whose argv[0] is a launcher (or runs a launcher
/// script: "/bin/sh .../mpirun ..."), each MPMD segment's
/// program and its arguments (launchers nested in a segment, as "srun
/// mpirun ...", are looked through, at most 8 deep); empty when argv[0] is
/// not a launcher or no segment names a program.
std::vector<std::vector<std::string>> launched_commands(const std::vector<std::string>& argv);

}  // namespace gt
