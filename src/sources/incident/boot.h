// This boot: when it started (/proc/stat btime), its id
// (/proc/sys/kernel/random/boot_id, the journal's _BOOT_ID without dashes)
// and how long it has run (/proc/uptime, first field).
#pragma once

#include "model/incident.h"
#include "util/fs_root.h"

namespace gt {

/// Fills boot_time_unix_s, boot_id and uptime_s; each one it cannot read
/// stays null and adds a line to `unread`.
void read_this_boot(const FsRoot& root, Incident& out);

}  // namespace gt
