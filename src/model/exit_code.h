// Exit codes: the Nagios plugin convention (ecosystem.md section 5), which
// scripts, NHC and monitoring engines already understand, plus 64 for bad
// usage and 74 for an output that could not be written (sysexits.h: EX_USAGE,
// EX_IOERR). Never 255: ssh uses it for its own errors.
#pragma once

namespace gt {

enum class ExitCode : int {
  kOk = 0,        ///< all GPUs answered and nothing is wrong
  kWarning = 1,   ///< usable, with problems worth attention
  kCritical = 2,  ///< GPUs unusable: no driver, NVML failed, a GPU lost or hung
  kUnknown = 3,   ///< could not check (internal failure, unreadable input)
  kUsage = 64,    ///< bad command line
  kIoError = 74,  ///< an output asked for (--textfile) could not be written
};

}  // namespace gt
