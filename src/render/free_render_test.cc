#include "render/free_render.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "render/golden.h"

namespace gt {
namespace free_render_test {

constexpr uint64_t kGiB = uint64_t{1} << 30;

// An SGLang server by its unit on GPUs 0-1, a restart loop wrapping a
// process on GPU 2, a refused PID and a TP warning: each part of the plan.
FreePlan sample_plan() {
  FreePlan p;
  p.gpus = {0, 1, 2};
  TreeTarget s;
  s.server_id = "pid-3187";
  s.root = {3187, 100};
  s.root_cmdline = "python3 -m sglang.launch_server --model-path /models/llama --tp 2";
  s.signal = {{3187, 100}};
  s.user = "svc";
  s.since_unix_s = 1767225600;  // 2026-01-01 00:00:00 UTC
  s.holders = {{3190, 110}, {3191, 111}};
  s.tree = {{3188, 105}};
  s.kill = {{3187, 100}, {3188, 105}, {3190, 110}, {3191, 111}};
  s.gpus = {0, 1};
  s.bytes = 150 * kGiB;
  s.idle = true;
  s.label = "SGLang";
  s.noun = "SGLang server";
  s.stop.via_owner = true;
  s.stop.owner_text = "systemd unit sglang.service";
  s.stop.stop = {"sudo systemctl stop sglang.service"};
  s.stop.disable = {"sudo systemctl disable sglang.service"};
  s.restart_policy = "Restart=always";
  p.targets.push_back(s);
  TreeTarget w;
  w.server_id = "pid-4100";
  w.root = {4100, 200};
  w.root_cmdline = "python3 train.py";
  w.signal = {{4102, 203}, {4100, 200}};  // the wrapper first
  w.kill = w.signal;
  w.whole = false;  // exactly the --pid PIDs
  w.report_commands = false;
  w.holders = {{4100, 200}};
  w.gpus = {2};
  w.bytes = 20 * kGiB;
  w.label = "python3";
  w.noun = "process python3";
  w.stop.owner_text = "no owner found (started from a shell)";
  w.stop.stop = {"kill -TERM 4102 4100"};
  w.wrappers = {{4102, "bash -c while true; do python3 train.py; done"}};
  w.supervisor = ServerProcess{4000, "supervisord -c /etc/supervisord.conf"};
  w.supervisor_role =
      "it runs other processes or servers too, or restarts them: not stopped here; select it "
      "with `gpu-triage free --pid 4000 --whole-server`; if it starts this server again, stop it "
      "that way";
  w.launcher_exited = true;
  w.widened = true;
  p.targets.push_back(w);
  p.refusals.push_back({4200, "PID 4200 (python3)", "it belongs to another user's job"});
  p.skipped.push_back("vLLM server, root PID 5000: busy (add --include-busy)");
  p.warnings.push_back("GPU 1 is one rank of a TP group of 2: its other rank stops too");
  return p;
}

FreeResult sample_result() {
  FreeResult r;
  r.actions = {"systemctl stop sglang.service", "SIGTERM to PID 4102"};
  r.refusals.push_back({4100, "PID 4100", "its PID was reused (start time differs)"});
  r.failures = {"kill -TERM 4102: Operation not permitted"};
  r.manual = {"systemctl --user stop jupyter.service (a user unit)"};
  r.remaining = {"GPU 2 still holds 20 GiB with no process: reset it with nvidia-smi -r -i 2"};
  r.gpus.push_back({0, 80 * kGiB, kGiB / 2, 3.25, true});
  r.gpus.push_back({2, 20 * kGiB, 20 * kGiB, std::nullopt, false});
  r.gpus.push_back({1, std::nullopt, std::nullopt, std::nullopt, false});
  r.gpus.push_back({3, 80 * kGiB, 0, 1.5, false, true});  // its server was started again
  r.memory_remains = true;
  return r;
}

NodeSnapshot sample_node() {
  NodeSnapshot n;
  for (uint32_t i = 0; i < 3; ++i) {
    GpuState g;
    g.index = i;
    g.memory_total_bytes = 80 * kGiB;
    g.memory_used_bytes = i == 2 ? std::optional<uint64_t>(kGiB / 2) : 70 * kGiB;
    if (i != 1) g.processes = std::vector<GpuProcess>(i == 2 ? 0 : 2);
    n.gpus.push_back(g);
  }
  return n;
}

TEST(FreeRender, PlanMatchesGolden) {
  FreeOptions o;
  o.bundle_dir = "/var/lib/gpu-triage/bundles";
  FreePlan p = sample_plan();
  FreeResult r;
  r.remaining = sample_result().remaining;
  expect_golden("free_plan.txt", render_free_text(p, r, sample_node(), o));
}

TEST(FreeRender, ActingMatchesGolden) {
  FreeOptions o;
  o.yes = true;
  o.force_signal = true;
  o.grace = std::chrono::milliseconds(2500);
  expect_golden("free_act.txt", render_free_text(sample_plan(), sample_result(), sample_node(), o));
}

TEST(FreeRender, JsonMatchesGolden) {
  FreeOptions o;
  o.yes = true;
  o.bundle_dir = "/var/lib/gpu-triage/bundles";
  FreeResult r = sample_result();
  r.bundle = "/var/lib/gpu-triage/bundles/gpu-triage-node1-20260101T000000Z.tar.zst";
  std::string doc = render_free_json(sample_plan(), r, o, 2);
  expect_golden("free.json", doc);
  nlohmann::json d = nlohmann::json::parse(doc);
  EXPECT_EQ(d["schema"], "gpu-triage/free");
  EXPECT_EQ(d["refusals"].size(), 2u);                      // the plan's and the act's
  EXPECT_TRUE(d["gpus"][1]["released_after_s"].is_null());  // unknown is null
  EXPECT_EQ(d["bundle"], *r.bundle);
}

TEST(FreeRender, APlanWithoutABundleSaysSo) {
  FreeOptions o;  // --no-bundle: no bundle_dir
  std::string text = render_free_text(sample_plan(), FreeResult{}, sample_node(), o);
  EXPECT_NE(text.find("With --yes and --no-bundle no bundle is recorded first."),
            std::string::npos);
  EXPECT_TRUE(
      nlohmann::json::parse(render_free_json(sample_plan(), FreeResult{}, o, 2))["bundle_dir"]
          .is_null());
}

TEST(FreeRender, TheVerdictIsCheckedAgainstThePlan) {
  FreeOptions o;
  o.yes = true;
  FreePlan p;
  p.gpus = {0, 1};
  FreeResult ok;
  ok.gpus = {{0, 70 * kGiB, 0, 1.0, true}, {1, 70 * kGiB, 0, 1.0, true}};
  EXPECT_NE(render_free_text(p, ok, NodeSnapshot{}, o)
                .find("Result: done as planned: every planned PID is gone, nothing started "
                      "again within 2 s, GPUs 0-1 free\n"),
            std::string::npos);
  FreeResult back = ok;
  back.gpus[1].free_at_end = false;
  back.gpus[1].started_again = true;
  back.failures = {"the SGLang server was started again within 2 s after the stop: ..."};
  std::string text = render_free_text(p, back, NodeSnapshot{}, o);
  EXPECT_EQ(text.find("Result: done as planned"), std::string::npos) << text;
  EXPECT_NE(text.find("Result: NOT done as planned: 1 difference from the plan"), std::string::npos)
      << text;
  EXPECT_NE(text.find("(started again)"), std::string::npos);
}

TEST(FreeRender, ASupervisorIsShownWithWhatTheStopDoesToIt) {
  FreePlan p;
  p.gpus = {0};
  TreeTarget t;
  t.root = {20, 1};
  t.noun = "SGLang server";
  t.supervisor = ServerProcess{10, "python3 supervisor.py"};
  t.supervisor_role = "named with --pid: SIGTERM to it first, then to this server";
  t.signal = {{10, 1}, {20, 1}};
  t.kill = {{10, 1}, {20, 1}, {21, 1}};
  t.stop.stop = {"kill 10   # SIGTERM first to PID 10, named with --pid", "kill 20"};
  t.report_commands = false;
  p.targets.push_back(t);
  std::string text = render_free_text(p, FreeResult{}, NodeSnapshot{}, FreeOptions{});
  EXPECT_NE(text.find("owner process PID 10: python3 supervisor.py (named with --pid: SIGTERM to "
                      "it first, then to this server)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("would do: SIGTERM to PIDs 10, then 20, SIGKILL after 30 s to any of PIDs "
                      "10, 20-21 still running and to any process started below them since the "
                      "plan\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("   commands:\n     $ kill 10 "), std::string::npos) << text;
}

TEST(FreeRender, TheCommandsEscalateAsTheActDoes) {
  FreePlan p;
  p.gpus = {0};
  TreeTarget t;
  t.root = {14296, 1};
  t.noun = "process outer.sh";
  t.signal = {{14296, 1}};
  t.kill = {{14296, 1}, {14297, 1}, {14298, 1}};
  t.stop.stop = {"kill 14296   # SIGTERM"};
  p.targets.push_back(t);
  FreeOptions o;
  o.grace = std::chrono::milliseconds(3000);
  std::string text = render_free_text(p, FreeResult{}, NodeSnapshot{}, o);
  EXPECT_NE(text.find("     $ kill 14296   # SIGTERM\n   then, as --yes does:\n     $ kill -KILL "
                      "14296 14297 14298   # after 3 s, those still running"),
            std::string::npos)
      << text;
}

TEST(FreeRender, OnlyRefusedIsNothingDone) {
  FreePlan p;
  p.gpus = {0};
  p.refusals.push_back({4200, "PID 4200 (sleep)", "it belongs to another user (root)"});
  FreeOptions o;
  o.yes = true;
  std::string text = render_free_text(p, FreeResult{}, NodeSnapshot{}, o);
  EXPECT_EQ(text.find("carried out"), std::string::npos) << text;
  EXPECT_NE(text.find("Result: nothing done: 1 process refused (above)\n"), std::string::npos)
      << text;
}

TEST(FreeRender, NothingToStopIsSaid) {
  FreePlan p;
  p.gpus = {3};
  std::string text = render_free_text(p, FreeResult{}, NodeSnapshot{}, FreeOptions{});
  EXPECT_NE(text.find("Plan (nothing done; run with --yes to act): GPU 3\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\nNo process to stop on the selected GPUs.\n"), std::string::npos);
  // --pid of a server left alone selects no GPU: said so, not "GPUs ".
  p.gpus.clear();
  text = render_free_text(p, FreeResult{}, NodeSnapshot{}, FreeOptions{});
  EXPECT_EQ(text.rfind("Plan (nothing done; run with --yes to act): no GPU\n", 0), 0u) << text;
}

}  // namespace free_render_test
}  // namespace gt
