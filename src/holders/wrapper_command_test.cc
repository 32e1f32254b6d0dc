#include "holders/wrapper_command.h"

#include <gtest/gtest.h>

#include "holders/identity.h"

namespace gt {
namespace {

using Cmds = std::vector<std::vector<std::string>>;

TEST(WrapperCommand, MpirunOptionsByTheirGrammar) {
  EXPECT_EQ(launched_commands(split_cmdline(
                "mpirun --allow-run-as-root -np 8 --mca btl_tcp_if_include eth0 -x NCCL_DEBUG "
                "--bind-to none ./bench --iters 10")),
            (Cmds{{"./bench", "--iters", "10"}}));
  EXPECT_EQ(launched_commands(split_cmdline("mpiexec -n 2 -genv OMP_NUM_THREADS 4 -ppn 2 app")),
            (Cmds{{"app"}}));
  EXPECT_EQ(launched_commands(split_cmdline("srun -l --ntasks=4 -N2 --gres gpu:8 python3 t.py")),
            (Cmds{{"python3", "t.py"}}));
  EXPECT_TRUE(launched_commands(split_cmdline("python3 -m sglang.launch_server")).empty());
}

TEST(WrapperCommand, MpmdSegmentsAndNestedLaunchers) {
  EXPECT_EQ(launched_commands(split_cmdline("mpirun -n 1 leader --a : -n 7 worker --b")),
            (Cmds{{"leader", "--a"}, {"worker", "--b"}}));
  EXPECT_EQ(launched_commands(split_cmdline("srun -n 16 mpirun -np 2 ./server")),
            (Cmds{{"./server"}}));
}

TEST(WrapperCommand, TheKindIsTheLaunchedProgramsNeverTheLaunchers) {
  // Triton's TensorRT-LLM backend starts one tritonserver per rank as MPMD
  // segments (launch_triton_server.py).
  EXPECT_EQ(recognise_program("mpirun",
                              "mpirun --allow-run-as-root -n 1 /opt/tritonserver/bin/tritonserver "
                              "--model-repository=/m --backend-config=python,shm-region-prefix-"
                              "name=prefix0_ : -n 1 /opt/tritonserver/bin/tritonserver "
                              "--model-repository=/m"),
            "Triton");
  EXPECT_EQ(recognise_program("mpirun",
                              "mpirun -x NCCL_DEBUG -np 2 python3 -m "
                              "sglang.launch_server --tp 2"),
            "SGLang");
  EXPECT_EQ(recognise_program("srun", "srun -l --mpi=pmix vllm serve /m -tp 8"), "vLLM");
  // Of no known kind: the launcher stays a generic launcher, and the
  // program it runs is what names it.
  EXPECT_EQ(recognise_program("mpirun", "mpirun -np 8 --bind-to none python3 train.py"), "mpirun");
  EXPECT_EQ(launched_program("mpirun -np 8 --bind-to none python3 train.py"), "train.py");
  EXPECT_EQ(launched_program("srun --ntasks 2 ./my_server --port 9000"), "my_server");
  EXPECT_EQ(launched_program("python3 train.py"), std::nullopt);
}

}  // namespace
}  // namespace gt
