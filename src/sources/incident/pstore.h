// Crash records left by the last crash: the kernel's pstore
// (/sys/fs/pstore/dmesg-efi-*, dmesg-ramoops-*: the panic's last kernel
// messages, written as it died), the copies systemd-pstore.service archives
// (/var/lib/systemd/pstore/<id>/...), and kdump dumps under /var/crash
// (<dir>/vmcore-dmesg.txt, Ubuntu's <dir>/dmesg.<stamp>). Each record
// carries its file's mtime and the panic message's first lines.
#pragma once

#include <string_view>
#include <vector>

#include "model/incident.h"
#include "util/fs_root.h"

namespace gt {

/// The "Kernel panic - not syncing: ..." line and the next two (else the
/// first "BUG:" or "Oops" line), each without its "<N>[ time]" prefix;
/// empty when the text has none.
std::vector<std::string> panic_lines(std::string_view text);

/// Fills out.crash_records; a directory that exists but cannot be listed,
/// or a record that cannot be read, is one line in out.unread.
void read_crash_records(const FsRoot& root, Incident& out);

}  // namespace gt
