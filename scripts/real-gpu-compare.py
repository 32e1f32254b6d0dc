#!/usr/bin/env python3
"""Compares gpu-triage's NVML readings with nvidia-smi's, GPU by GPU.

    real-gpu-compare.py LIVE_JSON SMI_JSON

LIVE_JSON: `gpu-triage --json` on the node (NVML through the tool's own
declarations); SMI_JSON: `gpu-triage --smi-xml <nvidia-smi -q -x> --json`,
the same node's nvidia-smi read through the capture parser. GPUs are
matched by UUID. Every value both report is compared: a value one side
does not report (null) is skipped and counted. Values that move between
two reads a second apart (power, temperature, memory used, utilization)
get a tolerance; counters and modes must be equal. Prints one line per
mismatch naming the GPU and the field; exits 1 on any mismatch, 2 when the
reports cannot be compared (no GPU in common).
"""
import json
import sys

MIB = 1024 * 1024

# (path in the GPU object, tolerance): None means exact; a number is an
# absolute tolerance; a (abs, rel) pair allows the larger of the two.
FIELDS = [
    ("name", None),
    ("serial", None),
    ("vbios_version", None),
    ("board_part_number", None),
    ("pci.bus_id", "bus"),
    ("pci.device_id", None),
    ("memory.total_bytes", MIB),  # nvidia-smi prints MiB
    ("memory.reserved_bytes", MIB),
    ("memory.used_bytes", (64 * MIB, 0.02)),
    ("temperature.gpu_c", 3),
    ("power.draw_w", (15.0, 0.15)),
    ("power.limit_w", 1.0),
    ("pstate", None),
    ("persistence_mode", None),
    ("compute_mode", None),
    ("mig.mode.current", None),
    ("mig.mode.pending", None),
    ("ecc.mode.current", None),
    ("ecc.mode.pending", None),
    ("ecc.errors.corrected.volatile", None),
    ("ecc.errors.corrected.aggregate", None),
    ("ecc.errors.uncorrected.volatile", None),
    ("ecc.errors.uncorrected.aggregate", None),
    ("retired_pages.single_bit_ecc_count", None),
    ("retired_pages.double_bit_ecc_count", None),
    ("retired_pages.pending", None),
    ("remapped_rows.correctable", None),
    ("remapped_rows.uncorrectable", None),
    ("remapped_rows.pending", None),
    ("remapped_rows.failure", None),
    ("pcie.link.gen.current", None),
    ("pcie.link.gen.max", None),
    ("pcie.link.gen.device_max", None),
    ("pcie.link.width.current", None),
    ("pcie.link.width.max", None),
    ("pcie.replay_counter", None),
    ("fabric.state", None),
    ("fabric.status", None),
    ("fabric.clique_id", None),
    ("fabric.cluster_uuid", None),
    ("fabric.health.summary", None),
    ("fabric.health.bandwidth_degraded", None),
    ("fabric.health.route_unhealthy", None),
    ("recovery.action", None),
    ("recovery.reset_required", None),
    ("recovery.drain_and_reset_recommended", None),
    ("thermal.memory_c", 3),
    ("thermal.thresholds.shutdown_c", None),
    ("thermal.thresholds.slowdown_c", None),
    ("thermal.thresholds.gpu_max_c", None),
    ("thermal.thresholds.memory_max_c", None),
    ("clocks_event_reasons.supported", None),
]


def get(obj, path):
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj


def norm_bus(v):
    """NVML and nvidia-smi both print "00000000:19:00.0"; compare lowered."""
    return v.lower() if isinstance(v, str) else v


def close(a, b, tol):
    if tol is None:
        return a == b
    if tol == "bus":
        return norm_bus(a) == norm_bus(b)
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return a == b
    if isinstance(tol, tuple):
        limit = max(tol[0], tol[1] * max(abs(a), abs(b)))
    else:
        limit = tol
    return abs(a - b) <= limit


def processes(gpu):
    out = {}
    for p in gpu.get("processes") or []:
        if isinstance(p, dict) and p.get("pid") is not None:
            out[p["pid"]] = p
    return out


def compare_gpu(label, live, smi, problems, counts):
    for path, tol in FIELDS:
        a, b = get(live, path), get(smi, path)
        if a is None or b is None:
            counts["skipped"] += 1
            continue
        counts["compared"] += 1
        if not close(a, b, tol):
            problems.append(f"{label} {path}: gpu-triage (NVML) {a!r}, nvidia-smi {b!r}")
    # Processes: the same pids (a process may start or end between the two
    # reads; the check is meant for a quiet node) and their memory.
    lp, sp = processes(live), processes(smi)
    if live.get("processes") is not None and smi.get("processes") is not None:
        counts["compared"] += 1
        if set(lp) != set(sp):
            problems.append(f"{label} processes: gpu-triage pids {sorted(lp)}, "
                            f"nvidia-smi pids {sorted(sp)}")
        for pid in sorted(set(lp) & set(sp)):
            a, b = lp[pid].get("used_memory_bytes"), sp[pid].get("used_memory_bytes")
            if a is not None and b is not None:
                counts["compared"] += 1
                if not close(a, b, (64 * MIB, 0.02)):
                    problems.append(f"{label} process {pid} used_memory_bytes: gpu-triage {a}, "
                                    f"nvidia-smi {b}")
    # MIG devices: how many, and each one's memory.
    lm, sm = live.get("mig_devices"), smi.get("mig_devices")
    if isinstance(lm, list) and isinstance(sm, list):
        counts["compared"] += 1
        if len(lm) != len(sm):
            problems.append(f"{label} mig_devices: gpu-triage {len(lm)}, nvidia-smi {len(sm)}")


def main():
    live = json.load(open(sys.argv[1]))
    smi = json.load(open(sys.argv[2]))
    by_uuid = {g.get("uuid"): g for g in smi.get("gpus", []) if g.get("uuid")}
    problems = []
    counts = {"compared": 0, "skipped": 0}
    matched = 0
    for g in live.get("gpus", []):
        other = by_uuid.get(g.get("uuid"))
        label = f"GPU {g.get('index')} ({g.get('uuid')})"
        if other is None:
            problems.append(f"{label}: nvidia-smi does not list this GPU")
            continue
        matched += 1
        compare_gpu(label, g, other, problems, counts)
    live_uuids = {g.get("uuid") for g in live.get("gpus", [])}
    for u in by_uuid:
        if u not in live_uuids:
            problems.append(f"GPU {u}: nvidia-smi lists it, gpu-triage does not")
    if live.get("gpu_count") != smi.get("gpu_count"):
        problems.append(f"gpu_count: gpu-triage {live.get('gpu_count')}, "
                        f"nvidia-smi {smi.get('gpu_count')}")
    print(f"{matched} GPU(s) matched by UUID; {counts['compared']} values compared, "
          f"{counts['skipped']} reported by one side only (skipped); {len(problems)} mismatch(es)")
    for p in problems:
        print(f"MISMATCH {p}")
    if matched == 0:
        return 2
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
