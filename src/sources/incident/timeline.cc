#include "sources/incident/timeline.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/numeric.h"
#include "util/plural.h"

namespace gt {
namespace {

std::string duration_words(int64_t s) {
  if (s < 120) return fmt::format("{} s", s);
  if (s < 7200) return fmt::format("{} min", s / 60);
  if (s < 2 * 86400) return fmt::format("{} h {} min", s / 3600, s % 3600 / 60);
  return fmt::format("{} days", s / 86400);
}

void add(Incident& in, std::optional<int64_t> t, std::string what, std::string source) {
  in.timeline.push_back({t, std::move(what), std::move(source)});
}

std::string ending_words(const PreviousBoot& b) {
  if (b.ending == BootEnding::kCleanShutdown) return "previous boot ended with a clean shutdown";
  if (b.ending == BootEnding::kReboot) return "previous boot ended with a requested reboot";
  if (b.ending == BootEnding::kKernelPanic) return "previous boot ended in a kernel panic";
  if (b.ending == BootEnding::kAbrupt)
    return "previous boot ended abruptly (no shutdown record: power loss, a killed VM or a hard "
           "hang)";
  return "previous boot: how it ended is unknown";
}

void tally_line(Incident& in, const MessageTally& t, const char* one, const char* many) {
  if (t.count == 0) return;
  std::string what = "previous boot: " + count_of(t.count, one, many);
  if (t.last_unix_s && t.first_unix_s && *t.last_unix_s > *t.first_unix_s)
    what += " over " + duration_words(*t.last_unix_s - *t.first_unix_s);
  if (t.example) what += ", first: " + *t.example;
  add(in, t.first_unix_s, what, "journal");
}

void previous_boot_lines(Incident& in) {
  const PreviousBoot& b = *in.previous_boot;
  std::string id = b.boot_id ? " (boot id " + b.boot_id->substr(0, 12) + ")" : "";
  add(in, b.first_entry_unix_s, "previous boot's first journal entry" + id, "journal");
  tally_line(in, b.io_errors, "storage I/O error", "storage I/O errors");
  tally_line(in, b.read_only_remounts, "filesystem remounted read-only / shut down",
             "filesystems remounted read-only / shut down");
  tally_line(in, b.hung_tasks, "hung-task warning", "hung-task warnings");
  tally_line(in, b.oom_kills, "OOM kill", "OOM kills");
  tally_line(in, b.storage_resets, "NVMe/SCSI reset", "NVMe/SCSI resets");
  tally_line(in, b.xids, "Xid error", "Xid errors");
  std::string what = ending_words(b);
  std::string summary = last_minutes_summary(b);
  if (!summary.empty()) what += " after " + summary;
  if (b.ending_evidence) what += "; last word: \"" + *b.ending_evidence + "\"";
  if (b.capped) what += fmt::format(" (only its last {} entries read)", b.entries_read);
  add(in, b.last_entry_unix_s, what, "journal");
}

void newest_file_line(Incident& in, const NewestFile& nf) {
  std::string source = "walk of " + nf.dir;
  if (nf.error)
    return add(in, std::nullopt, "last write under " + nf.dir + ": " + *nf.error, source);
  if (!nf.path) {
    std::string why = nf.capped ? " (walk capped)" : "";
    return add(in, std::nullopt, "last write under " + nf.dir + ": no file found" + why, source);
  }
  std::string what = "last write under " + nf.dir + ": " + *nf.path;
  const PreviousBoot* b = in.previous_boot ? &*in.previous_boot : nullptr;
  if (b && b->last_entry_unix_s && *nf.mtime_unix_s <= *b->last_entry_unix_s)
    what += ", " + duration_words(*b->last_entry_unix_s - *nf.mtime_unix_s) +
            " before the previous boot ended";
  else if (in.boot_time_unix_s && *nf.mtime_unix_s >= *in.boot_time_unix_s)
    what += ", during this boot";
  if (nf.capped)
    what += fmt::format(" (walk capped at {} entries: a newer file may exist)", nf.entries_seen);
  add(in, nf.mtime_unix_s, what, source);
}

/// A GPU server's container, created when its runtime's record says (a
/// container created after the crash is a new one).
void container_line(Incident& in, const ContainerInfo& c, const Server& s) {
  if (!c.created_unix_s) return;
  add(in, c.created_unix_s,
      fmt::format("container {}{} created{}{}; {} runs in it", c.name ? *c.name + " " : "",
                  c.id.substr(0, 12), c.created_by_unit ? " by " + *c.created_by_unit : "",
                  c.auto_remove == true ? " (docker run --rm: a new container each start)" : "",
                  s.kind),
      "docker config.v2.json");
}

void server_line(Incident& in, const Server& s) {
  std::string what = s.kind + " started";
  if (s.started_after_boot_s) what += fmt::format(" {} s after boot", *s.started_after_boot_s);
  if (s.owner_kind == OwnerKind::kSystemdUnit && s.owner_name)
    what += " by " + *s.owner_name;
  else if (s.container && s.container->name)
    what += " by container " + *s.container->name + "'s command";
  else if (s.owner_kind && s.owner_name)  // a container's id by its short form only
    what += " by " + std::string(owner_kind_name(*s.owner_kind)) + " " +
            (container_owner(*s.owner_kind) ? s.owner_name->substr(0, 12) : *s.owner_name);
  what += s.auto_started ? " (auto-start, not a person)" : "";
  if (s.root_pid) what += fmt::format(", PID {}", *s.root_pid);
  add(in, s.start_time_unix_s, what, "/proc");
}

}  // namespace

void apply_crash_records(Incident& in) {
  if (!in.previous_boot) return;
  PreviousBoot& b = *in.previous_boot;
  if (b.ending != BootEnding::kAbrupt && b.ending != BootEnding::kUnknown) return;
  for (const CrashRecord& r : in.crash_records) {
    if (r.panic_lines.empty()) continue;
    const bool before_this_boot =
        !r.time_unix_s || !in.boot_time_unix_s || *r.time_unix_s <= *in.boot_time_unix_s + 600;
    const bool after_prev_start =
        !r.time_unix_s || !b.first_entry_unix_s || *r.time_unix_s >= *b.first_entry_unix_s;
    if (!before_this_boot || !after_prev_start) continue;
    b.ending = BootEnding::kKernelPanic;
    b.ending_evidence = r.panic_lines.front() + " [" + r.path + "]";
    return;
  }
}

void build_timeline(Incident& in, const std::optional<std::vector<Server>>& servers) {
  in.timeline.clear();
  if (in.previous_boot) previous_boot_lines(in);
  for (const CrashRecord& r : in.crash_records)
    add(in, r.time_unix_s,
        r.panic_lines.empty() ? "crash record (no panic message in it)"
                              : "crash record: " + r.panic_lines.front(),
        r.source + " " + r.path);
  for (const NewestFile& nf : in.newest_files) newest_file_line(in, nf);
  const std::optional<int64_t> up_s =
      in.uptime_s ? checked_cast<int64_t>(*in.uptime_s, 0, kMaxUnixS) : std::nullopt;
  std::string up = up_s ? ", up " + duration_words(*up_s) : "";
  std::string id = in.boot_id ? " (boot id " + in.boot_id->substr(0, 13) + ")" : "";
  if (in.boot_time_unix_s || in.boot_id)
    add(in, in.boot_time_unix_s, "this boot" + id + up, "/proc/stat");
  std::vector<std::string> containers;
  for (const Server& s : servers.value_or(std::vector<Server>{})) {
    if (s.graphics_only) continue;
    if (s.container &&
        std::find(containers.begin(), containers.end(), s.container->id) == containers.end()) {
      containers.push_back(s.container->id);
      container_line(in, *s.container, s);
    }
    server_line(in, s);
  }
  sort_timeline(in.timeline);
}

}  // namespace gt
