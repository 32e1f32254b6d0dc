// The journal's answers: `journalctl --list-boots` (JSON or the plain
// table), `journalctl -o json` lines of the previous boot (summarised: how
// it ended, its last minutes) and the previous boot's kernel messages in
// -o short-iso, each parser run on every input; then the incident is put
// in a report, judged and rendered.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.h"
#include "report_pipeline.h"
#include "sources/incident/journal.h"
#include "sources/incident/timeline.h"
#include "sources/kernel_log/kernel_log.h"

GT_FUZZ_TARGET(journal) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gt::Report report;
  gt::Incident in;
  std::vector<gt::BootListEntry> boots = gt::parse_boot_list(text);
  uint64_t garbage = 0;
  std::vector<gt::JournalEntry> entries = gt::parse_journal_json(text, garbage);
  for (const gt::JournalEntry& e : entries) (void)gt::message_kind(e);
  gt::PreviousBoot prev;
  if (!boots.empty()) {
    prev.boot_id = boots.front().boot_id;
    prev.first_entry_unix_s = boots.front().first_unix_s;
    prev.last_entry_unix_s = boots.front().last_unix_s;
  }
  gt::summarise_previous_boot(entries, prev);
  in.previous_boot = prev;
  gt::build_timeline(in, std::nullopt);
  report.snapshot.incident = std::move(in);
  gt::ParsedKernelLog parsed = gt::parse_kernel_log_text(text, gt::LogBoot::kPrevious);
  gt::KernelLog log;
  log.sources.push_back(
      {"journalctl -k -b -1", gt::LogBoot::kPrevious, true, std::nullopt, parsed.lines});
  log.events = std::move(parsed.events);
  report.snapshot.kernel_log = std::move(log);
  gt::judge_and_render(report);
  return 0;
}
