#include "model/fleet.h"

#include <iterator>

namespace gt {

std::string host_verdict(const HostReport& r) {
  return r.report ? verdict_word(*r.report) : "UNKNOWN";
}

int fleet_verdict_rank(const std::string& verdict) {
  for (size_t i = 0; i < std::size(kFleetVerdicts); ++i)
    if (verdict == kFleetVerdicts[i]) return static_cast<int>(i);
  return 0;
}

int verdict_exit_code(const std::string& verdict, bool npd) {
  switch (fleet_verdict_rank(verdict)) {
    case 3:
      return npd ? 1 : 2;
    case 2:
      return npd ? 2 : 3;
    case 1:
      return 1;
  }
  return 0;
}

}  // namespace gt
