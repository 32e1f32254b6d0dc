#include "model/fleet.h"

namespace gt {

const char* host_via_name(HostVia via) {
  switch (via) {
    case HostVia::kGpuTriage:
      return "gpu-triage";
    case HostVia::kNvidiaSmi:
      return "nvidia-smi";
    case HostVia::kCapture:
      return "capture";
    case HostVia::kReport:
      return "report";
    case HostVia::kBundle:
      return "bundle";
    case HostVia::kSsh:
      return "ssh";
  }
  return "?";
}

const char* own_past_state_name(OwnPastState s) {
  switch (s) {
    case OwnPastState::kNotKnown:
      return "not_known";
    case OwnPastState::kNoEarlierRun:
      return "no_earlier_run";
    case OwnPastState::kCompared:
      return "compared";
  }
  return "?";
}

Verdict host_verdict(const HostReport& r) {
  return r.report ? report_verdict(*r.report) : Verdict::kUnknown;
}

}  // namespace gt
