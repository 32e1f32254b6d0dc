// NVLink Xid payloads: Xid 74 (pre-NVLink5) register words and the NVLink5
// Xids 144-150 decode table (shared/reference/xid-catalog.md, "Xid 74" and
// "Xid 144-150: NVLink5 decode"). Called through decode_xid (xid_decode.h).
#pragma once

#include <string_view>

#include "sources/kernel_log/xid_decode.h"

namespace gt::klog {

/// Xid 74: "NVLink: fatal error detected on link 14(0x0, 0x0, 0x10000, ...)".
Decoded decode_xid74(std::string_view detail);

/// Xids 144-150: "RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 ...)".
Decoded decode_nvlink5(int code, std::string_view detail);

}  // namespace gt::klog
