// Bundles (gpu-triage --bundle FILE, fleet --reports, bundle-to-scenario's
// input): each input is one archive, read as the replay reads it
// (read_archive: libarchive, any compression, bounded in bytes and
// members), then every member goes through what touches it: the
// redaction (redact_member: a gzip member inflated, redacted, deflated),
// manifest.json's member list and cuts, the check of the members against
// it, and report.json through the saved-report parser
// (report_from_json_text). A report that reads must read back from the
// JSON gpu-triage writes of it (issue 48: a time out of range once made
// the tool's own report unreadable): a failure there traps.
// Seeds (corpus/bundle/): `gpu-triage bundle --sample 0 --no-kernel-log` of
// the one-gpu-hung and missing-mount scenarios under the mock, as written
// and (one-gpu-hung.tar) uncompressed; and snapshot-report-gz-log.tar, the
// saved report tests/golden/snapshot.json as report.json, missing-mount's
// manifest.json and the real kernel log issue-ogkm1151-rtx5080-xid79-
// journal-595.71.05.log (tests/fixtures/real/kernel-log) gzipped as
// root/var/log/kern.log.1.gz, the redaction's gzip path.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "bundle/archive.h"
#include "bundle/bundle_file.h"
#include "bundle/redact_member.h"
#include "fuzz_target.h"
#include "render/bundle_manifest.h"
#include "report/bundle_manifest_read.h"
#include "report/json_report.h"
#include "report/json_report_read.h"
#include "util/json_text.h"

namespace {

/// The input as a file the archive reader opens: a memfd, never the disk.
std::string as_file(const uint8_t* data, size_t size, int& fd) {
  fd = ::memfd_create("gt-fuzz-bundle", 0);
  if (fd < 0) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

void saved_report(const std::string& text) {
  gt::Result<gt::Report> r = gt::report_from_json_text(text);
  if (!r) return;
  const std::string again = gt::json_text(gt::report_to_json(*r));
  if (!gt::report_from_json_text(again)) __builtin_trap();  // our own JSON did not read back
}

void manifest(const std::vector<gt::TreeEntry>& entries, const std::string& text) {
  (void)gt::manifest_cut_members(text);
  gt::Result<std::vector<gt::BundleMember>> listed = gt::manifest_members(text);
  if (listed) (void)gt::unverified_members(entries, *listed);
}

}  // namespace

GT_FUZZ_TARGET(bundle) {
  int fd = -1;
  const std::string file = as_file(data, size, fd);
  // The replay's bounds, smaller: 16 MiB and 4,096 members per input.
  gt::Result<std::vector<gt::TreeEntry>> entries = gt::read_archive(file, 16u << 20, 4096);
  ::close(fd);
  if (!entries) return 0;
  for (const gt::TreeEntry& e : *entries) {
    if (e.type == gt::TreeEntry::Type::kFile && e.name == "report.json") saved_report(e.bytes);
    if (e.type == gt::TreeEntry::Type::kFile && e.name == "manifest.json")
      manifest(*entries, e.bytes);
    (void)gt::redact_member(e);
  }
  return 0;
}
