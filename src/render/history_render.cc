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

/// One line of what a boot's latest run saw: the container, the GPUs, the
/// driver, each mount's device and the packages with local changes.
std::string fingerprint_line(const Fingerprint& f) {
  std::ostringstream out;
  out << "    node at " << history_when(f.taken_unix_s) << ": ";
  if (f.container) {
    out << (f.container->id == kHostNotContainer
                ? std::string("host")
                : "container " + for_terminal(f.container->id.substr(0, 12)));
    if (f.container->image_id)
      out << " (image " << for_terminal(f.container->image_id->substr(0, 12)) << ")";
  } else
    out << "container unknown";
  out << ", " << f.gpus.size() << " GPU" << (f.gpus.size() == 1 ? "" : "s") << ", driver "
      << for_terminal(f.driver.kernel_module_version.value_or("unknown"));
  for (const MountPrint& m : f.mounts)
    out << ", " << for_terminal(m.path) << " on "
        << for_terminal(m.device ? *m.device : m.source.value_or("unknown"));
  for (const PythonEnvPrint& e : f.python)
    for (const PackagePrint& p : e.packages)
      if (!p.modified.empty())
        out << ", " << for_terminal(p.name) << " " << for_terminal(p.version) << " with "
            << p.modified.size() << " modified file" << (p.modified.size() == 1 ? "" : "s");
  out << "\n";
  return out.str();
}

}  // namespace

std::string render_history_text(const GpuHistory& h, const std::string& gpu) {
  std::ostringstream out;
  out << "Record: " << for_terminal(h.file) << " (" << h.boots.size() << " boot"
      << (h.boots.size() == 1 ? "" : "s") << ", at most " << kMaxHistoryBoots << " kept)\n";
  for (const HistoryBoot& b : h.boots) {
    out << "  boot " << for_terminal(b.boot_id) << "  first run "
        << history_when(b.first_seen_unix_s) << ", last " << history_when(b.last_seen_unix_s)
        << "\n";
    if (b.last_fingerprint) out << fingerprint_line(*b.last_fingerprint);
  }
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
