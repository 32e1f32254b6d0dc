#include "render/incident_render.h"

#include <sstream>

#include "render/json_util.h"
#include "render/text_wrap.h"
#include "util/time_format.h"

namespace gt {
namespace {

using J = nlohmann::ordered_json;
using json_util::iso_time;
using json_util::opt;

J tally_json(const MessageTally& t) {
  return J{{"count", t.count},
           {"first", iso_time(t.first_unix_s)},
           {"last", iso_time(t.last_unix_s)},
           {"example", opt(t.example)}};
}

J previous_boot_json(const std::optional<PreviousBoot>& b) {
  if (!b) return nullptr;
  return J{{"boot_id", opt(b->boot_id)},
           {"first_entry", iso_time(b->first_entry_unix_s)},
           {"last_entry", iso_time(b->last_entry_unix_s)},
           {"last_entry_unix_s", opt(b->last_entry_unix_s)},
           {"ending", boot_ending_name(b->ending)},
           {"ending_evidence", opt(b->ending_evidence)},
           {"entries_read", b->entries_read},
           {"garbage_lines", b->garbage_lines},
           {"capped", b->capped},
           {"last_minutes_s", kLastMinutesS},
           {"io_errors", tally_json(b->io_errors)},
           {"read_only_remounts", tally_json(b->read_only_remounts)},
           {"hung_tasks", tally_json(b->hung_tasks)},
           {"oom_kills", tally_json(b->oom_kills)},
           {"storage_resets", tally_json(b->storage_resets)},
           {"xids", tally_json(b->xids)}};
}

J clock_json(const ClockState& c) {
  return J{{"system_time", iso_time(c.system_unix_s)},
           {"rtc_time", iso_time(c.rtc_unix_s)},
           {"rtc_offset_s", opt(c.rtc_offset_s)},
           {"rtc_drift_bound_s", kRtcDriftBoundS},
           {"kernel_synchronised", opt(c.kernel_synchronised)},
           {"kernel_max_error_us", opt(c.kernel_max_error_us)},
           {"ntp_enabled", opt(c.ntp_enabled)},
           {"ntp_synchronised", opt(c.ntp_synchronised)},
           {"future_files", c.future_files},
           {"future_example", opt(c.future_example)}};
}

std::string stamp(const std::optional<int64_t>& t) {
  return t ? format_utc(*t, "%Y-%m-%d %H:%M:%S") : std::string(19, ' ');
}

/// `text` after a 21-column stamp, wrapped to `width` (continuations
/// indented under the text).
std::string wrapped(const std::string& lead, const std::string& text, int width) {
  return wrap_words(lead, text, static_cast<size_t>(width), lead.size());
}

}  // namespace

nlohmann::ordered_json incident_to_json(const std::optional<Incident>& in) {
  if (!in) return nullptr;
  J timeline = J::array();
  for (const IncidentLine& l : in->timeline)
    timeline.push_back({{"time", iso_time(l.time_unix_s)},
                        {"time_unix_s", opt(l.time_unix_s)},
                        {"what", l.what},
                        {"source", l.source}});
  J crashes = J::array();
  for (const CrashRecord& r : in->crash_records)
    crashes.push_back({{"source", r.source},
                       {"path", r.path},
                       {"time", iso_time(r.time_unix_s)},
                       {"panic_lines", r.panic_lines}});
  J newest = J::array();
  for (const NewestFile& n : in->newest_files)
    newest.push_back({{"dir", n.dir},
                      {"path", opt(n.path)},
                      {"mtime", iso_time(n.mtime_unix_s)},
                      {"entries_seen", n.entries_seen},
                      {"capped", n.capped},
                      {"error", opt(n.error)}});
  return J{{"boot_time", iso_time(in->boot_time_unix_s)},
           {"boot_time_unix_s", opt(in->boot_time_unix_s)},
           {"boot_id", opt(in->boot_id)},
           {"uptime_s", opt(in->uptime_s)},
           {"timeline", timeline},
           {"previous_boot", previous_boot_json(in->previous_boot)},
           {"crash_records", crashes},
           {"clock", clock_json(in->clock)},
           {"newest_files", newest},
           {"unread", in->unread}};
}

void render_incident_section(const std::optional<Incident>& in, bool wide, int width,
                             std::ostream& out) {
  if (!in || (in->timeline.empty() && in->unread.empty())) return;
  out << "what happened (UTC)\n";
  const int w = wide ? 1 << 20 : width;
  for (const IncidentLine& l : in->timeline)
    out << wrapped("  " + stamp(l.time_unix_s) + "  ", l.what + " [" + l.source + "]", w);
  for (const std::string& u : in->unread) out << wrapped("  not read: ", u, w);
}

}  // namespace gt
