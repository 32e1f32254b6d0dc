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

std::string verdict_word(const Report& r) {
  if (r.could_not_check) return "UNKNOWN";
  switch (r.verdict) {
    case Severity::kOk:
    case Severity::kInfo:
      return "OK";
    case Severity::kWarning:
      return "WARNING";
    case Severity::kCritical:
      return "CRITICAL";
  }
  return "UNKNOWN";
}

}  // namespace gt
