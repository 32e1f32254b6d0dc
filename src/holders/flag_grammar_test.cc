#include "holders/flag_grammar.h"

#include <gtest/gtest.h>

#include "holders/identity.h"

namespace gt {
namespace {

FlagVerdict verdict(const std::string& cmdline) { return kind_by_flags(split_cmdline(cmdline)); }

// Launch lines of programs of no known name, each from a real deployment
// shape: a script of one's own over vLLM's EngineArgs (disaggregated
// prefill, vLLM's docs), one over SGLang's ServerArgs, TGI's launcher
// renamed in an image.
TEST(FlagGrammar, AFlagOneServerAloneDefinesDecidesTheKind) {
  FlagVerdict v = verdict(
      "python3 serve.py --model /m/llama --tensor-parallel-size 2 "
      "--kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}");
  EXPECT_EQ(v.kind, "vLLM");
  EXPECT_EQ(v.flags, std::vector<std::string>{"--kv-transfer-config"});
  // FlexibleArgumentParser reads underscores as dashes; "=V" alike.
  EXPECT_EQ(verdict("/app/main --enable_expert_parallel --async-scheduling=true").kind, "vLLM");
  EXPECT_EQ(verdict("python /srv/api.py --model-path M --tp 8 --mem-fraction-static 0.85").kind,
            "SGLang");
  EXPECT_EQ(verdict("./server --model-id bigscience/bloom --num-shard 4 --port 8080").kind, "TGI");
  // Under a process launcher: the program's own arguments decide.
  EXPECT_EQ(verdict("mpirun -np 2 --bind-to none python3 serve.py --disable-radix-cache").kind,
            "SGLang");
}

TEST(FlagGrammar, SharedFlagsAndFlagsOfTwoServersDecideNothing) {
  // --tensor-parallel-size is vLLM's, SGLang's and Aphrodite's;
  // --gpu-memory-utilization vLLM's and Aphrodite's; --port everyone's.
  FlagVerdict v = verdict(
      "python3 serve.py --model M --tensor-parallel-size 4 --gpu-memory-utilization 0.9 --port "
      "8000");
  EXPECT_FALSE(v.kind);
  EXPECT_TRUE(v.flags.empty());
  EXPECT_EQ(flag_verdict_note(v, "serve.py"), "");
  v = verdict("python3 serve.py --mem-fraction-static 0.8 --kv-transfer-config {}");
  EXPECT_FALSE(v.kind);
  EXPECT_EQ(v.kinds, (std::vector<std::string>{"SGLang", "vLLM"}));
  EXPECT_EQ(flag_verdict_note(v, "serve.py"),
            "its flags (--mem-fraction-static, --kv-transfer-config) are SGLang and vLLM's at "
            "once: its kind is not decided by them");
  // A flag of the interpreter's or the launcher's is not the program's;
  // a value that looks like a flag after "--" is positional.
  EXPECT_FALSE(verdict("python3 -X --num-shard train.py").kind);
  EXPECT_FALSE(verdict("python3 train.py -- --num-shard 2").kind);
  // A word that merely contains a flag's name is no flag.
  EXPECT_FALSE(verdict("python3 train.py --num-shards 2 --my-mem-fraction-static 1").kind);
}

TEST(FlagGrammar, TheNoteNamesTheFlagsAndTheProgram) {
  FlagVerdict v = verdict("python3 serve.py --num-shard 2 --max-batch-prefill-tokens 4096");
  EXPECT_EQ(flag_verdict_note(v, "serve.py"),
            "kind TGI by its flags (--num-shard, --max-batch-prefill-tokens, defined by TGI's "
            "parser alone): serve.py is no entry point of TGI's");
}

}  // namespace
}  // namespace gt
