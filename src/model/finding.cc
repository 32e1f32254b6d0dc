#include "model/finding.h"

#include "model/report.h"

namespace gt {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kOk:
      return "ok";
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kCritical:
      return "critical";
  }
  return "unknown";
}

Verdict report_verdict(const Report& r) {
  if (r.could_not_check) return Verdict::kUnknown;
  switch (r.verdict) {
    case Severity::kOk:
    case Severity::kInfo:
      return Verdict::kOk;
    case Severity::kWarning:
      return Verdict::kWarning;
    case Severity::kCritical:
      return Verdict::kCritical;
  }
  return Verdict::kUnknown;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kOk:
      return "OK";
    case Verdict::kWarning:
      return "WARNING";
    case Verdict::kUnknown:
      return "UNKNOWN";
    case Verdict::kCritical:
      return "CRITICAL";
  }
  return "?";
}

std::string verdict_word(const Report& r) { return verdict_name(report_verdict(r)); }

int verdict_exit_code(Verdict v, bool npd) {
  switch (v) {
    case Verdict::kOk:
      return 0;
    case Verdict::kWarning:
      return 1;
    case Verdict::kUnknown:
      return npd ? 2 : 3;
    case Verdict::kCritical:
      return npd ? 1 : 2;
  }
  return npd ? 2 : 3;
}

std::string replay_finding_key(const Finding& f) {
  const Subject& s = f.subject;
  std::string key = f.id + " " + severity_name(f.severity);
  if (s.gpu_index) key += " GPU " + std::to_string(*s.gpu_index);
  if (s.pci_bus_id) key += " " + *s.pci_bus_id;
  if (s.server_id) key += " server " + *s.server_id;
  if (s.pid) key += " PID " + std::to_string(*s.pid);
  if (s.path) key += " " + *s.path;
  return key;
}

}  // namespace gt
