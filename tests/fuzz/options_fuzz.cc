// Option values from the command line: the triage and fleet options
// (parse_args, parse_fleet_args, names_a_fleet; one argument per input line), and the value parsers
// every command shares: durations, GPU lists, listen addresses, Prometheus's scrape-timeout header.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/fleet_args.h"
#include "free/free_plan.h"
#include "fuzz_target.h"
#include "serve/http_server.h"
#include "util/duration.h"
#include "util/size_arg.h"

namespace options_fuzz {

std::vector<std::string> split_lines(const uint8_t* data, size_t size) {
  std::vector<std::string> out(1);
  for (size_t i = 0; i < size && out.size() < 64; ++i) {
    if (data[i] == '\n')
      out.emplace_back();
    else
      out.back() += char(data[i]);
  }
  return out;
}

GT_FUZZ_INITIALIZE(options) {
  // Help and usage text would flood the fuzzer's own output.
  if (!std::freopen("/dev/null", "w", stdout)) return 0;
  return 0;
}

GT_FUZZ_TARGET(options) {
  std::vector<std::string> args = split_lines(data, size);
  for (const std::string& a : args) {
    (void)gt::parse_duration(a);
    (void)gt::parse_size_bytes(a);  // gpu-triage cuda --memory
    (void)gt::parse_gpu_list(a);
    (void)gt::parse_listen_address(a);
    gt::scrape_wait(std::chrono::milliseconds(10000), a);
  }
  std::vector<char*> argv{const_cast<char*>("gpu-triage")};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  gt::parse_args(int(argv.size() - 1), argv.data());
  (void)gt::names_a_fleet(int(argv.size() - 1), argv.data());
  gt::parse_fleet_args(int(argv.size() - 1), argv.data(), "gpu-triage fleet");
  return 0;
}

}  // namespace options_fuzz
