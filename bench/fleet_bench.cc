// make bench, fleet part: 200 fake hosts with random answer delays (50 to
// 500 ms, fixed seed) checked at fan-out 32, against the ideal: the sum of
// the delays divided by the fan-out, bounded below by the slowest host.
// Twice: with an in-process fake runner (the scheduling and our parsing and
// judging), and with tests/fake_ssh/fake-ssh as the ssh program (adds a
// process start per host, as real ssh has). Then 1,000 fake hosts at
// fan-out 64 (in-process), with the peak memory it took and the time of
// the fleet's own analysis (Xid correlation and drift) over their reports.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "fleet/correlate.h"
#include "fleet/drift.h"
#include "fleet/fanout.h"
#include "fleet/remote.h"

namespace {

using namespace std::chrono;
constexpr int kHosts = 200;
constexpr int kFanout = 32;

std::string recorded_answer() {
  std::ifstream in(std::string(GT_SOURCE_DIR) +
                   "/tests/fixtures/real/nvidia-smi-xml/netdata-rtx-4090-535.86.05.xml");
  std::stringstream xml;
  xml << in.rdbuf();
  std::string s = xml.str(), b64;
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < s.size(); i += 3) {
    uint32_t n = static_cast<unsigned char>(s[i]) << 16;
    if (i + 1 < s.size()) n |= static_cast<unsigned char>(s[i + 1]) << 8;
    if (i + 2 < s.size()) n |= static_cast<unsigned char>(s[i + 2]);
    b64 += k[(n >> 18) & 63];
    b64 += k[(n >> 12) & 63];
    b64 += i + 1 < s.size() ? k[(n >> 6) & 63] : '=';
    b64 += i + 2 < s.size() ? k[n & 63] : '=';
  }
  return "@@gt-gather 1\n@@gt-out nvidia-smi 0 " + b64 + "\n@@gt-end\n";
}

/// Answers after the host's delay, without a process.
class DelayRunner : public gt::CommandRunner {
 public:
  DelayRunner(std::vector<int> delays_ms, std::string answer)
      : delays_(std::move(delays_ms)), answer_(std::move(answer)) {}
  gt::CommandResult run(const std::vector<std::string>& argv, milliseconds) const override {
    int host = std::stoi(argv[argv.size() - 2].substr(1));
    std::this_thread::sleep_for(milliseconds(delays_[host]));
    gt::CommandResult r;
    r.exit_code = 0;
    r.out = answer_;
    return r;
  }

 private:
  std::vector<int> delays_;
  std::string answer_;
};

double run_ms(const gt::CommandRunner& runner, const gt::RemoteOptions& o, int hosts = kHosts,
              int fanout = kFanout, std::vector<gt::HostReport>* out = nullptr) {
  auto t0 = steady_clock::now();
  int ok = 0;
  std::vector<gt::HostReport> reports(hosts);
  gt::run_bounded(hosts, fanout, [&](size_t i) {
    reports[i] = gt::check_host("h" + std::to_string(i), o, runner);
  });
  for (auto& r : reports) ok += gt::host_verdict(r) == gt::Verdict::kOk;
  double ms = duration<double, std::milli>(steady_clock::now() - t0).count();
  if (ok != hosts) std::printf("  (only %d of %d hosts OK)\n", ok, hosts);
  if (out) *out = std::move(reports);
  return ms;
}

double ideal_ms(const std::vector<int>& delays, int fanout) {
  double sum = 0;
  for (int d : delays) sum += d;
  return std::max(sum / fanout,
                  static_cast<double>(*std::max_element(delays.begin(), delays.end())));
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

/// 1,000 hosts at fan-out 64 through the in-process runner; then the
/// fleet's own analysis over the 1,000 reports.
void thousand_hosts(const gt::RemoteOptions& o, const std::string& answer) {
  constexpr int kMany = 1000, kManyFanout = 64;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(50, 500);
  std::vector<int> delays(kMany);
  for (int& d : delays) d = dist(rng);
  const double ideal = ideal_ms(delays, kManyFanout);
  const long rss_before = peak_rss_kib();
  std::vector<gt::HostReport> reports;
  double ms = run_ms(DelayRunner(delays, answer), o, kMany, kManyFanout, &reports);
  const long rss_after = peak_rss_kib();
  auto t0 = steady_clock::now();
  std::vector<gt::FleetFinding> found = gt::correlate_xids(reports);
  gt::DriftReport drift = gt::find_drift(reports);
  double analysis = duration<double, std::milli>(steady_clock::now() - t0).count();
  std::printf("fleet: %d hosts, delays 50-500 ms, fan-out %d\n", kMany, kManyFanout);
  std::printf("  ideal max(sum/fanout, slowest)      %8.1f ms\n", ideal);
  std::printf("  in-process fake runner              %8.1f ms   %.2fx ideal\n", ms, ms / ideal);
  std::printf("  peak RSS %.1f MiB (%.1f MiB before the run)\n", rss_after / 1024.0,
              rss_before / 1024.0);
  std::printf(
      "  correlation + drift over %d reports %8.1f ms (%zu fleet findings, %zu "
      "properties differ)\n",
      kMany, analysis, found.size(), drift.differing.size());
}

}  // namespace

int main() {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> dist(50, 500);
  std::vector<int> delays(kHosts);
  for (int& d : delays) d = dist(rng);
  double sum = 0;
  for (int d : delays) sum += d;
  const double ideal = ideal_ms(delays, kFanout);
  gt::RemoteOptions o;
  o.host_timeout = seconds(10);
  const std::string answer = recorded_answer();
  std::printf("fleet: %d hosts, answer delays 50-500 ms (sum %.1f s), fan-out %d\n", kHosts,
              sum / 1000, kFanout);
  std::printf("  ideal max(sum/fanout, slowest)      %8.1f ms\n", ideal);
  double in_proc = run_ms(DelayRunner(delays, answer), o);
  std::printf("  in-process fake runner              %8.1f ms   %.2fx ideal\n", in_proc,
              in_proc / ideal);
  // The same through tests/fake_ssh/fake-ssh: one process per host.
  char tmpl[] = "/tmp/gt-fleet-bench-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  std::ofstream(dir + "/answer") << answer;
  for (int i = 0; i < kHosts; ++i) {
    std::string h = dir + "/h" + std::to_string(i);
    std::filesystem::create_directories(h);
    std::ofstream(h + "/delay") << delays[i] / 1000.0 << "\n";
    std::filesystem::create_symlink(dir + "/answer", h + "/stdout");
  }
  ::setenv("FAKE_SSH_DIR", dir.c_str(), 1);
  o.ssh_command = std::string(GT_SOURCE_DIR) + "/tests/fake_ssh/fake-ssh";
  double procs = run_ms(gt::RealCommandRunner(), o);
  std::printf("  fake-ssh processes (real runner)    %8.1f ms   %.2fx ideal\n", procs,
              procs / ideal);
  std::filesystem::remove_all(dir);
  ::unsetenv("FAKE_SSH_DIR");
  o.ssh_command = "ssh";
  thousand_hosts(o, answer);
  return 0;
}
