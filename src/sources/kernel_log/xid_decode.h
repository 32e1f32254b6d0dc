// Decodes the payload of an Xid line into name/value pairs
// (KernelLogEvent::decoded), by the rules of shared/reference/xid-catalog.md,
// "Decoding and correlating Xid payloads". Only what the text says: a form
// we do not know gives nothing, never a guess.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gt::klog {

using Decoded = std::vector<std::pair<std::string, std::string>>;

/// `detail` is the text after "<code>, [pid=..., name=...,]". Decodes:
/// - 13: "Graphics SM Warp Exception on (GPC g, TPC t, SM s): <name>" ->
///   engine, exception, gpc, tpc, sm, error; "Graphics Exception: ESR 0xR=0xV"
///   -> engine, exception, esr_register, esr_value; "Graphics Exception: ChID
///   c, Class k, Offset o, Data d" -> engine, exception, channel, class,
///   offset, data. Values as printed.
/// - 31: by token, whichever are printed: channel ("Ch X" / "channel 0xX"),
///   engmask, intr, engine, gpc, client ("ENGINE <type> [GPCn] <client>
///   faulted"), address ("@ 0xHI_LO"), fault_type (FAULT_*), access_type
///   (ACCESS_TYPE_*).
/// - 74: "... on link N(w0, ..., w6)" -> link; with exactly seven words the
///   set bits of REG0/REG2/REG3/REG4 (words 1, 3, 4, 5) as reg0_bits...,
///   set bits of the other words as wordK_bits, and when exactly one bit is
///   set in all seven words, NVIDIA's reading of it (reading: ignorable,
///   sympathetic, ecc-parity, possible-hardware, signal-integrity,
///   bug-if-repeated, unexpected-bug, field-diags-if-repeated,
///   fabric-reset-required, ecc-threshold, or unlisted-bit).
/// - 144-150: "<unit> Fatal|Nonfatal XC0|XC1 i0|i1 Link N (w0 w1 ...)" ->
///   unit, severity, containment, injected, link, intrinfo, error_status,
///   subcode (intrinfo bits 20-25, decimal); when the decode table has a row
///   for the Xid whose V1 (low 10 bits) or V2 (low 7 bits) value matches the
///   intrinfo and whose unit matches the printed one: table_unit, layout,
///   status_class (fatal, link-fatal, nonfatal, xid154-eval, ignore,
///   not-in-production) and, for NETIR_LINK_EVT, subcode_reading.
/// - 154: "GPU recovery action changed from 0xA (text) to 0xB (text)" -> from,
///   from_name, action, action_name (action is the nvmlDeviceGpuRecoveryAction_t
///   number as printed).
Decoded decode_xid(int code, std::string_view detail);

}  // namespace gt::klog
