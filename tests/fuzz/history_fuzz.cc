// The history record (DIR/history.json): each input is the record's text,
// parsed as read_history parses it (bounds, integer times in range), then
// a run is added (the trim), and the record is written back as text and
// shown as `history --json` shows it. Text that is not UTF-8 must come out
// as valid JSON.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "history/record.h"
#include "history/state_file.h"
#include "util/json_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gt::Result<gt::GpuHistory> h = gt::history_from_json(text);
  if (!h) return 0;
  h->boot_id = h->boots.empty() ? "fuzz-boot" : h->boots.back().boot_id;
  std::vector<gt::Observed> seen;
  for (const gt::GpuRecord& g : h->gpus)
    for (const gt::FindingBoots& f : g.findings) seen.push_back({g.uuid, f.finding_id});
  for (const gt::Observed& o : seen) (void)gt::boots_with(*h, o.uuid, o.finding_id, seen);
  gt::add_run(*h, 1767225600, seen);
  const std::string out = gt::json_text(gt::history_to_json(*h), 1);
  if (!gt::history_from_json(out)) __builtin_trap();  // what we write, we read back
  if (!h->gpus.empty()) (void)gt::clear_history(*h, h->gpus.front().uuid);
  return 0;
}
