// The element groups of a <gpu> that carry the driver's own signals
// (nvml-abi.md 8.3-8.9, 8.11): recovery action and reset status, fabric,
// temperature limits, clock-limit time, the row remapper histogram and MIG
// devices. Each reads through a GpuReader into its GpuState; every unknown
// value is null, never 0.
#pragma once

#include "sources/smi_xml/smi_xml_reader.h"

namespace gt {

/// gpu_recovery_action, gpu_reset_status/{reset_required,
/// drain_and_reset_recommended} -> recovery.
void read_smi_recovery(GpuReader& r);

/// fabric/{state,status,cliqueId,clusterUuid,health/*} -> fabric; null when
/// the state is "N/A" or "Not Supported" or the element is absent.
void read_smi_fabric(GpuReader& r);

/// temperature/{memory_temp, absolute thresholds, T.Limit forms} -> thermal.
/// Reads after temperature_c is set (slowdown margin from it).
void read_smi_thermal(GpuReader& r);

/// clocks_event_reasons_counters/* (microseconds, R590+) -> limit_time.*_total_us.
void read_smi_limit_counters(GpuReader& r);

/// remapped_rows/row_remapper_histogram/* ("N bank(s)") -> row_remapper_histogram.
void read_smi_row_histogram(GpuReader& r);

/// mig_devices/mig_device/* -> mig_devices; null for "None" or absent.
void read_smi_mig_devices(GpuReader& r);

}  // namespace gt
