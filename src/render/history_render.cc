#include "render/history_render.h"

#include <algorithm>
#include <sstream>

#include "history/state_file.h"
#include "util/json_text.h"
#include "util/terminal_text.h"
#include "util/time_format.h"

namespace gt {
namespace {

std::string history_when(int64_t unix_s) { return format_utc(unix_s, "%Y-%m-%d %H:%M UTC"); }

}  // namespace

std::string render_history_text(const GpuHistory& h, const std::string& gpu) {
  std::ostringstream out;
  out << "Record: " << for_terminal(h.file) << " (" << h.boots.size() << " boot"
      << (h.boots.size() == 1 ? "" : "s") << ", at most " << kMaxHistoryBoots << " kept)\n";
  for (const HistoryBoot& b : h.boots)
    out << "  boot " << for_terminal(b.boot_id) << "  first run "
        << history_when(b.first_seen_unix_s) << ", last " << history_when(b.last_seen_unix_s)
        << "\n";
  bool any = false;
  for (const GpuRecord& g : h.gpus) {
    if (!gpu.empty() && g.uuid != gpu) continue;
    any = true;
    out << for_terminal(g.uuid) << "\n";
    for (const FindingBoots& f : g.findings) {
      out << "  " << for_terminal(f.finding_id) << " in " << f.boot_ids.size() << " boot"
          << (f.boot_ids.size() == 1 ? "" : "s") << ":";
      for (const std::string& b : f.boot_ids) {
        const HistoryBoot* hb = find_boot(h, b);
        out << " " << for_terminal(b.substr(0, 8))
            << (hb ? " (" + history_when(hb->first_seen_unix_s) + ")" : "");
      }
      out << "\n";
    }
  }
  if (!any)
    out << (gpu.empty() ? "No GPU finding recorded.\n"
                        : "Nothing recorded for " + for_terminal(gpu) + ".\n");
  return out.str();
}

std::string render_history_json(GpuHistory h, const std::string& gpu) {
  if (!gpu.empty()) std::erase_if(h.gpus, [&](const GpuRecord& g) { return g.uuid != gpu; });
  return json_text(history_to_json(h), 2) + "\n";
}

std::string render_history_cleared(const std::string& file, const std::string& gpu,
                                   size_t removed) {
  const std::string in = for_terminal(file), of = for_terminal(gpu);
  if (gpu.empty()) return "Cleared the record in " + in + ".\n";
  if (removed == 0) return "Nothing recorded for " + of + " in " + in + ".\n";
  return "Cleared the record of " + of + " in " + in + ".\n";
}

}  // namespace gt
