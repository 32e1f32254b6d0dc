// Topology and P2P between GPUs: names of NVML's values, the mock's
// "topology" key, unknown when the driver says nothing, and a hung pair call.
#include "sources/nvml/nvml_peers.h"

#include <gtest/gtest.h>

#include "sources/nvml/nvml_test_util.h"

namespace gt {
namespace nvml_peers_test {

using testing_nvml::bare_device;
using testing_nvml::scenario_on;
/// One suite per file: gtest wants one fixture class per suite name.
class PeersMock : public testing_nvml::MockNvml {};

/// Three devices with `topology` (a JSON object) as the scenario's key.
std::string three_with(const std::string& topology, const std::string& extra0 = "") {
  std::string devs = bare_device(extra0) + "," + bare_device() + "," + bare_device();
  std::string s = scenario_on(devs);
  s.pop_back();  // the closing brace
  if (!topology.empty()) s += R"(, "topology": )" + topology;
  return s + "}";
}

TEST(PeerNames, EveryDocumentedValueHasItsName) {
  EXPECT_EQ(topology_level_name(NVML_TOPOLOGY_INTERNAL), "internal");
  EXPECT_EQ(topology_level_name(NVML_TOPOLOGY_SINGLE), "single");
  EXPECT_EQ(topology_level_name(NVML_TOPOLOGY_MULTIPLE), "multiple");
  EXPECT_EQ(topology_level_name(NVML_TOPOLOGY_HOSTBRIDGE), "hostbridge");
  EXPECT_EQ(topology_level_name(NVML_TOPOLOGY_NODE), "node");
  EXPECT_EQ(topology_level_name(NVML_TOPOLOGY_SYSTEM), "system");
  EXPECT_FALSE(topology_level_name(35));  // undocumented: unknown, not guessed
  EXPECT_EQ(p2p_status_name(NVML_P2P_STATUS_OK), "ok");
  EXPECT_EQ(p2p_status_name(NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED), "chipset_not_supported");
  EXPECT_EQ(p2p_status_name(NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED),
            "ioh_topology_not_supported");
  EXPECT_EQ(p2p_status_name(NVML_P2P_STATUS_DISABLED_BY_REGKEY), "disabled_by_regkey");
  EXPECT_EQ(p2p_status_name(NVML_P2P_STATUS_NOT_SUPPORTED), "not_supported");
  EXPECT_EQ(p2p_status_name(NVML_P2P_STATUS_UNKNOWN), "unknown");
  EXPECT_EQ(p2p_status_name(77), "unknown");
}

TEST_F(PeersMock, EveryPairWithItsOwnAnswers) {
  NodeSnapshot s = collect(three_with(R"({
      "default": {"level": "node", "p2p": {"read": "ok", "write": "ok", "atomics": "ok"}},
      "pairs": {"2,1": {"level": "system",
                        "p2p": {"read": "chipset_not_supported", "write": null}}}})"));
  ASSERT_EQ(s.gpus.size(), 3u);
  for (const GpuState& g : s.gpus) {
    ASSERT_TRUE(g.peers) << g.index;
    ASSERT_EQ(g.peers->size(), 2u);
    EXPECT_TRUE(g.errors.empty()) << g.errors.front();
  }
  const GpuPeer& p01 = (*s.gpus[0].peers)[0];
  EXPECT_EQ(p01.index, 1u);
  EXPECT_EQ(p01.level, "node");
  EXPECT_EQ(p01.p2p_read, "ok");
  EXPECT_EQ(p01.p2p_atomics, "ok");
  EXPECT_FALSE(p01.p2p_nvlink);  // NOT_SUPPORTED: unknown, never "ok"
  // The pair 1,2 either way round.
  const GpuPeer& p12 = (*s.gpus[1].peers)[1];
  const GpuPeer& p21 = (*s.gpus[2].peers)[1];
  EXPECT_EQ(p12.index, 2u);
  EXPECT_EQ(p21.index, 1u);
  for (const GpuPeer* p : {&p12, &p21}) {
    EXPECT_EQ(p->level, "system");
    EXPECT_EQ(p->p2p_read, "chipset_not_supported");
    EXPECT_FALSE(p->p2p_write);  // null in the patch removes it
    EXPECT_EQ(p->p2p_atomics, "ok");
  }
}

TEST_F(PeersMock, NoTopologyKeyIsUnknownWithoutErrors) {
  NodeSnapshot s = collect(three_with(""));
  ASSERT_EQ(s.gpus.size(), 3u);
  for (const GpuState& g : s.gpus) {
    EXPECT_FALSE(g.peers);
    EXPECT_TRUE(g.errors.empty()) << g.errors.front();
  }
}

TEST_F(PeersMock, OneGpuHasNoPeers) {
  NodeSnapshot s = collect(scenario_on(bare_device()));
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_FALSE(s.gpus[0].peers);
}

// A lost peer answers GPU_IS_LOST to every pair call; only the lost GPU is
// lost (every GPU of one-gpu-lost was, before this test).
TEST_F(PeersMock, ALostPeerDoesNotMakeThisGpuLost) {
  NodeSnapshot s = collect(three_with(R"({"default": {"level": "node"}})", R"(, "lost": true)"));
  ASSERT_EQ(s.gpus.size(), 3u);
  EXPECT_EQ(s.gpus[0].status, GpuStatus::kLost);
  for (unsigned i : {1u, 2u}) {
    EXPECT_NE(s.gpus[i].status, GpuStatus::kLost) << i;
    EXPECT_TRUE(s.gpus[i].errors.empty()) << s.gpus[i].errors.front();
    ASSERT_TRUE(s.gpus[i].peers);
    ASSERT_EQ(s.gpus[i].peers->size(), 2u);  // the lost one is there, unknown
    EXPECT_FALSE((*s.gpus[i].peers)[0].level);
  }
  EXPECT_EQ((*s.gpus[1].peers)[1].level, "node");
}

TEST_F(PeersMock, HangInPairCallIsNamedAndHeldToTheDeadline) {
  NodeSnapshot s;
  auto lib = load(three_with(R"({"default": {"level": "system"}})",
                             R"(, "hang_in": "nvmlDeviceGetP2PStatus")"));
  ASSERT_TRUE(lib);
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(0);
  o.timeout = std::chrono::milliseconds(300);
  collect_nvml(lib, o, s);
  ASSERT_EQ(s.gpus.size(), 3u);
  EXPECT_EQ(s.gpus[0].status, GpuStatus::kUnresponsive);
  EXPECT_EQ(s.gpus[0].stuck_in_call, "nvmlDeviceGetP2PStatus");
  // The others asked the hung GPU's pairs too: the mock's hang is the first
  // handle's, so they answered.
  EXPECT_NE(s.gpus[1].status, GpuStatus::kUnresponsive);
  ASSERT_TRUE(s.gpus[1].peers);
  EXPECT_EQ((*s.gpus[1].peers)[0].level, "system");
}

}  // namespace nvml_peers_test
}  // namespace gt
