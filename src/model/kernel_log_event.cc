#include "model/kernel_log_event.h"

namespace gt {

const char* event_kind_name(EventKind k) {
  switch (k) {
    case EventKind::kFallenOffBus:
      return "fallen-off-bus";
    case EventKind::kSxid:
      return "sxid";
    case EventKind::kXid:
      return "xid";
  }
  return "?";  // not an enumerator
}

const char* log_boot_name(LogBoot b) {
  switch (b) {
    case LogBoot::kCurrent:
      return "current";
    case LogBoot::kFile:
      return "file";
    case LogBoot::kPrevious:
      return "previous";
  }
  return "?";  // not an enumerator
}

}  // namespace gt
