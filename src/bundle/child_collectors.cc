#include "bundle/child_collectors.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace gt {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The outcome of a run that started: done, timed out or failed.
CollectorOutcome outcome_of(const std::string& name, const CommandResult& r,
                            std::chrono::milliseconds deadline, double seconds) {
  CollectorOutcome o;
  o.name = name;
  o.seconds = seconds;
  o.deadline_s = deadline.count() / 1000.0;
  if (r.spawn_error) {
    o.end = CollectorEnd::kRefused;
    o.detail = *r.spawn_error;
  } else if (r.timed_out) {
    o.end = CollectorEnd::kTimedOut;
    o.detail = "killed at its deadline; what it wrote before is kept";
  } else if (r.exit_code != 0) {
    o.end = CollectorEnd::kRefused;
    o.detail = "exit status " + std::to_string(r.exit_code);
    if (!r.err.empty()) o.detail += ": " + r.err.substr(0, r.err.find('\n'));
  }
  return o;
}

std::string read_head(const std::filesystem::path& p, uint64_t cap) {
  std::ifstream in(p, std::ios::binary);
  std::string out(static_cast<size_t>(cap), '\0');
  in.read(out.data(), static_cast<std::streamsize>(cap));
  out.resize(static_cast<size_t>(in.gcount()));
  return out;
}

}  // namespace

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (!dir.empty()) {
      std::string candidate = dir + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    start = end + 1;
  }
  return {};
}

ChildCollected collect_smi_xml(const CommandRunner& runner, std::chrono::milliseconds deadline) {
  ChildCollected c;
  const std::string smi = find_on_path("nvidia-smi");
  if (smi.empty()) {
    c.outcome = {"nvidia-smi", CollectorEnd::kSkipped, 0, std::nullopt, "nvidia-smi not on PATH"};
    return c;
  }
  const auto start = std::chrono::steady_clock::now();
  CommandResult r = runner.run({smi, "-q", "-x"}, deadline);
  c.outcome = outcome_of("nvidia-smi", r, deadline, seconds_since(start));
  if (!r.out.empty()) c.members.push_back({TreeEntry::Type::kFile, "nvidia-smi.xml", r.out, {}});
  return c;
}

ChildCollected collect_bug_report(const CommandRunner& runner, std::chrono::milliseconds deadline,
                                  const std::string& scratch_parent, uint64_t cap_bytes) {
  ChildCollected c;
  const std::string script = find_on_path("nvidia-bug-report.sh");
  if (script.empty()) {
    c.outcome = {"nvidia-bug-report", CollectorEnd::kRefused, 0, std::nullopt,
                 "nvidia-bug-report.sh not on PATH"};
    return c;
  }
  std::string tmpl = scratch_parent + "/.gpu-triage-bug-report.XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    c.outcome = {"nvidia-bug-report", CollectorEnd::kRefused, 0, std::nullopt,
                 "cannot make a scratch folder in " + scratch_parent};
    return c;
  }
  const auto start = std::chrono::steady_clock::now();
  CommandResult r =
      runner.run({script, "--output-file", tmpl + "/nvidia-bug-report.log"}, deadline);
  c.outcome = outcome_of("nvidia-bug-report", r, deadline, seconds_since(start));
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(tmpl, ec))
    if (f.is_regular_file(ec))
      c.members.push_back({TreeEntry::Type::kFile,
                           "bug-report/" + f.path().filename().string(),
                           read_head(f.path(), cap_bytes),
                           {}});
  std::filesystem::remove_all(tmpl, ec);
  std::string said = r.out + r.err;
  if (!said.empty())
    c.members.push_back({TreeEntry::Type::kFile,
                         "bug-report/output.txt",
                         said.substr(0, static_cast<size_t>(cap_bytes)),
                         {}});
  return c;
}

}  // namespace gt
