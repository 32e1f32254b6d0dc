#include <gtest/gtest.h>

#include "holders/identity.h"
#include "holders/server_flags.h"
#include "holders/stop.h"

namespace gt {
namespace holders_test {

std::string kind(const std::string& cmd) { return recognise_program("", cmd).value_or("-"); }

TEST(ServerIdentity, RecognisesServersAndLaunchers) {
  EXPECT_EQ(kind("sglang::scheduler_TP3"), "SGLang");
  EXPECT_EQ(kind("/usr/bin/python3 -m vllm.entrypoints.openai.api_server --model x"), "vLLM");
  EXPECT_EQ(kind("VLLM::Worker_TP0"), "vLLM");
  EXPECT_EQ(kind("text-generation-launcher --model-id x"), "TGI");
  EXPECT_EQ(kind("/opt/tritonserver/bin/tritonserver --model-repository=/m"), "Triton");
  EXPECT_EQ(kind("trtllm-serve /engines/llama"), "TensorRT-LLM");
  EXPECT_EQ(kind("/usr/local/bin/ollama runner --model /root/.ollama/x"), "Ollama");
  EXPECT_EQ(kind("./llama-server -m model.gguf -ngl 99"), "llama.cpp server");
  EXPECT_EQ(kind("/usr/bin/python3 -m torch.distributed.run --nproc_per_node 8 train.py"),
            "torchrun");
  EXPECT_EQ(kind("deepspeed train.py --deepspeed ds.json"), "DeepSpeed");
  EXPECT_EQ(kind("python3 train.py"), "-");
}

// Intel MPI's mpirun is a shell script: its interpreter runs it, and the
// program it launches decides the kind, as under a binary mpirun.
TEST(ServerIdentity, AnMpirunScriptIsTheLauncherItsInterpreterRuns) {
  const std::string intel = "/bin/sh /opt/intel/oneapi/mpi/2021.11/bin/mpirun -n 2 ";
  EXPECT_EQ(kind(intel + "python3 -m vllm.entrypoints.openai.api_server --model x"), "vLLM");
  EXPECT_EQ(launched_program(intel + "python3 worker.py"), "worker.py");
  EXPECT_EQ(launched_program("mpirun -n 2 python3 worker.py"), "worker.py");
  EXPECT_EQ(launched_program("/bin/sh run.sh mpirun"), std::nullopt);
}

TEST(ServerIdentity, ModelPortAndParallelSizesFromTheCommandLine) {
  auto argv = split_cmdline(
      "python3 -m sglang.launch_server --model-path /models/Llama-3.1-70B --tp 8 --port 30000");
  EXPECT_EQ(model_of(argv), "/models/Llama-3.1-70B");
  EXPECT_EQ(port_of(argv), 30000u);
  EXPECT_EQ(parallel_of(argv).tensor, 8u);
  EXPECT_EQ(parallel_of(argv).data, std::nullopt);

  argv = split_cmdline(
      "/usr/bin/python3 /usr/local/bin/vllm serve meta-llama/Llama-3-8B "
      "--tensor-parallel-size=4 --pipeline-parallel-size 2");
  EXPECT_EQ(model_of(argv), "meta-llama/Llama-3-8B");
  EXPECT_EQ(parallel_of(argv).tensor, 4u);
  EXPECT_EQ(parallel_of(argv).pipeline, 2u);
  EXPECT_EQ(port_of(argv), std::nullopt);

  // "-m module" is not a model; a path or a .gguf is.
  EXPECT_EQ(model_of(split_cmdline("python -m vllm.entrypoints.openai.api_server")), std::nullopt);
  EXPECT_EQ(model_of(split_cmdline("./llama-server -m /m/q4.gguf")), "/m/q4.gguf");
  // Nonsense values are unknown, never 0.
  EXPECT_EQ(port_of(split_cmdline("x --port 99999")), std::nullopt);
  EXPECT_EQ(parallel_of(split_cmdline("x --tp 0")).tensor, std::nullopt);
  EXPECT_EQ(parallel_of(split_cmdline("x --tp")).tensor, std::nullopt);
  EXPECT_EQ(port_of(split_cmdline("x --port --host 0.0.0.0")), std::nullopt);
}

Server server(std::vector<uint32_t> pids, std::optional<uint32_t> root) {
  Server s;
  s.id = "pid-" + std::to_string(root.value_or(pids.front()));
  s.kind = "SGLang";
  s.recognised = true;
  s.root_pid = root;
  for (uint32_t p : pids) s.members.push_back({p, "compute", "x", "x", {{0, 1ull << 30}}});
  return s;
}

TEST(ServerStop, SignalsTheLauncherNamingEveryWorker) {
  Server s = server({3187, 3188, 3189}, 3141);
  ServerStop st = server_stop(s, false, false);
  EXPECT_FALSE(st.via_owner);
  EXPECT_EQ(st.stop, std::vector<std::string>{
                         "kill 3141   # SIGTERM to the launcher of PIDs 3187 3188 3189"});
  EXPECT_TRUE(st.disable.empty());
  EXPECT_EQ(st.owner_text, "no owner found (not in a unit, container or job)");
  // No tree known (a capture): every holder is named.
  Server loose = server({7, 9}, std::nullopt);
  EXPECT_EQ(server_stop(loose, false, false).stop,
            std::vector<std::string>{"kill 7 9   # SIGTERM"});
}

TEST(ServerStop, AnOwnerThatRestartsIsStoppedThroughTheOwner) {
  Server s = server({3187, 3188}, 3141);
  s.owner_kind = OwnerKind::kSystemdUnit;
  s.owner_name = "sglang.service";
  s.restart_policy = "Restart=always";
  s.restarts_when_signalled = true;
  ServerStop st = server_stop(s, false, false);
  EXPECT_TRUE(st.via_owner);
  EXPECT_EQ(st.all(), (std::vector<std::string>{"sudo systemctl stop sglang.service",
                                                "sudo systemctl disable sglang.service"}));
  // Forced: a signal, and the durable fix still listed.
  ServerStop forced = server_stop(s, false, true);
  EXPECT_FALSE(forced.via_owner);
  EXPECT_EQ(forced.disable, std::vector<std::string>{"sudo systemctl disable sglang.service"});
  // Kubernetes cannot be stopped by gpu-triage: manual only.
  s.owner_kind = OwnerKind::kKubernetesPod;
  s.owner_name = "0f1e";
  EXPECT_TRUE(server_stop(s, false, false).manual_only.has_value());
}

TEST(ServerStop, OwnerCommandsPerKind) {
  Server s = server({42}, 42);
  s.owner_kind = OwnerKind::kDocker;
  s.owner_name = std::string(64, 'a');
  ServerStop c = server_stop(s, true, false);
  EXPECT_EQ(c.stop[0], "docker stop aaaaaaaaaaaa");
  EXPECT_EQ(c.disable[0], "docker update --restart=no aaaaaaaaaaaa");
  s.owner_kind = OwnerKind::kSlurmJob;
  s.owner_name = "123";
  EXPECT_EQ(server_stop(s, true, false).stop[0], "scancel 123");
  // Names from /proc/PID/cgroup are one quoted word each; a wrapper's
  // line break stays inside the comment.
  s.owner_kind = OwnerKind::kSystemdUserUnit;
  s.owner_name = "x;touch${IFS}PWNED;.service";
  s.restarts_when_signalled = true;
  EXPECT_EQ(
      server_stop(s, true, false).disable,
      std::vector<std::string>{
          "systemctl --user disable 'x;touch${IFS}PWNED;.service'   # as the user who owns it"});
  s.owner_kind = OwnerKind::kSystemdUnit;
  s.owner_name = "foo\\x2dbar.service";
  EXPECT_EQ(server_stop(s, true, true).disable,
            std::vector<std::string>{"sudo systemctl disable 'foo\\x2dbar.service'"});
  s.restarts_when_signalled = false;
  Server looped = server({42}, 42);
  looped.wrappers.push_back({41, "bash -c #\ntouch PWNED\nwhile :; do x; done"});
  EXPECT_EQ(server_stop(looped, false, false).stop[0].find('\n'), std::string::npos);
  // A user session is not an owner to stop.
  s.owner_kind = OwnerKind::kUserSession;
  EXPECT_EQ(server_stop(s, true, false).stop[0], "kill 42   # SIGTERM");
}

ContainerInfo specforge(std::optional<std::string> unit) {
  ContainerInfo c;
  c.id = std::string(64, 'a');
  c.name = "specforge";
  c.command = "/workspace/start.sh";
  c.init_pid = 3120;
  c.restart_policy = "no";
  c.auto_remove = true;
  c.created_by_unit = unit;
  return c;
}

// Issue 52: the container's start script started the server and runs on
// (its PID 1 is another process): the launcher is signalled, nothing stops
// or "disables" the container (its policy is "no" already, and the rest of
// it, the job's own container, stays), and the advice says where the
// server comes back from.
TEST(ServerStop, AServerItsContainerStartedIsSignalledAndTheContainerKept) {
  Server s = server({3187, 3188}, 3141);
  s.owner_kind = OwnerKind::kDocker;
  s.owner_name = std::string(64, 'a');
  s.auto_started = true;
  s.restart_policy = "Docker restart policy no";
  s.container = specforge("specforge.service");
  s.container_main = false;
  ServerStop st = server_stop(s, false, false);
  EXPECT_FALSE(st.via_owner);
  EXPECT_EQ(st.all(),
            std::vector<std::string>{"kill 3141   # SIGTERM to the launcher of PIDs 3187 3188"});
  EXPECT_NE(st.note.find("'/workspace/start.sh'"), std::string::npos) << st.note;
  EXPECT_NE(st.note.find("as specforge.service does each time it starts, with docker run "
                         "--rm"),
            std::string::npos)
      << st.note;
  EXPECT_EQ(st.owner_text,
            "docker container specforge (aaaaaaaaaaaa), created by systemd unit specforge.service");
}

TEST(ServerStop, AContainersMainServerGoesThroughTheUnitThatMakesIt) {
  Server s = server({3187}, 3120);  // the launcher is the container's PID 1
  s.container_main = true;
  s.owner_kind = OwnerKind::kDocker;
  s.owner_name = std::string(64, 'a');
  s.restarts_when_signalled = true;  // the unit's Restart=always makes it anew
  s.container = specforge("specforge.service");
  ServerStop st = server_stop(s, false, false);
  EXPECT_TRUE(st.via_owner);
  EXPECT_EQ(st.all(), (std::vector<std::string>{"sudo systemctl stop specforge.service",
                                                "sudo systemctl disable specforge.service"}));
  EXPECT_EQ(st.note,
            "Stopping specforge.service ends container specforge (aaaaaaaaaaaa) and "
            "everything in it.");
  // Docker's policy restarts it too: both are disabled.
  s.container->restart_policy = "always";
  EXPECT_EQ(server_stop(s, false, false).disable,
            (std::vector<std::string>{"sudo systemctl disable specforge.service",
                                      "docker update --restart=no aaaaaaaaaaaa"}));
  // No unit: the container; its policy "no" needs no update, and the stop
  // says it ends the container.
  s.container = specforge(std::nullopt);
  st = server_stop(s, true, false);
  EXPECT_EQ(st.all(), std::vector<std::string>{"docker stop aaaaaaaaaaaa"});
  EXPECT_EQ(st.note, "Stopping container specforge (aaaaaaaaaaaa) ends everything in it.");
  // Signalled (nothing restarts it): the signal ends the container too.
  s.restarts_when_signalled = false;
  st = server_stop(s, false, false);
  EXPECT_FALSE(st.via_owner);
  EXPECT_NE(st.note.find("main process: stopping it ends the container, which Docker then "
                         "removes"),
            std::string::npos)
      << st.note;
  // Its PID 1 unknown: no disable of anything, and the doubt said.
  s.container_main.reset();
  s.auto_started = true;
  st = server_stop(s, false, false);
  EXPECT_TRUE(st.disable.empty());
  EXPECT_NE(st.note.find("is not known"), std::string::npos) << st.note;
}

TEST(Memory, OneBinaryUnitEverywhere) {
  EXPECT_EQ(format_memory(75801000000ull), "70.6 GiB");
  EXPECT_EQ(format_memory(uint64_t(512) << 20), "512 MiB");
  EXPECT_EQ(format_memory(std::optional<uint64_t>()), "unknown");
}

}  // namespace holders_test
}  // namespace gt

