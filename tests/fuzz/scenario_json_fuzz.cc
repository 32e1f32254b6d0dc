// The mock NVML library's scenario files (tests/scenarios/*/scenario.json):
// the mock is compiled into this target and its loader run on each input,
// which must give a clear error or a scenario, never a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#define MOCK_NVML_VARIANT_CURRENT 1
#include "../mock_nvml/mock_nvml.cc"
#include "fuzz_target.h"

namespace scenario_json_fuzz {

std::string g_path;

GT_FUZZ_INITIALIZE(scenario_json) {
  char tmpl[] = "/tmp/gt-scenario-fuzz-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) std::abort();
  close(fd);
  g_path = tmpl;
  setenv("MOCK_NVML_SCENARIO", g_path.c_str(), 1);
  return 0;
}

GT_FUZZ_TARGET(scenario_json) {
  FILE* f = std::fopen(g_path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  auto scenario = LoadScenario();
  (void)scenario;
  return 0;
}

}  // namespace scenario_json_fuzz
