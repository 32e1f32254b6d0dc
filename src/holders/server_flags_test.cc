// Each kind's command lines in every spelling its own parser accepts; the
// source of each spelling is named beside it.
#include "holders/server_flags.h"

#include <gtest/gtest.h>

#include <chrono>

#include "holders/identity.h"

namespace gt {
namespace server_flags_test {

ServerFlags parse(const std::string& kind, const std::string& line) {
  return parse_server_flags(kind, split_cmdline(line));
}

TEST(ServerFlags, SglangEverySpelling) {
  // sglang/srt/server_args.py: "--model-path" with alias "--model";
  // "--tensor-parallel-size"/"--tp-size"; argparse prefixes ("--tp").
  for (const char* line :
       {"python3 -m sglang.launch_server --model-path /m/x --tp 4 --dp 2 --port 30010",
        "python3 -m sglang.launch_server --model=/m/x --tp-size=4 --dp-size 2 --port=30010",
        "python -u -m sglang.launch_server --model /m/x --tensor-parallel-size 4 "
        "--data-parallel-size 2 --port 30010",
        "python3 -m sglang.launch_server --model-p /m/x --tensor 4 --data-p 2 --po 30010"}) {
    ServerFlags f = parse("SGLang", line);
    EXPECT_EQ(f.model, "/m/x") << line;
    EXPECT_EQ(f.tensor, 4u) << line;
    EXPECT_EQ(f.data, 2u) << line;
    EXPECT_EQ(f.port, 30010u) << line;
    EXPECT_EQ(f.port_source, "--port") << line;
  }
  // The interpreter's own -m is not SGLang's: only words after the module count.
  EXPECT_EQ(parse("SGLang", "python3 -m sglang.launch_server --tp 2").model, std::nullopt);
  // Underscores are not SGLang's spelling (plain argparse).
  EXPECT_EQ(parse("SGLang", "python3 -m sglang.launch_server --tp_size 2").tensor, std::nullopt);
  // --pp-size, --ep-size; --enable-ep-moe sets ep_size = tp_size (__post_init__).
  ServerFlags e =
      parse("SGLang", "python3 -m sglang.launch_server --tp 8 --pp-size 2 --enable-ep-moe");
  EXPECT_EQ(e.pipeline, 2u);
  EXPECT_EQ(e.expert, 8u);
  // --enable-dp-attention: data parallel attention over the TP ranks.
  ServerFlags d = parse("SGLang", "python3 -m sglang.launch_server --tp 8 --enable-dp-attention");
  EXPECT_EQ(d.data, 8u);
  EXPECT_EQ(
      parse("SGLang", "python3 -m sglang.launch_server --tp 8 --dp 4 --enable-dp-attention").data,
      4u);
  EXPECT_EQ(parse("SGLang", "python3 -m sglang.launch_server --config c.yaml").config_file,
            "c.yaml");
}

TEST(ServerFlags, VllmEverySpelling) {
  // vllm/engine/arg_utils.py: -tp, -pp, -dp short forms; FlexibleArgumentParser
  // rewrites underscores; "vllm serve MODEL" positional (entrypoints/cli/serve.py).
  for (const char* line :
       {"vllm serve meta-llama/L3 -tp 4 -dp 2 -pp 2 --port 8001",
        "vllm serve meta-llama/L3 --tensor-parallel-size 4 --data-parallel-size=2 "
        "--pipeline-parallel-size 2 --port=8001",
        "vllm serve meta-llama/L3 --tensor_parallel_size 4 --data_parallel_size 2 "
        "--pipeline_parallel_size 2 --port 8001",
        "/usr/bin/python3 /usr/local/bin/vllm serve meta-llama/L3 -tp=4 -dp=2 -pp=2 --port 8001",
        "python3 -m vllm.entrypoints.openai.api_server --model meta-llama/L3 -tp 4 -dp 2 -pp 2 "
        "--port 8001"}) {
    ServerFlags f = parse("vLLM", line);
    EXPECT_EQ(f.model, "meta-llama/L3") << line;
    EXPECT_EQ(f.tensor, 4u) << line;
    EXPECT_EQ(f.data, 2u) << line;
    EXPECT_EQ(f.pipeline, 2u) << line;
    EXPECT_EQ(f.port, 8001u) << line;
  }
  // No prefixes in vLLM's parser: "--tensor" is not --tensor-parallel-size.
  EXPECT_EQ(parse("vLLM", "vllm serve m --tensor 4").tensor, std::nullopt);
  // An unknown option before the model may take a value: the model is not guessed.
  EXPECT_EQ(parse("vLLM", "vllm serve --dtype auto m").model, std::nullopt);
  // --enable-expert-parallel: experts over TP x DP.
  EXPECT_EQ(parse("vLLM", "vllm serve m -tp 4 -dp 2 --enable-expert-parallel").expert, 8u);
  EXPECT_EQ(parse("vLLM", "vllm serve --config x.yaml").config_file, "x.yaml");
}

TEST(ServerFlags, TgiLauncherAndShards) {
  // launcher/src/main.rs (clap): --model-id, --num-shard, --port / -p.
  ServerFlags f =
      parse("TGI", "text-generation-launcher --model-id bigscience/bloom --num-shard 2 -p 8080");
  EXPECT_EQ(f.model, "bigscience/bloom");
  EXPECT_EQ(f.tensor, 2u);
  EXPECT_EQ(f.port, 8080u);
  EXPECT_EQ(parse("TGI", "text-generation-launcher --model-id=x --port=9000").port, 9000u);
  // server/text_generation_server/cli.py: "text-generation-server serve MODEL_ID".
  EXPECT_EQ(parse("TGI",
                  "/opt/conda/bin/python /opt/conda/bin/text-generation-server serve "
                  "bigscience/bloom --sharded")
                .model,
            "bigscience/bloom");
}

TEST(ServerFlags, TritonRepositoryIsNotAModel) {
  // src/command_line_parser.cc (getopt_long): --model-repository / --model-store
  // is the folder of every model it may serve; --load-model NAME the one it loads.
  for (const char* line : {"tritonserver --model-repository=/models --http-port 8010",
                           "tritonserver --model-store /models --http-port=8010",
                           "tritonserver --model-repo=/models --http-p=8010"}) {
    ServerFlags f = parse("Triton", line);
    EXPECT_EQ(f.model, std::nullopt) << line;
    EXPECT_EQ(f.port, 8010u) << line;
    EXPECT_EQ(f.port_source, "--http-port") << line;
  }
  EXPECT_EQ(parse("Triton",
                  "tritonserver --model-repository=/models --model-control-mode=explicit "
                  "--load-model=llama")
                .model,
            "llama");
  EXPECT_EQ(
      parse("Triton", "tritonserver --model-repository=/m --load-model a --load-model b").model,
      std::nullopt);
  EXPECT_EQ(parse("Triton", "tritonserver --model-repository=/m --load-model=*").model,
            std::nullopt);
}

TEST(ServerFlags, TrtllmServeUnderscores) {
  // tensorrt_llm/commands/serve.py (click): MODEL, --tp_size, --pp_size, --ep_size, --port.
  for (const char* line :
       {"trtllm-serve /m/ds --backend pytorch --tp_size 8 --pp_size 2 --ep_size 4 --port 8002",
        "trtllm-serve serve /m/ds --tp_size=8 --pp_size=2 --ep_size=4 --port=8002",
        "/usr/bin/python3 /usr/local/bin/trtllm-serve /m/ds --tp_size 8 "
        "--pp_size 2 --ep_size 4 --port 8002"}) {
    ServerFlags f = parse("TensorRT-LLM", line);
    EXPECT_EQ(f.model, "/m/ds") << line;
    EXPECT_EQ(f.tensor, 8u) << line;
    EXPECT_EQ(f.pipeline, 2u) << line;
    EXPECT_EQ(f.expert, 4u) << line;
    EXPECT_EQ(f.port, 8002u) << line;
  }
  // click takes names as declared: --tp-size is not trtllm-serve's.
  EXPECT_EQ(parse("TensorRT-LLM", "trtllm-serve m --tp-size 8").tensor, std::nullopt);
}

TEST(ServerFlags, LmdeployApiServer) {
  // lmdeploy/cli/serve.py: "lmdeploy serve api_server MODEL_PATH", --server-port, --tp (argparse).
  for (const char* line :
       {"lmdeploy serve api_server internlm/internlm2 --tp 2 --server-port 23334",
        "lmdeploy serve api_server internlm/internlm2 --tp=2 --server-port=23334",
        "lmdeploy serve api_server internlm/internlm2 --tp 2 --server-p 23334"}) {
    ServerFlags f = parse("LMDeploy", line);
    EXPECT_EQ(f.model, "internlm/internlm2") << line;
    EXPECT_EQ(f.tensor, 2u) << line;
    EXPECT_EQ(f.port, 23334u) << line;
  }
  EXPECT_EQ(recognise_program("lmdeploy", "lmdeploy serve api_server m --tp 2"), "LMDeploy");
}

TEST(ServerFlags, OllamaHostFromItsEnvironment) {
  // envconfig/config.go Host(): [scheme://]host[:port]; 11434 by default,
  // 80 / 443 with an explicit http / https scheme.
  const std::vector<std::pair<std::string, std::optional<uint32_t>>> cases = {
      {"0.0.0.0:11435", 11435}, {"0.0.0.0", 11434},         {":8080", 8080},
      {"http://a:99", 99},      {"http://a", 80},           {"https://a/x", 443},
      {"[::1]:11500", 11500},   {"0.0.0.0:notaport", 11434}};
  for (const auto& [host, port] : cases) {
    ServerFlags f;
    apply_server_environment("Ollama", {{"OLLAMA_HOST", host}}, f);
    EXPECT_EQ(f.port, port) << host;
    EXPECT_EQ(f.port_source, "OLLAMA_HOST") << host;
  }
  // runner/runner.go (Go flag): -model and --model.
  EXPECT_EQ(parse("Ollama", "/usr/bin/ollama runner --model /b/sha256-1 --port 40000").model,
            "/b/sha256-1");
  EXPECT_EQ(parse("Ollama", "/usr/bin/ollama runner -model=/b/sha256-1").model, "/b/sha256-1");
  EXPECT_EQ(parse("Ollama", "/usr/bin/ollama runner --model /b/x --port 40000").port, std::nullopt);
  EXPECT_EQ(default_port("Ollama"), 11434u);
}

TEST(ServerFlags, TgiAndLlamaCppEnvironment) {
  // TGI main.rs: #[clap(long, env)] PORT, MODEL_ID; the flag wins over the env.
  ServerFlags f;
  apply_server_environment("TGI", {{"PORT", "80"}, {"MODEL_ID", "x/y"}}, f);
  EXPECT_EQ(f.port, 80u);
  EXPECT_EQ(f.port_source, "PORT");
  EXPECT_EQ(f.model, "x/y");
  ServerFlags g = parse("TGI", "text-generation-launcher --port 3001");
  apply_server_environment("TGI", {{"PORT", "80"}}, g);
  EXPECT_EQ(g.port, 3001u);
  // llama.cpp common/arg.cpp: LLAMA_ARG_PORT, LLAMA_ARG_MODEL.
  ServerFlags l;
  apply_server_environment("llama.cpp server", {{"LLAMA_ARG_PORT", "9090"}}, l);
  EXPECT_EQ(l.port, 9090u);
}

TEST(ServerFlags, LlamaCppServer) {
  // common/arg.cpp: -m / --model, -hf / --hf-repo, --port.
  for (const char* line : {"./llama-server -m /m/q4.gguf --port 8081",
                           "llama-server --model=/m/q4.gguf --port=8081"}) {
    ServerFlags f = parse("llama.cpp server", line);
    EXPECT_EQ(f.model, "/m/q4.gguf") << line;
    EXPECT_EQ(f.port, 8081u) << line;
  }
  EXPECT_EQ(parse("llama.cpp server", "llama-server -hf ggml-org/gemma").model, "ggml-org/gemma");
}

TEST(ServerFlags, TorchrunReportsTheWorldNotALayout) {
  // torch/distributed/run.py: --nproc-per-node / --nproc_per_node, --nnodes;
  // the script's arguments follow it.
  for (const char* line :
       {"/usr/bin/python3 /usr/local/bin/torchrun --nproc_per_node 4 --nnodes 2 pretrain_gpt.py "
        "--tensor-model-parallel-size 4",
        "torchrun --nproc-per-node=4 --nnodes=2 pretrain_gpt.py --tensor-model-parallel-size 4",
        "python -m torch.distributed.run --nproc-per 4 --nnodes 2 pretrain_gpt.py "
        "--tensor-model-parallel-size 4"}) {
    ServerFlags f = parse("torchrun", line);
    EXPECT_EQ(f.local_world_size, 4u) << line;
    EXPECT_EQ(f.world_size, 8u) << line;
    EXPECT_EQ(f.data, std::nullopt) << line;  // torchrun cannot know the data parallel size
    EXPECT_EQ(f.tensor, 4u) << line;          // Megatron's own flag (arguments.py)
  }
  // Elastic "1:4": the world is not known.
  EXPECT_EQ(parse("torchrun", "torchrun --nnodes 1:4 --nproc_per_node 8 t.py").world_size,
            std::nullopt);
  EXPECT_EQ(parse("torchrun", "torchrun --standalone --nproc_per_node 8 t.py").world_size, 8u);
  // A flag of the script is not torchrun's.
  EXPECT_EQ(parse("torchrun", "torchrun t.py --nproc_per_node 8").local_world_size, std::nullopt);
  ServerFlags env;
  apply_server_environment("torchrun", {{"WORLD_SIZE", "16"}}, env);
  EXPECT_EQ(env.world_size, 16u);
}

TEST(ServerFlags, DeepSpeedLauncher) {
  // deepspeed/launcher/runner.py: --num_gpus / --num-gpus, --num_nodes, --include.
  for (const char* line :
       {"/usr/bin/python3 /usr/local/bin/deepspeed --num_gpus 8 --num_nodes 2 train.py",
        "deepspeed --num-gpus=8 --num-nodes=2 train.py --deepspeed"}) {
    ServerFlags f = parse("DeepSpeed", line);
    EXPECT_EQ(f.local_world_size, 8u) << line;
    EXPECT_EQ(f.world_size, 16u) << line;
  }
  EXPECT_EQ(parse("DeepSpeed", "deepspeed --include localhost:0,1,2,3 train.py").local_world_size,
            4u);
}

TEST(ServerFlags, WrappersReadTheProgramTheyRun) {
  // Open MPI orterun: -np; the program after its options is read with its kind's table.
  ServerFlags f =
      parse("Triton",
            "mpirun --allow-run-as-root -np 4 tritonserver --model-repository=/m --load-model x");
  EXPECT_EQ(f.world_size, 4u);
  EXPECT_EQ(f.model, "x");
  // Slurm srun: --ntasks.
  ServerFlags s = parse("SGLang", "srun --ntasks=2 python3 -m sglang.launch_server --tp 4");
  EXPECT_EQ(s.world_size, 2u);
  EXPECT_EQ(s.tensor, 4u);
}

TEST(ServerFlags, ConfigFileKeys) {
  // vLLM --config: keys are the long options (either spelling); the command line wins.
  ServerFlags f = parse("vLLM", "vllm serve --config c.yaml --port 9000");
  apply_server_config("vLLM",
                      "# c\nmodel: \"meta/L3\"\nport: 7000\ntensor_parallel_size: 4\n"
                      "nested:\n  port: 1\n",
                      "config c.yaml", f);
  EXPECT_EQ(f.model, "meta/L3");
  EXPECT_EQ(f.port, 9000u);
  EXPECT_EQ(f.port_source, "--port");
  EXPECT_EQ(f.tensor, 4u);
  ServerFlags g;
  apply_server_config("SGLang", "model-path: /m\nport: 30001\ntensor-parallel-size: 2\n",
                      "config s.yaml", g);
  EXPECT_EQ(g.model, "/m");
  EXPECT_EQ(g.port, 30001u);
  EXPECT_EQ(g.port_source, "config s.yaml");
  EXPECT_EQ(g.tensor, 2u);
}

// Issue 31: the held-out real command lines (tests/fixtures/real/server-cmdlines.md
// names where each spelling is defined).
TEST(ServerFlags, LmdeployPositionalForm) {
  // The fire-era CLI: api_server(model_path, server_name, server_port, instance_num, tp).
  ServerFlags f = parse("LMDeploy", "lmdeploy serve api_server ./workspace 0.0.0.0 6006");
  EXPECT_EQ(f.model, "./workspace");
  EXPECT_EQ(f.port, 6006u);
  EXPECT_EQ(f.port_source, "port argument");
  EXPECT_EQ(parse("LMDeploy", "lmdeploy serve api_server m 0.0.0.0 6006 32 2").tensor, 2u);
  EXPECT_EQ(parse("LMDeploy", "lmdeploy serve api_server m --server_port 6007").port, 6007u);
  EXPECT_EQ(parse("LMDeploy", "lmdeploy serve api_server m --server-port 6008").port_source,
            "--server-port");
  // lmdeploy/serve/openai/api_server.py run by itself (fire main(model_path, server_name,
  // server_port, ...)), and "python -m lmdeploy serve api_server".
  EXPECT_EQ(parse("LMDeploy", "python3 -m lmdeploy.serve.openai.api_server m 0.0.0.0 23334").port,
            23334u);
  EXPECT_EQ(parse("LMDeploy", "python3 -m lmdeploy serve api_server m --tp 4").tensor, 4u);
  // Another subcommand's positionals are not api_server's.
  EXPECT_EQ(parse("LMDeploy", "lmdeploy serve gradio m 0.0.0.0 6006").port, std::nullopt);
  EXPECT_EQ(parse("LMDeploy", "lmdeploy chat m").model, std::nullopt);
}

TEST(ServerFlags, LlamaServeAndTrtllmUnderItsLauncher) {
  // llama.cpp README.md: "llama serve -hf MODEL" takes llama-server's arguments.
  ServerFlags l =
      parse("llama.cpp server", "llama serve -hf ggml-org/gemma-3-1b-it-GGUF --port 8090");
  EXPECT_EQ(l.model, "ggml-org/gemma-3-1b-it-GGUF");
  EXPECT_EQ(l.port, 8090u);
  // trtllm-llmapi-launch runs the command it is given: the model is trtllm-serve's.
  for (const char* line :
       {"trtllm-llmapi-launch trtllm-serve /m/ds --tp_size 8 --port 8001",
        "/bin/bash /usr/local/bin/trtllm-llmapi-launch trtllm-serve /m/ds --tp_size 8 --port 8001",
        "srun -n 16 trtllm-llmapi-launch trtllm-serve serve /m/ds --tp_size 8 --port 8001"}) {
    ServerFlags f = parse("TensorRT-LLM", line);
    EXPECT_EQ(f.model, "/m/ds") << line;
    EXPECT_EQ(f.tensor, 8u) << line;
    EXPECT_EQ(f.port, 8001u) << line;
  }
  EXPECT_EQ(parse("TensorRT-LLM", "srun -n 16 trtllm-llmapi-launch trtllm-serve /m").world_size,
            16u);
  // A framework's own prefixed flag is not SGLang's --tp-size.
  EXPECT_EQ(parse("SGLang", "python3 -m sglang.launch_server --sglang_tp_size 2").tensor,
            std::nullopt);
}

TEST(ServerFlags, NestedWrappersAreWalkedBounded) {
  // Issue 32: "mpirun" x 4096 was 4,095 nested calls on copies of the words.
  std::vector<std::string> argv(4096, "mpirun");
  argv.push_back("tritonserver");
  const auto t0 = std::chrono::steady_clock::now();
  ServerFlags f = parse_server_flags("Triton", argv);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_EQ(f.model, std::nullopt);
  EXPECT_LT(ms, 1000);
  // Two wrappers deep still reads the program and the outer world.
  ServerFlags g = parse("SGLang", "srun -n 4 mpirun -np 2 python3 -m sglang.launch_server --tp 8");
  EXPECT_EQ(g.tensor, 8u);
  EXPECT_EQ(g.world_size, 4u);
}

TEST(ServerFlags, ConfigTrimIsLinear) {
  // Issue 32: one "port:" line with 1 M blanks cost ~10 s (one erase per blank).
  std::string yaml = "port:" + std::string(1000000, ' ') + "9000" + std::string(1000, '\t') + "\n";
  const auto t0 = std::chrono::steady_clock::now();
  ServerFlags f;
  apply_server_config("vLLM", yaml, "config c.yaml", f);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_EQ(f.port, 9000u);
  EXPECT_LT(ms, 1000);
  ServerFlags g;
  apply_server_config("vLLM", "port: \t \n model:   \"m/x\"  \n", "config c.yaml", g);
  EXPECT_EQ(g.port, std::nullopt);
}

TEST(ServerFlags, HostileInputStaysNull) {
  EXPECT_EQ(parse("vLLM", "vllm serve m -tp 99999999999999999999").tensor, std::nullopt);
  EXPECT_EQ(parse("vLLM", "vllm serve m --port 0").port, std::nullopt);
  EXPECT_EQ(parse("vLLM", "vllm serve m --port 70000").port, std::nullopt);
  EXPECT_EQ(parse("vLLM", "vllm serve m -tp").tensor, std::nullopt);
  std::string huge = "vllm serve m";
  for (int i = 0; i < 20000; ++i) huge += " --x";
  huge += " -tp 4";
  EXPECT_EQ(parse("vLLM", huge).tensor, std::nullopt);  // beyond the 4096 words read
  EXPECT_TRUE(parse_server_flags("vLLM", {}).model == std::nullopt);
}

}  // namespace server_flags_test
}  // namespace gt