namespace gt {
namespace holders_test {

TEST(ServerStop, ScopesAndUserUnitsAreNeverStoppedThroughTheOwner) {
  Server s = server({42}, 42);
  s.owner_kind = OwnerKind::kSystemdUnit;
  s.owner_name = "tmux-spawn-1234.scope";
  s.restarts_when_signalled = true;
  EXPECT_FALSE(server_stop(s, true, false).via_owner);
  s.owner_kind = OwnerKind::kSystemdUserUnit;
  s.owner_name = "ollama.service";
  ServerStop u = server_stop(s, true, false);
  EXPECT_FALSE(u.via_owner);
  EXPECT_EQ(u.owner_text, "user systemd unit ollama.service");
}

// A command line with bytes >= 0x80 (a UTF-8 model path) is lowered byte by
// byte without an implicit truncation (UBSan's implicit-conversion check).
TEST(ServerIdentity, NonAsciiCommandLinesAreRecognised) {
  EXPECT_EQ(kind("python3 -m vllm.entrypoints.openai.api_server --model /m/mod\xc3\xa8le-\xff"),
            "vLLM");
  EXPECT_EQ(kind("\xc3\x89\xff\x80"), "-");
  EXPECT_EQ(kind("\xc3\x89::x"), "-");
}

// Issue 31: a launcher is known by its program, whichever way it is run,
// and a program of no known kind is named as unknown, never as the kind
// whose name appears somewhere in its words.
TEST(ServerIdentity, LaunchersByModuleConsoleScriptOrScriptPath) {
  for (const char* line :
       {"python3 -m sglang.launch_server --tp 2", "/usr/bin/python3 /usr/local/bin/sglang serve",
        "python3 /opt/sglang/python/sglang/launch_server.py --tp 2",
        "/usr/bin/python3 -u sglang/launch_server.py --port 30001",
        "python3 -W ignore /opt/sglang/python/sglang/launch_server.py --tp 2",
        "uv run python -m sglang.launch_server --tp 2"})
    EXPECT_EQ(kind(line), "SGLang") << line;
  for (const char* line :
       {"python3 /usr/lib/python3/site-packages/vllm/entrypoints/openai/api_server.py --model m",
        "/usr/bin/python3 /usr/local/bin/vllm serve m", "vllm serve m",
        "python -m vllm.entrypoints.cli.main serve m"})
    EXPECT_EQ(kind(line), "vLLM") << line;
  EXPECT_EQ(kind("llama serve -hf ggml-org/gemma-3-1b-it-GGUF"), "llama.cpp server");
  EXPECT_EQ(kind("lmdeploy serve api_server m 0.0.0.0 6006"), "LMDeploy");
  EXPECT_EQ(kind("python3 -m lmdeploy serve api_server m"), "LMDeploy");
  EXPECT_EQ(kind("/bin/bash /usr/local/bin/trtllm-llmapi-launch trtllm-serve /m"), "TensorRT-LLM");
  EXPECT_EQ(kind("python3 -m tensorrt_llm.llmapi.mgmn_worker_node"), "TensorRT-LLM");
  // Ray's CLI, even from a venv named for vLLM, is Ray; not vLLM.
  EXPECT_EQ(kind("/opt/vllm/bin/python3 /opt/vllm/bin/ray start --head --block"), "Ray");
  // Unknown programs stay unknown.
  for (const char* line :
       {"python3 /opt/sglang/tools/my_bench.py", "python3 train.py --sglang_tp_size 2",
        "python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=vllm",
        "/opt/vllm-env/bin/python3 train.py", "python3 -m sglang.bench_serving", "llama cli -hf m",
        "bash run_sglang.sh", "python3 -c import vllm",
        "/usr/bin/supervisord -c /etc/supervisor/sglang.conf"})
    EXPECT_EQ(kind(line), "-") << line;
  EXPECT_EQ(recognise_program("tritonserver", ""), "Triton");  // no command line: its name
  EXPECT_EQ(recognise_program("text-generation", ""), "TGI");
}

// Product runners by the names their projects ship (identity.cc names
// each packaging file); tests/fixtures/real/server-cmdlines.md.
TEST(ServerIdentity, ProductRunnersByTheirShippedNames) {
  EXPECT_EQ(kind("/usr/local/bin/text-generation-router --port 80 --master-shard-uds-path "
                 "/tmp/text-generation-server-0"),
            "TGI");
  EXPECT_EQ(kind("/usr/lib/ollama/runners/cuda_v12/ollama_llama_server --model "
                 "/root/.ollama/models/blobs/sha256-6a0746a1 --ctx-size 8192 --n-gpu-layers 33 "
                 "--port 41339"),
            "Ollama");
  EXPECT_EQ(recognise_program("ollama_llama_se", ""), "Ollama");  // the kernel's 15 bytes
  EXPECT_EQ(kind("/usr/bin/python3 /usr/local/bin/aphrodite run mistralai/Mistral-7B -tp 2"),
            "Aphrodite");
  EXPECT_EQ(kind("python3 -m aphrodite.endpoints.openai.api_server --model m --port 2242"),
            "Aphrodite");
  EXPECT_EQ(kind("/usr/bin/python3 /usr/local/bin/infinity_emb v2 --model-id "
                 "BAAI/bge-small-en-v1.5 --port 7997"),
            "Infinity");
  EXPECT_EQ(kind("mlc_llm serve HF://mlc-ai/Llama-3-8B-Instruct-q4f16_1-MLC --port 8000"),
            "MLC LLM");
  EXPECT_EQ(kind("mlc_llm chat HF://mlc-ai/Llama-3-8B-Instruct-q4f16_1-MLC"), "-");  // a client
  // Their flags, as their own parsers read them.
  ServerFlags f = parse_server_flags("Aphrodite", split_cmdline("aphrodite run m -tp 2"));
  EXPECT_EQ(f.model, "m");
  EXPECT_EQ(f.tensor, 2u);
  EXPECT_EQ(default_port("Aphrodite"), 2242u);
  f = parse_server_flags("MLC LLM", split_cmdline("mlc_llm serve HF://m --port 8001"));
  EXPECT_EQ(f.model, "HF://m");
  EXPECT_EQ(f.port, 8001u);
  f = parse_server_flags("Infinity", split_cmdline("infinity_emb v2 --model-id a --port 7998"));
  EXPECT_EQ(f.model, "a");
  f = parse_server_flags("Infinity", split_cmdline("infinity_emb v2 --model-id a --model-id b"));
  EXPECT_FALSE(f.model);  // two models: none is "the" model
}

// "accelerate launch" runs its training script (its workers run it too):
// the script is the program, through accelerate's own option grammar.
TEST(ServerIdentity, AccelerateLaunchRunsItsTrainingScript) {
  Program p = program_of(split_cmdline(
      "/opt/venv/bin/python /opt/venv/bin/accelerate launch --multi_gpu --num_processes 8 "
      "--mixed_precision=bf16 --main_process_port 29500 train.py --lr 1e-4"));
  EXPECT_EQ(p.name, "train.py");
  EXPECT_FALSE(p.module);
  EXPECT_EQ(p.args_from, 10u);  // "--lr"
  p = program_of(split_cmdline("accelerate launch --use_deepspeed -m sglang.launch_server --tp 2"));
  EXPECT_EQ(p.name, "sglang.launch_server");
  EXPECT_TRUE(p.module);
  EXPECT_EQ(kind("accelerate launch --num_processes 2 train.py"), "-");
  EXPECT_EQ(program_of(split_cmdline("accelerate config")).name, "accelerate");  // no script
  EXPECT_EQ(program_of(split_cmdline("accelerate launch --num_processes")).name, "accelerate");
}

}  // namespace holders_test
}  // namespace gt
