// The PCIe Advanced Error Reporting counters the kernel keeps per PCIe
// function (drivers/pci/pcie/aer.c; Documentation/ABI/testing/
// sysfs-bus-pci-devices-aer), for each NVIDIA GPU and every bridge above it
// up to its root port. They count since the device was enumerated (boot,
// or a hot-plug/rescan): nothing clears them while the node runs. Plain
// data, read by src/sources/sysfs/aer_counters.h, judged by
// src/checks/pcie_aer_checks.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/describe.h"

namespace gt {

/// One named line of an aer_dev_* file whose count is above zero
/// ("SDES 1", "BadTLP 3", "dev_cor_errs_bit[3] 2" for a bit the kernel has
/// no name for).
struct AerErrorCount {
  std::string name;
  uint64_t count = 0;
  bool operator==(const AerErrorCount&) const = default;
};

/// One aer_dev_correctable / aer_dev_nonfatal / aer_dev_fatal file: its
/// closing TOTAL_ERR_* line (messages received: one message may carry
/// several errors, so it need not be the sum) and the named errors counted.
struct AerCounter {
  uint64_t total = 0;
  std::vector<AerErrorCount> errors;  ///< the lines above zero, in the file's order (bounded)
  bool operator==(const AerCounter&) const = default;
};

/// The three totals alone: what the sample window's start and the record
/// across runs keep.
struct AerTotals {
  std::optional<uint64_t> correctable;
  std::optional<uint64_t> nonfatal;
  std::optional<uint64_t> fatal;
  bool operator==(const AerTotals&) const = default;
};

/// The AER counters of one PCIe function. Each is null where its file is
/// absent (no AER capability, a VM's emulated port, a kernel before 4.19)
/// or does not read as the kernel writes it: unknown, never zero.
struct AerCounters {
  std::optional<AerCounter> correctable;  ///< aer_dev_correctable
  std::optional<AerCounter> nonfatal;     ///< aer_dev_nonfatal
  std::optional<AerCounter> fatal;        ///< aer_dev_fatal
  /// Root ports (and root complex event collectors) only: ERR_* messages
  /// the port received from its whole hierarchy, its own included
  /// (aer_rootport_total_err_cor / _nonfatal / _fatal).
  std::optional<uint64_t> rootport_correctable;
  std::optional<uint64_t> rootport_nonfatal;
  std::optional<uint64_t> rootport_fatal;
  /// The three totals read at the start of the sample window (before the
  /// NVML collection); null when not read then (a watch tick, a capture).
  std::optional<AerTotals> at_window_start;
  bool operator==(const AerCounters&) const = default;
};

/// A PCIe bridge above an NVIDIA GPU (a root port, a switch's ports), from
/// the GPU's sysfs path.
struct PcieBridge {
  std::string bus_id;      ///< "0000:15:01.0"
  bool root_port = false;  ///< the first bridge below the host bridge (pciDDDD:BB)
  AerCounters aer;
  bool operator==(const PcieBridge&) const = default;
};

/// The totals of `c` (each null where its file was not read).
AerTotals aer_totals(const AerCounters& c);

/// Whether any AER file of the function was read.
bool aer_read(const AerCounters& c);

// Each type's fields once, in the report's order (model/describe.h).
void describe(SelfOf<AerErrorCount> auto& e, auto& v) {
  v("name", e.name);
  v("count", e.count);
}

void describe(SelfOf<AerCounter> auto& c, auto& v) {
  v("total", c.total);
  v("errors", c.errors);
}

void describe(SelfOf<AerTotals> auto& t, auto& v) {
  v("correctable", t.correctable);
  v("nonfatal", t.nonfatal);
  v("fatal", t.fatal);
}

void describe(SelfOf<AerCounters> auto& a, auto& v) {
  v("correctable", a.correctable);
  v("nonfatal", a.nonfatal);
  v("fatal", a.fatal);
  v.group("rootport_total", [&](auto& r) {
    r("correctable", a.rootport_correctable);
    r("nonfatal", a.rootport_nonfatal);
    r("fatal", a.rootport_fatal);
  });
  v("at_window_start", a.at_window_start);
}

void describe(SelfOf<PcieBridge> auto& b, auto& v) {
  v("bus_id", b.bus_id);
  v("root_port", b.root_port);
  v("aer", b.aer, NullWhenDefault{});
}

}  // namespace gt
