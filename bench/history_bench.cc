// make bench: the history record at 170,000 boots (a record under the size
// cap that once cost every run 20-30 s in a quadratic trim). Times, against
// a baseline measured in the same run:
//   trim:  add_run on a 170k-boot record (one linear pass) against copying
//          the record (the floor of any pass over it);
//   read:  read_history of the 170k-boot file (set aside as over its bounds)
//          against nlohmann's parse of the same text.
// Prints each time and the ratio; the target is "linear": a small constant
// ratio, never one that grows with the record.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "history/record.h"
#include "history/state_file.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

gt::GpuHistory big_record(size_t boots) {
  gt::GpuHistory h;
  gt::FindingBoots f{"gpu.xid.79", {}};
  for (size_t i = 0; i < boots; ++i) {
    h.boots.push_back({"b" + std::to_string(i), 1, 2});
    f.boot_ids.push_back(h.boots.back().boot_id);
  }
  for (int g = 0; g < 8; ++g) h.gpus.push_back({"GPU-" + std::to_string(g), {f}});
  h.boot_id = h.boots.back().boot_id;
  return h;
}

void print(const char* what, double ms, const char* base, double base_ms) {
  std::printf("%-34s %9.1f ms   %-28s %9.1f ms   ratio %.1f\n", what, ms, base, base_ms,
              ms / base_ms);
}

}  // namespace

int main() {
  constexpr size_t kBoots = 170000;
  const gt::GpuHistory record = big_record(kBoots);

  auto t0 = Clock::now();
  gt::GpuHistory copy = record;
  const double copy_ms = ms_since(t0);
  t0 = Clock::now();
  gt::add_run(copy, 3, {});
  const double trim_ms = ms_since(t0);
  if (copy.boots.size() != gt::kMaxHistoryBoots) return 1;
  print("trim 170k boots x 8 GPUs", trim_ms, "copy of the record", copy_ms);

  char tmpl[] = "/tmp/gt-history-bench-XXXXXX";
  if (!::mkdtemp(tmpl)) return 1;
  const std::string dir = tmpl;
  gt::GpuHistory flat = big_record(kBoots);
  flat.gpus.clear();
  const std::string text = gt::history_to_json(flat).dump();
  std::ofstream(dir + "/history.json") << text;
  t0 = Clock::now();
  nlohmann::json parsed = nlohmann::json::parse(text);
  const double parse_ms = ms_since(t0);
  std::vector<std::string> warnings;
  t0 = Clock::now();
  gt::Result<gt::GpuHistory> h = gt::read_history(dir, warnings);
  const double read_ms = ms_since(t0);
  std::filesystem::remove_all(dir);
  if (!h || warnings.size() != 1) return 1;
  print("read 170k-boot record (set aside)", read_ms, "JSON parse of the text", parse_ms);
  return 0;
}
