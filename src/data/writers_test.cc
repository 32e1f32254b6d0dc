#include "data/writers.h"

#include <gtest/gtest.h>

#include "data/analysis.h"
#include "data/data_test_util.h"
#include "util/real_path.h"
#include "util/test_util.h"

namespace gt {
namespace writers_test {

TEST(DataWritersTest, OnlyFilesUnderDirOpenForWritingCount) {
  TempTree t;
  t.write("/proc/10/comm", "python3\n");
  t.symlink("/data/hidden/rows_0-2000/data_7.ckpt", "/proc/10/fd/5");
  t.write("/proc/10/fdinfo/5", "pos:\t0\nflags:\t0100001\nmnt_id:\t29\n");  // O_WRONLY|O_CREAT
  t.symlink("/data/hidden/rows_0-2000/data_6.ckpt", "/proc/10/fd/6");
  t.write("/proc/10/fdinfo/6", "pos:\t0\nflags:\t0100000\n");  // read-only
  t.symlink("/data/hidden2/x", "/proc/11/fd/3");               // not under DIR
  t.write("/proc/11/fdinfo/3", "flags:\t02\n");
  t.symlink("/data/hidden/y", "/proc/12/fd/3");  // O_RDWR, no comm
  t.write("/proc/12/fdinfo/3", "flags:\t0100002\n");
  t.write("/proc/self", "");  // not a pid
  std::vector<Writer> w = find_writers(t.root(), {"/data/hidden"});
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].pid, 10);
  EXPECT_EQ(w[0].comm, "python3");
  EXPECT_EQ(w[0].path, "/data/hidden/rows_0-2000/data_7.ckpt");
  EXPECT_EQ(w[1].pid, 12);
  EXPECT_EQ(w[1].comm, "");
  EXPECT_TRUE(find_writers(TempTree().root(), {"/data/hidden"}).empty());  // no /proc
}

TEST(DataWritersTest, LinesNameTheProcessAndTheFile) {
  EXPECT_EQ(writer_name({4242, "python3", "/d/x"}), "pid 4242 (python3)");
  EXPECT_EQ(writer_name({4242, "", "/d/x"}), "pid 4242");
  EXPECT_EQ(writer_line({4242, "python3", "/d/7.ckpt"}),
            "pid 4242 (python3) has /d/7.ckpt open for writing");
  EXPECT_EQ(writer_line({7, "", "/d/7.ckpt"}), "pid 7 has /d/7.ckpt open for writing");
}

TEST(DataWritersTest, LinesResolveTheFoldersAsGiven) {
  TempTree t;
  t.write("/data/run/keep", "");
  // The fd links name the file as the kernel does: the folder resolved.
  const std::string real = *real_path(t.path("/data/run"));
  t.write("/proc/10/comm", "python3\n");
  t.symlink(real + "/7.ckpt", "/proc/10/fd/5");
  t.write("/proc/10/fdinfo/5", "flags:\t0100001\n");
  t.symlink(real + "/8.ckpt", "/proc/11/fd/4");
  t.write("/proc/11/fdinfo/4", "flags:\t02\n");
  // Given with a trailing "/." and "..": resolved before comparing.
  EXPECT_EQ(writer_lines(t.root(), {t.path("/data/run/../run/.")}),
            (std::vector<std::string>{"pid 10 (python3) has " + real + "/7.ckpt open for writing",
                                      "pid 11 has " + real + "/8.ckpt open for writing"}));
  EXPECT_EQ(writer_lines(t.root(), {t.path("/data/run")}, 1).size(), 1u);
  EXPECT_TRUE(writer_lines(t.root(), {t.path("/data/missing")}).empty());
  EXPECT_TRUE(writer_lines(t.root(), {}).empty());
}

// A file a live process has open for writing is being written: neither
// intact nor bad, not in the resume set, and its writer named (issue 31).
TEST(DataWritersTest, AFileOpenForWritingIsBeingWrittenNotBad) {
  TempTree t;
  t.write("/d/data_0.pt", real_fixture("torch/specforge/rows_0-4/data_0.ckpt"));
  t.write("/d/data_1.pt", real_fixture("torch/specforge/rows_0-4/data_1.ckpt").substr(0, 900));
  t.write("/d/data_2.pt", real_fixture("torch/specforge/rows_0-4/data_1.ckpt").substr(0, 900));
  const std::string real = real_path(t.path("/d")).value();
  t.write("/proc/10/comm", "python3\n");
  t.symlink(real + "/data_1.pt", "/proc/10/fd/5");
  t.write("/proc/10/fdinfo/5", "flags:\t0100001\n");
  ScanOptions o;
  o.dirs = {t.path("/d")};
  Result<DirScan> s = scan_dirs(o);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->files[1].verdict, FileVerdict::kBad);  // cut short, as a file being written is
  EXPECT_EQ(mark_being_written(*s, writers_under(t.root(), {t.path("/d")})), 1u);
  EXPECT_EQ(s->files[1].verdict, FileVerdict::kBeingWritten);
  EXPECT_EQ(s->message(s->files[1]), "pid 10 (python3)");
  AnalysisOptions ao;
  ao.layout = s->layout;
  ao.range = std::make_pair(int64_t{0}, int64_t{3});
  DataReport r = analyze(*s, ao);
  EXPECT_EQ(r.being_written, (std::vector<uint32_t>{1}));
  EXPECT_EQ(r.bad, (std::vector<uint32_t>{2}));
  EXPECT_EQ(r.ok, 1u);
  EXPECT_EQ(format_key_runs(r.resume), "2");
  EXPECT_EQ(r.missing_count, 0u);
  EXPECT_EQ(r.exit_code, ExitCode::kWarning);
}

}  // namespace writers_test
}  // namespace gt
