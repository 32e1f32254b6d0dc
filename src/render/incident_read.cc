// The "what happened" section of a report read back: the inverse of
// incident_to_json (incident_render.cc). Times are read from the ISO text
// where the JSON has no _unix_s twin.
#include "render/json_read.h"

namespace gt::json_read {
namespace {

MessageTally tally_of(const Obj& o) {
  MessageTally t;
  o.get("count", t.count);
  if (const J* v = o.find("first")) read_time(*v, o.at("first"), t.first_unix_s);
  if (const J* v = o.find("last")) read_time(*v, o.at("last"), t.last_unix_s);
  o.get("example", t.example);
  return t;
}

PreviousBoot previous_boot_of(const J& j, const std::string& path) {
  Obj o(j, path);
  PreviousBoot b;
  o.get("boot_id", b.boot_id);
  if (const J* v = o.find("first_entry")) read_time(*v, o.at("first_entry"), b.first_entry_unix_s);
  if (const J* v = o.find("last_entry")) read_time(*v, o.at("last_entry"), b.last_entry_unix_s);
  o.get("last_entry_unix_s", b.last_entry_unix_s);
  o.get("ending", b.ending);
  o.get("ending_evidence", b.ending_evidence);
  o.get("entries_read", b.entries_read);
  o.get("garbage_lines", b.garbage_lines);
  o.get("capped", b.capped);
  b.io_errors = tally_of(o.sub("io_errors"));
  b.read_only_remounts = tally_of(o.sub("read_only_remounts"));
  b.hung_tasks = tally_of(o.sub("hung_tasks"));
  b.oom_kills = tally_of(o.sub("oom_kills"));
  b.storage_resets = tally_of(o.sub("storage_resets"));
  b.xids = tally_of(o.sub("xids"));
  return b;
}

void read_clock(const Obj& o, ClockState& c) {
  if (const J* v = o.find("system_time")) read_time(*v, o.at("system_time"), c.system_unix_s);
  if (const J* v = o.find("rtc_time")) read_time(*v, o.at("rtc_time"), c.rtc_unix_s);
  o.get("rtc_offset_s", c.rtc_offset_s);
  o.get("kernel_synchronised", c.kernel_synchronised);
  o.get("kernel_max_error_us", c.kernel_max_error_us);
  o.get("ntp_enabled", c.ntp_enabled);
  o.get("ntp_synchronised", c.ntp_synchronised);
  o.get("future_files", c.future_files);
  o.get("future_example", c.future_example);
}

IncidentLine incident_line_of(const J& j, const std::string& path) {
  Obj o(j, path);
  IncidentLine l;
  if (const J* v = o.find("time")) read_time(*v, o.at("time"), l.time_unix_s);
  o.get("time_unix_s", l.time_unix_s);
  o.get("what", l.what);
  o.get("source", l.source);
  return l;
}

CrashRecord crash_of(const J& j, const std::string& path) {
  Obj o(j, path);
  CrashRecord r;
  o.get("source", r.source);
  o.get("path", r.path);
  if (const J* v = o.find("time")) read_time(*v, o.at("time"), r.time_unix_s);
  o.get("panic_lines", r.panic_lines);
  return r;
}

NewestFile newest_of(const J& j, const std::string& path) {
  Obj o(j, path);
  NewestFile n;
  o.get("dir", n.dir);
  o.get("path", n.path);
  if (const J* v = o.find("mtime")) read_time(*v, o.at("mtime"), n.mtime_unix_s);
  o.get("entries_seen", n.entries_seen);
  o.get("capped", n.capped);
  o.get("error", n.error);
  return n;
}

}  // namespace

Incident incident_of(const J& j, const std::string& path) {
  Obj o(j, path);
  Incident in;
  if (const J* v = o.find("boot_time")) read_time(*v, o.at("boot_time"), in.boot_time_unix_s);
  o.get("boot_time_unix_s", in.boot_time_unix_s);
  o.get("boot_id", in.boot_id);
  o.get("uptime_s", in.uptime_s);
  if (const J* t = o.find("timeline"))
    read_each(*t, o.at("timeline"), in.timeline, incident_line_of);
  if (const J* b = o.find("previous_boot"); b && !b->is_null())
    in.previous_boot = previous_boot_of(*b, o.at("previous_boot"));
  if (const J* c = o.find("crash_records"))
    read_each(*c, o.at("crash_records"), in.crash_records, crash_of);
  read_clock(o.sub("clock"), in.clock);
  if (const J* n = o.find("newest_files"))
    read_each(*n, o.at("newest_files"), in.newest_files, newest_of);
  o.get("unread", in.unread);
  return in;
}

}  // namespace gt::json_read
