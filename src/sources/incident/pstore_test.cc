// Crash records: pstore, systemd-pstore's archive, kdump; the panic lines.
#include "sources/incident/pstore.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "util/test_util.h"

namespace gt {
namespace {

const char* kRamoops =
    "Panic#1 Part1\n"
    "<4>[ 8123.000001] CPU: 3 PID: 1 Comm: swapper\n"
    "<0>[ 8123.456789] Kernel panic - not syncing: Fatal exception in interrupt\n"
    "<0>[ 8123.456790] Kernel Offset: disabled\n"
    "<0>[ 8123.456791] ---[ end Kernel panic - not syncing: Fatal exception ]---\n"
    "<0>[ 8123.456792] extra\n";

TEST(PanicLines, FromThePanicLineOnWithoutPrefixes) {
  auto l = panic_lines(kRamoops);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], "Kernel panic - not syncing: Fatal exception in interrupt");
  EXPECT_EQ(l[1], "Kernel Offset: disabled");
  EXPECT_TRUE(panic_lines("just some lines\nnothing\n").empty());
  EXPECT_EQ(panic_lines("[ 1.0] BUG: unable to handle page fault\n").at(0),
            "BUG: unable to handle page fault");
}

TEST(ReadCrashRecords, AllThreePlaces) {
  TempTree t;
  t.write("/sys/fs/pstore/dmesg-ramoops-0", kRamoops);
  t.write("/sys/fs/pstore/console-ramoops-0", "not a dmesg record");
  t.write("/var/lib/systemd/pstore/1700000000/001/dmesg.txt", "nothing");  // two levels: skipped
  t.write("/var/lib/systemd/pstore/1700000000/dmesg-efi-170000000001001", kRamoops);
  t.write("/var/crash/127.0.0.1-2023-11-14-22:13:20/vmcore-dmesg.txt", kRamoops);
  Incident in;
  read_crash_records(t.root(), in);
  ASSERT_EQ(in.crash_records.size(), 3u);
  EXPECT_EQ(in.crash_records[0].source, "pstore");
  EXPECT_EQ(in.crash_records[0].path, "/sys/fs/pstore/dmesg-ramoops-0");
  EXPECT_TRUE(in.crash_records[0].time_unix_s);
  EXPECT_EQ(in.crash_records[1].source, "systemd-pstore");
  // An EFI record's name carries its time (a copy's mtime does not).
  EXPECT_EQ(in.crash_records[1].time_unix_s, 1700000000);
  EXPECT_EQ(in.crash_records[2].source, "kdump");
  EXPECT_EQ(in.crash_records[2].panic_lines.at(0),
            "Kernel panic - not syncing: Fatal exception in interrupt");
  EXPECT_TRUE(in.unread.empty());
}

TEST(ReadCrashRecords, UnreadableDirectoryIsOneLine) {
  // A file where the directory should be cannot be listed, as root too (a
  // chmod 0 directory is readable to root, so it would test nothing there).
  TempTree t;
  t.write("/sys/fs/pstore", kRamoops);
  Incident in;
  read_crash_records(t.root(), in);
  EXPECT_TRUE(in.crash_records.empty());
  ASSERT_EQ(in.unread.size(), 1u);
  EXPECT_NE(in.unread[0].find("pstore (/sys/fs/pstore)"), std::string::npos) << in.unread[0];
}

}  // namespace
}  // namespace gt
