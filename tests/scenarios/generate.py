#!/usr/bin/env python3
"""Generates the mock-NVML scenarios under tests/scenarios/ (stdlib only).

Each scenario is a directory with scenario.json (read by the mock
libnvidia-ml, format in README.md) and, where the tool needs a host view, a
root/ tree standing in for "/" (proc, sys, etc). Run it after editing; it
rewrites every directory it owns and nothing else:

    python3 tests/scenarios/generate.py

Commit both this script and its output.
"""

import json
import os
import shutil
import struct
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
NS = uuid.UUID("6b1c5d0e-8f4a-4c1e-9a57-3f0d2b7e9c11")

BTIME = 1767225600  # 2026-01-01 00:00:00 UTC
HZ = 100

H100_BUSES = ["19", "3B", "4C", "5D", "9B", "BB", "CB", "DB"]
A100_BUSES = ["07", "0F", "47", "4E", "87", "90", "B7", "BD"]
V100_BUSES = ["06", "07", "0A", "0B"]
CRASH_BUSES = ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"]

GEN_SPEED = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe",
             4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe"}

PASSWD_BASE = [
    "root:x:0:0:root:/root:/bin/bash",
    "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin",
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
]


# --------------------------------------------------------------------------
# NVML side (scenario.json)

def gpu_uuid(scenario, i):
    return "GPU-" + str(uuid.uuid5(NS, f"{scenario}/{i}"))


def clean_health():
    return {
        "ecc_mode": {"current": 1, "pending": 1},
        "ecc_errors": {"volatile_corrected": 0, "volatile_uncorrected": 0,
                       "aggregate_corrected": 0, "aggregate_uncorrected": 0},
        "retired_pages": None,
        "remapped_rows": {"correctable": 0, "uncorrectable": 0,
                          "pending": False, "failure": False},
    }


def device(scenario, i, bus, name, device_id, subsystem_id, total_mib,
           reserved_mib, limit_w, idle_w, temp_c, gen, serial_base,
           part_number=None):
    d = {
        "name": name,
        "uuid": gpu_uuid(scenario, i),
        "serial": str(serial_base + i * 7919),
        "pci": {"bus_id": f"00000000:{bus}:00.0", "device_id": device_id,
                "subsystem_id": subsystem_id},
        "memory": {"total_mib": total_mib, "reserved_mib": reserved_mib,
                   "used_mib": 0},
        "utilization": {"gpu": [0, 0, 0], "memory": [0]},
        "temperature_c": temp_c,
        "power_draw_mw": idle_w * 1000,
        "power_limit_mw": limit_w * 1000,
        "pstate": 0,
        "fan_speed_pct": None,
        "persistence_mode": True,
        "compute_mode": 0,
        "mig_mode": {"current": 0, "pending": 0},
    }
    # Absent: the mock answers NOT_SUPPORTED, as boards that do not say.
    if part_number is not None:
        d["board_part_number"] = part_number
    d.update(clean_health())
    d.update({
        "pcie": {"current_gen": gen, "max_gen": gen, "gpu_max_gen": gen,
                 "current_width": 16, "max_width": 16, "replay_counter": 0},
        "clock_event_reasons": "0x1",
        "clock_event_reasons_supported": "0x1FF",
        "processes": [],
    })
    return d


IDLE_W = [72, 74, 70, 72, 73, 74, 73, 72]
TEMPS = [27, 24, 23, 23, 27, 22, 24, 23]


def h100(scenario, i):
    return device(scenario, i, H100_BUSES[i], "NVIDIA H100 80GB HBM3",
                  "0x233010DE", "0x16C110DE", 81559, 551, 700, IDLE_W[i],
                  TEMPS[i], 5, 1650124031592,
                  part_number="692-2G520-0200-000")


def h100x8(scenario):
    return [h100(scenario, i) for i in range(8)]


# Driver signals (README "Driver signals"). H100 SXM thresholds and the
# bank count are plausible values, not taken from a fixture.
NVSWITCH_BUSES = ["05", "06", "07", "08"]
H100_THRESHOLDS = {"shutdown": 92, "slowdown": 89, "memory_max": 95,
                   "gpu_max": 87}
LIMIT_KINDS = ["sw_power_cap", "sw_thermal", "sync_boost", "board_limit",
               "low_utilization", "reliability", "hw_thermal",
               "hw_power_brake"]
HISTOGRAM_CLEAN = {"max": 640, "high": 0, "partial": 0, "low": 0, "none": 0}


def fabric(scenario, driver_major, degraded=False):
    """A registered GPU. The health bits a driver knows grow with its
    header (8.4): DEGRADED_BW 12.4, route/timeout bits 12.8, incorrect
    configuration and the v3 summary 13.0."""
    bw = 1 if degraded else 2
    f = {"state": "completed", "status": "SUCCESS", "clique_id": 32766,
         "cluster_uuid": str(uuid.uuid5(NS, scenario + "/cluster"))}
    if driver_major >= 580:
        f.update(health_mask=hex(bw | 2 << 2 | 2 << 4 | 2 << 6 | 1 << 8),
                 health_summary="limited_capacity" if degraded else "healthy")
    elif driver_major >= 570:
        f.update(health_mask=hex(bw | 2 << 2 | 2 << 4 | 2 << 6),
                 max_struct_version=2)
    else:
        f.update(health_mask=hex(bw), max_struct_version=2)
    return f


def h100_nvlinks(inactive=()):
    """18 NVLink 4 links to the 4 NVSwitches (version 6 in the 12.8+
    nvmlNvlinkVersion_t numbering), zero errors."""
    return {"count": 18,
            "template": {"active": True, "version": 6,
                         "remote_device_type": "switch",
                         "remote_bus_id": [f"00000000:{b}:00.0"
                                           for b in NVSWITCH_BUSES],
                         "errors": {"crc_flit": 0, "crc_data": 0,
                                    "replay": 0, "recovery": 0}},
            "links": {str(k): {"active": False} for k in inactive}}


def driver_signals(d, scenario, driver_major):
    """The healthy HGX H100 signals for one device `d` (in place)."""
    d.update({
        "fabric": fabric(scenario, driver_major),
        "nvlinks": h100_nvlinks(),
        "temperature_thresholds_c": dict(H100_THRESHOLDS),
        "memory_temperature_c": d["temperature_c"] + 6,
        "row_remapper_histogram": dict(HISTOGRAM_CLEAN),
        "limit_time_ns": {k: 0 for k in LIMIT_KINDS},
    })
    if driver_major >= 570:  # field 230 and the margin call are 12.8
        d["recovery_action"] = 0
        d["margin_temperature_c"] = 89 - d["temperature_c"]
    return d


def hgx_root(path, driver):
    """Root tree of an HGX H100 node: 8 GPUs and the 4 NVSwitches."""
    root = os.path.join(path, "root")
    base_root(root)
    nvidia_module(root, driver)
    gpu_pci_tree(root, H100_BUSES, "0x2330", ("0x10de", "0x16c1"))
    for bus in NVSWITCH_BUSES:
        pci_device(root, f"0000:{bus}:00.0", "0x10de", "0x22a3", "0x068000",
                   "nvidia", 4, 2, max_gen=4, max_width=2,
                   sub=("0x10de", "0x1796"))
    return root


def hgx(path, name, driver, description, mutate):
    """An HGX H100x8 scenario on `driver` with healthy signals, then
    `mutate(devs)` for what the scenario shows."""
    major = int(driver.split(".")[0])
    hgx_root(path, driver)
    devs = [driver_signals(d, name, major) for d in h100x8(name)]
    mutate(devs)
    cuda = {580: 13000, 570: 12080}.get(major, 12040)
    nvml = ("13." if major >= 580 else "12.") + driver
    return scenario_json(description, "current", driver, driver, nvml, cuda,
                         devs)


def busy(d, util, power_w, temp_c):
    d.update(utilization={"gpu": util, "memory": [40, 45, 50]},
             power_draw_mw=power_w * 1000, temperature_c=temp_c,
             clock_event_reasons="0x0")
    d["memory_temperature_c"] = temp_c + 6
    if "margin_temperature_c" in d:
        d["margin_temperature_c"] = 89 - temp_c


def scenario_json(description, variant, library_version, driver, nvml, cuda,
                  devices, **extra):
    s = {"description": description, "library_variant": variant,
         "library_version": library_version}
    s.update(extra)
    s.update({"driver_version": driver, "nvml_version": nvml,
              "cuda_driver_version": cuda, "devices": devices})
    return s


# --------------------------------------------------------------------------
# Host side (root/)

def write(root, rel, text, binary=False):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if binary else "w") as f:
        f.write(text)


def symlink(root, rel, target):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)


BOOT_ID = "00bcba97-c709-4fa8-8cc5-d1cf2a389057"  # this boot (the journal's index 0)
OS_RELEASE_DEBIAN12 = """PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
"""


def base_root(root, users=(), hostname="gpu-node-01"):
    write(root, "etc/passwd", "\n".join(PASSWD_BASE + list(users)) + "\n")
    write(root, "etc/hostname", hostname + "\n")
    write(root, "etc/os-release", OS_RELEASE_DEBIAN12)
    write(root, "proc/sys/kernel/random/boot_id", BOOT_ID + "\n")
    write(root, "proc/sys/kernel/hostname", hostname + "\n")
    write(root, "proc/stat",
          "cpu  123456 0 65432 98765432 1234 0 567 0 0 0\n"
          "intr 0\nctxt 987654321\n"
          f"btime {BTIME}\n"
          "processes 45678\nprocs_running 1\nprocs_blocked 0\n")
    kmsg(root, KMSG_BOOT)


KMSG_BOOT = [
    (6, 0, "Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org) "
           "(gcc-12 (Debian 12.2.0-14) 12.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1"),
    (6, 412, "Command line: BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 root=/dev/vda1 ro"),
    (6, 2301877, "EXT4-fs (vda1): mounted filesystem with ordered data mode."),
]


def kmsg(root, records):
    """Appends /dev/kmsg records ("prio,seq,usec,-;message") to root/dev/kmsg.

    In fixture trees /dev/kmsg is a regular file holding the records the
    kernel would hand out; `records` are (prio, usec, message) tuples.
    """
    path = os.path.join(root, "dev/kmsg")
    old = open(path).read() if os.path.exists(path) else ""
    seq = old.count("\n")
    lines = [f"{prio},{seq + i},{usec},-;{msg}"
             for i, (prio, usec, msg) in enumerate(records)]
    write(root, "dev/kmsg", old + "\n".join(lines) + "\n")


LIB_DIR = "usr/lib/x86_64-linux-gnu"
DRIVER_LIBS = ("libcuda.so", "libnvidia-ml.so", "libnvidia-ptxjitcompiler.so")


def driver_libraries(root, version, libdir=LIB_DIR, names=DRIVER_LIBS):
    """A driver's user-space libraries as its packages lay them out:
    libX.so.VERSION, with libX.so.1 linking to it. The files are stand-ins
    (the release is in their names), not ELF."""
    for name in names:
        write(root, f"{libdir}/{name}.{version}", f"stand-in for {name}.{version}\n")
        symlink(root, f"{libdir}/{name}.1", f"{name}.{version}")


def ld_so_cache(root, entries):
    """/etc/ld.so.cache in glibc's new format ("glibc-ld.so.cache1.1", as
    ldconfig 2.32+ writes it; glibc's dl-cache.h): a 48-byte header, one
    24-byte entry per (soname, path) with the x86-64 libc6 flags 0x0303,
    then the strings; offsets from the start of the file."""
    table = 48 + 24 * len(entries)
    strings = b""
    body = b""
    for soname, path in entries:
        key = table + len(strings)
        strings += soname.encode() + b"\0"
        value = table + len(strings)
        strings += path.encode() + b"\0"
        body += struct.pack("<iIIIQ", 0x0303, key, value, 0, 0)
    head = b"glibc-ld.so.cache1.1" + struct.pack("<IIB3sI12s", len(entries), len(strings), 2,
                                                 b"", 0, b"")
    write(root, "etc/ld.so.cache", head + body + strings, binary=True)


# Build dates of the releases the scenarios load (cosmetic; the tool reads
# only the version). 590.48.01 was published 2025-12-19.
MODULE_BUILT = {
    "470.256.02": "Thu May  2 14:37:44 UTC 2024",
    "535.54.03": "Tue Jun  6 22:20:39 UTC 2023",
    "550.90.07": "Fri May 31 09:35:42 UTC 2024",
    "550.163.01": "Wed Apr 30 21:58:40 UTC 2025",
    "570.124.04": "Fri Feb 21 19:42:20 UTC 2025",
    "570.133.20": "Thu Mar 20 21:37:26 UTC 2025",
    "580.65.06": "Sun Jul 27 06:54:38 UTC 2025",
    "590.48.01": "Thu Dec 18 23:01:19 UTC 2025",
}


def module_banner(version, open_module):
    """The module's version string as NVIDIA builds it (utils.mk
    GENERATE_NVIDSTRING): the open flavour names its builder, the
    proprietary one does not (docs/physics.md, R6)."""
    built = MODULE_BUILT.get(version, "Thu Nov 27 10:00:00 UTC 2025")
    if open_module:
        return (f"NVIDIA UNIX Open Kernel Module for x86_64  {version}  Release Build  "
                f"(dvs-builder@U22-I3-AE18-23-3)  {built}")
    return f"NVIDIA UNIX x86_64 Kernel Module  {version}  {built}"


def nvidia_module(root, version, userspace=None, open_module=False):
    """The loaded module `version` (open_module: the open flavour, which
    Blackwell requires), and the user-space libraries of `userspace` (the
    same release unless a scenario says otherwise)."""
    driver_libraries(root, userspace or version)
    write(root, "sys/module/nvidia/version", version + "\n")
    banner = module_banner(version, open_module)
    kmsg(root, [(6, 4105233, "nvidia: loading out-of-tree module taints kernel."),
                (6, 4389120, "NVRM: loading " + banner)])
    write(root, "proc/driver/nvidia/version",
          f"NVRM version: {banner}\n"
          "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n")


def pci_device(root, bdf, vendor, dev, cls, driver, gen, width, max_gen=5,
               max_width=16, numa=0, sub=("0x10de", "0x16c1")):
    d = f"sys/bus/pci/devices/{bdf}/"
    write(root, d + "vendor", vendor + "\n")
    write(root, d + "device", dev + "\n")
    write(root, d + "class", cls + "\n")
    write(root, d + "subsystem_vendor", sub[0] + "\n")
    write(root, d + "subsystem_device", sub[1] + "\n")
    write(root, d + "current_link_speed", GEN_SPEED[gen] + "\n")
    write(root, d + "max_link_speed", GEN_SPEED[max_gen] + "\n")
    write(root, d + "current_link_width", f"{width}\n")
    write(root, d + "max_link_width", f"{max_width}\n")
    write(root, d + "numa_node", f"{numa}\n")
    if driver:
        # A driver's directory holds its bind/unbind files (and git keeps
        # no empty directory, so a checkout would lose a bare one).
        for f in ("bind", "unbind"):
            write(root, f"sys/bus/pci/drivers/{driver}/{f}", "")
        symlink(root, d + "driver", f"../../../../bus/pci/drivers/{driver}")


def intel_nic(root):
    pci_device(root, "0000:0c:00.0", "0x8086", "0x159b", "0x020000", "ice",
               4, 16, max_gen=4, sub=("0x8086", "0x0003"))


def gpu_pci_tree(root, buses, dev, sub, bound=True, links=None):
    """links: per-GPU (gen, width); default gen5 x16."""
    for i, bus in enumerate(buses):
        gen, width = (links or {}).get(i, (5, 16))
        pci_device(root, f"0000:{bus.lower()}:00.0", "0x10de", dev,
                   "0x030200", "nvidia" if bound else None, gen, width,
                   numa=0 if i < len(buses) // 2 else 1, sub=sub)
    intel_nic(root)


def driver_information(root, buses, model, uuids):
    """/proc/driver/nvidia/gpus/<bus>/information as nvidia.ko writes it for
    each GPU it holds (it still answers for one NVML has lost)."""
    for i, bus in enumerate(buses):
        b = f"0000:{bus.lower()}:00.0"
        write(root, f"proc/driver/nvidia/gpus/{b}/information",
              f"Model: \t\t {model}\nIRQ:   \t\t {180 + i}\n"
              f"GPU UUID: \t {uuids[i]}\nVideo BIOS: \t 96.00.99.00.01\n"
              "Bus Type: \t PCIe\nDMA Size: \t 52 bits\n"
              "DMA Mask: \t 0xfffffffffffff\n"
              f"Bus Location: \t {b}\nDevice Minor: \t {i}\n"
              "GPU Excluded:\t No\n")


def loaded_modules(root, modules):
    """/sys/module/<name>/{refcnt,holders/} for loaded modules:
    modules = {name: (refcnt, [holder names])}."""
    for name, (refcnt, holders) in modules.items():
        write(root, f"sys/module/{name}/refcnt", f"{refcnt}\n")
        write(root, f"sys/module/{name}/initstate", "live\n")
        # holders/ with no entry is left out: git keeps no empty directory,
        # and the tool reads a missing holders/ as none (driver_version.cc).
        for h in holders:
            symlink(root, f"sys/module/{name}/holders/{h}", f"../../{h}")


def stat_line(pid, comm, state, ppid, pgrp, starttime, threads, vsize_kb,
              rss_pages, utime, stime):
    f = [str(pid), f"({comm})", state, str(ppid), str(pgrp), str(pgrp), "0",
         "-1", "4194560", "183042", "0", "12", "0", str(utime), str(stime),
         "0", "0", "20", "0", str(threads), "0", str(starttime),
         str(vsize_kb * 1024), str(rss_pages), "18446744073709551615",
         "94355432001536", "94355434839885", "140734567812128", "0", "0",
         "0", "0", "16781312", "134234626", "0", "0", "0", "17", "3", "0",
         "0", "0", "0", "0", "94355437057808", "94355437184592",
         "94355460132864", "140734567818555", "140734567818602",
         "140734567818602", "140734567821291", "0"]
    assert len(f) == 52, len(f)
    return " ".join(f) + "\n"


PROC_ENV = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "LANG=C.UTF-8"]


def proc(root, pid, comm, argv, ppid, uid, start_s, cgroup, state="S",
         threads=1, vsize_kb=20000, rss_kb=12000, env=None, cpus=None):
    """A /proc/<pid> directory. comm is truncated to 15 chars like the
    kernel does; argv and env are lists (joined with NULs, NUL-terminated;
    env defaults to PROC_ENV)."""
    comm = comm[:15]
    d = f"proc/{pid}/"
    write(root, d + "environ",
          b"".join(e.encode() + b"\0" for e in (PROC_ENV if env is None else env)),
          binary=True)
    write(root, d + "comm", comm + "\n")
    write(root, d + "cmdline",
          b"".join(a.encode() + b"\0" for a in argv), binary=True)
    state_name = {"S": "S (sleeping)", "R": "R (running)",
                  "Z": "Z (zombie)", "D": "D (disk sleep)"}[state]
    write(root, d + "status",
          f"Name:\t{comm}\nUmask:\t0022\nState:\t{state_name}\n"
          f"Tgid:\t{pid}\nNgid:\t0\nPid:\t{pid}\nPPid:\t{ppid}\n"
          f"TracerPid:\t0\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n"
          f"Gid:\t{uid}\t{uid}\t{uid}\t{uid}\nFDSize:\t256\nGroups:\t{uid} \n"
          f"NStgid:\t{pid}\nNSpid:\t{pid}\nNSpgid:\t{pid}\nNSsid:\t{pid}\n"
          f"VmPeak:\t{vsize_kb + 1024} kB\nVmSize:\t{vsize_kb} kB\n"
          f"VmRSS:\t{rss_kb} kB\nThreads:\t{threads}\n"
          + (f"Cpus_allowed_list:\t{cpus}\n" if cpus else ""))
    write(root, d + "stat",
          stat_line(pid, comm, state, ppid, pid, int(start_s * HZ), threads,
                    vsize_kb, rss_kb // 4, 1234, 567))
    write(root, d + "cgroup", f"0::{cgroup}\n")


def init_proc(root):
    proc(root, 1, "systemd", ["/sbin/init"], 0, 0, 0.5, "/init.scope",
         vsize_kb=168000, rss_kb=12800)


# --------------------------------------------------------------------------
# Scenarios. Each function fills `path` and returns the scenario dict.

def healthy_h100x8(path):
    root = os.path.join(path, "root")
    base_root(root)
    nvidia_module(root, "550.90.07")
    gpu_pci_tree(root, H100_BUSES, "0x2330", ("0x10de", "0x16c1"))
    # HGX H100 baseboards also carry 4 NVSwitches, bound to the nvidia
    # driver but of class 0x0680 (bridge): they are not GPUs.
    for i, bus in enumerate(["05", "06", "07", "08"]):
        pci_device(root, f"0000:{bus}:00.0", "0x10de", "0x22a3", "0x068000",
                   "nvidia", 4, 2, max_gen=4, max_width=2,
                   sub=("0x10de", "0x1796"))
    devs = [driver_signals(d, "healthy-h100x8", 550)
            for d in h100x8("healthy-h100x8")]
    # No recovery action: field 230 is R570's (D2, docs/physics.md); a real
    # R550 answers it with an error, so the tool shows it as unknown.
    return scenario_json(
        "8x H100 80GB HBM3 on R550, idle and clean; fabric registered and "
        "healthy, 18 active NVLinks per GPU without errors, far from thermal "
        "limits, no limit time, recovery action unknown (an R570 field)", "current", "550.90.07",
        "550.90.07", "12.550.90.07", 12040, devs)


# The AER counters' names as drivers/pci/pcie/aer.c (Linux 5.4 to 6.x)
# prints them in aer_dev_correctable and aer_dev_nonfatal / aer_dev_fatal.
AER_COR_NAMES = ["RxErr", "BadTLP", "BadDLLP", "Rollover", "Timeout",
                 "NonFatalErr", "CorrIntErr", "HeaderOF"]
AER_UNCOR_NAMES = ["Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO",
                   "CmpltAbrt", "UnxCmplt", "RxOF", "MalfTLP", "ECRC",
                   "UnsupReq", "ACSViol", "UncorrIntErr", "BlockedTLP",
                   "AtomicOpBlocked", "TLPBlockedErr", "PoisonTLPBlocked"]


def aer_files(root, d, cor=None, nonfatal=None, fatal=None, rootport=None):
    """A function's AER counters in folder `d`: {name: count} per file, each
    ending with its TOTAL_ERR_* line (one error per message here);
    rootport=(cor, nonfatal, fatal) for a root port's received totals."""
    def body(names, counts, total):
        counts = counts or {}
        return ("".join(f"{n} {counts.get(n, 0)}\n" for n in names)
                + f"TOTAL_{total} {sum(counts.values())}\n")
    write(root, d + "aer_dev_correctable", body(AER_COR_NAMES, cor, "ERR_COR"))
    write(root, d + "aer_dev_nonfatal",
          body(AER_UNCOR_NAMES, nonfatal, "ERR_NONFATAL"))
    write(root, d + "aer_dev_fatal", body(AER_UNCOR_NAMES, fatal, "ERR_FATAL"))
    if rootport is not None:
        for name, n in zip(("cor", "nonfatal", "fatal"), rootport):
            write(root, d + f"aer_rootport_total_err_{name}", f"{n}\n")


def pci_bridge(root, parent, bdf, vendor, dev, aer):
    """A bridge's folder below `parent` (sys/devices/...), linked from
    sys/bus/pci/devices/<bdf> as on a live node; returns its folder."""
    d = f"{parent}/{bdf}/"
    write(root, d + "vendor", vendor + "\n")
    write(root, d + "device", dev + "\n")
    write(root, d + "class", "0x060400\n")
    aer_files(root, d, **aer)
    symlink(root, f"sys/bus/pci/devices/{bdf}",
            os.path.relpath(os.path.join(root, d), os.path.join(root, "sys/bus/pci/devices")))
    return d.rstrip("/")


def pcie_tree(root, buses, bridge_aer):
    """Moves each GPU's folder to its place in the PCIe tree, as a live node
    has it: two GPUs below each root port and PCIe switch
    (pci0000:HH/0000:HH:01.0/0000:HH+1:00.0/0000:HH+2:0N.0/<gpu>), and
    sys/bus/pci/devices/<bdf> a link there. Every function has AER counters;
    bridge_aer: {bdf: aer_files arguments} for the ones that counted."""
    links = os.path.join(root, "sys/bus/pci/devices")
    for p in range(0, len(buses), 2):
        hh = [0x15, 0x48, 0x97, 0xC7][p // 2]
        host = f"sys/devices/pci0000:{hh:02x}"
        rp = f"0000:{hh:02x}:01.0"
        up = f"0000:{hh + 1:02x}:00.0"
        rp_dir = pci_bridge(root, host, rp, "0x8086", "0x352a",
                            {"rootport": (0, 0, 0), **bridge_aer.get(rp, {})})
        up_dir = pci_bridge(root, rp_dir, up, "0x1000", "0xc030",
                            bridge_aer.get(up, {}))
        for k, bus in enumerate(buses[p:p + 2]):
            down = f"0000:{hh + 2:02x}:{k:02x}.0"
            down_dir = pci_bridge(root, up_dir, down, "0x1000", "0xc030",
                                  bridge_aer.get(down, {}))
            bdf = f"0000:{bus.lower()}:00.0"
            new = os.path.join(root, down_dir, bdf)
            os.rename(os.path.join(links, bdf), new)
            os.remove(os.path.join(new, "driver"))
            os.symlink(os.path.relpath(os.path.join(root, "sys/bus/pci/drivers/nvidia"), new),
                       os.path.join(new, "driver"))
            aer_files(root, os.path.join(down_dir, bdf) + "/")
            os.symlink(os.path.relpath(new, links), os.path.join(links, bdf))


def pcie_aer_fatal(path):
    """Issue 38 item 3: healthy-h100x8 in a live node's sysfs layout, with AER
    counters on every GPU and bridge. The root port above GPUs 2 and 3
    counted one fatal error (a Surprise Down: the link went down and the
    kernel's recovery reset it); NVML sees all eight GPUs answer. A switch
    port's few correctable errors are stable: no finding."""
    s = healthy_h100x8(path)
    root = os.path.join(path, "root")
    pcie_tree(root, H100_BUSES, {
        "0000:48:01.0": {"fatal": {"SDES": 1}, "rootport": (0, 0, 1)},
        "0000:17:00.0": {"cor": {"RxErr": 3, "BadTLP": 1}},
    })
    # nvidia.ko registers no PCIe error recovery (R8): the link reset below
    # the port leaves GPUs 2 and 3 lost to the driver.
    for i in (2, 3):
        s["devices"][i]["lost"] = True
        link_lost(root, f"0000:{H100_BUSES[i].lower()}:00.0")
    # nvidia.ko still has both devices and says which they are.
    driver_information(root, H100_BUSES, "NVIDIA H100 80GB HBM3",
                       [d["uuid"] for d in s["devices"]])
    kmsg(root, [
        (3, 7201334012, "pcieport 0000:48:01.0: AER: Uncorrected (Fatal) error received: "
                        "0000:48:01.0"),
        (3, 7201334050, "pcieport 0000:48:01.0: PCIe Bus Error: severity=Uncorrected "
                        "(Fatal), type=Transaction Layer, (Receiver ID)"),
        (3, 7201334061, "pcieport 0000:48:01.0:   device [8086:352a] error "
                        "status/mask=00000020/00000000"),
        (3, 7201334070, "pcieport 0000:48:01.0:    [ 5] SDES                   (First)"),
        (4, 7201334190, "nvidia 0000:4c:00.0: AER: can't recover (no error_detected "
                        "callback)"),
        (4, 7201334200, "nvidia 0000:5d:00.0: AER: can't recover (no error_detected "
                        "callback)"),
        (3, 7201335400, "pcieport 0000:48:01.0: AER: device recovery failed"),
        (3, 7201911900, "NVRM: GPU at PCI:0000:4c:00: " + s["devices"][2]["uuid"]),
        (3, 7201912000, "NVRM: Xid (PCI:0000:4c:00): 79, pid='<unknown>', name=<unknown>, "
                        "GPU has fallen off the bus."),
        (3, 7201912050, "NVRM: GPU at PCI:0000:5d:00: " + s["devices"][3]["uuid"]),
        (3, 7201912100, "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, "
                        "GPU has fallen off the bus."),
    ])
    s["description"] = (
        "8x H100 as healthy-h100x8 in a live node's sysfs layout (each GPU below a "
        "root port and a PCIe switch), AER counters on every function: the root "
        "port above GPUs 2 and 3 counted one fatal error (Surprise Down), the "
        "kernel's recovery failed (nvidia.ko has no error handler) and both GPUs "
        "are lost (Xid 79); a switch port's 4 correctable errors are stable")
    return s


SGLANG_PIDS = list(range(3187, 3195))
LAUNCHER_PID = 3141
# The incident's server: Kimi-K2.5 at TP 8 (SGLang's Kimi recipe passes
# --trust-remote-code: the model's code ships with its weights).
SGLANG_CMD = ["/usr/bin/python3", "-m", "sglang.launch_server",
              "--model-path", "/models/Kimi-K2.5", "--tp", "8",
              "--trust-remote-code", "--host", "0.0.0.0", "--port", "30000"]
STORY_SGLANG_CMD = SGLANG_CMD + ["--crash-dump-folder", "/data/sglang/crash-dumps"]
SGLANG_UNIT = """[Unit]
Description=SGLang inference server (Kimi-K2.5, TP8)
After=network-online.target nvidia-persistenced.service
Wants=network-online.target

[Service]
Type=simple
User=svc-llm
Group=svc-llm
Environment=CUDA_DEVICE_ORDER=PCI_BUS_ID
ExecStart=/usr/bin/python3 -m sglang.launch_server --model-path /models/Kimi-K2.5 --tp 8 --trust-remote-code --host 0.0.0.0 --port 30000
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
"""


def after_crash(path, launcher_start_s=12.0):
    root = os.path.join(path, "root")
    base_root(root, ["svc-llm:x:997:997:SGLang service:/var/lib/svc-llm:"
                     "/usr/sbin/nologin"], hostname="llm-rtxpro-03")
    # The whole driver user space is the module's release, as the container
    # toolkit mounts it (R1: NVML answers only at the module's release; R3:
    # the servers hold memory, so their libcuda initialised).
    nvidia_module(root, "590.48.01", open_module=True)
    gpu_pci_tree(root, CRASH_BUSES, "0x2bb5", ("0x10de", "0x204e"))
    init_proc(root)
    cg = "/system.slice/sglang.service"
    proc(root, LAUNCHER_PID, "python3", SGLANG_CMD, 1, 997, launcher_start_s, cg,
         threads=64, vsize_kb=9800000, rss_kb=1900000)
    for r, pid in enumerate(SGLANG_PIDS):
        proc(root, pid, "sglang::scheduler", [f"sglang::scheduler_TP{r}"],
             LAUNCHER_PID, 997, launcher_start_s + 6.5 + 0.01 * r, cg, threads=140,
             vsize_kb=152000000, rss_kb=6100000)
    write(root, "etc/systemd/system/sglang.service", SGLANG_UNIT)
    # `systemctl enable` writes an absolute link; relative keeps it inside
    # the fixture tree.
    symlink(root, "etc/systemd/system/multi-user.target.wants/sglang.service",
            "../sglang.service")
    devs = []
    for i, bus in enumerate(CRASH_BUSES):
        d = device("after-crash", i, bus,
                   "NVIDIA RTX PRO 6000 Blackwell Server Edition",
                   "0x2BB510DE", "0x204E10DE", 97887, 637, 600,
                   [84, 86, 83, 88, 85, 87, 82, 86][i],
                   [34, 33, 36, 35, 31, 32, 37, 34][i], 5, 1794125000118)
        d["utilization"] = {"gpu": [0, 0, 0, 0, 0], "memory": [0, 0, 0]}
        # 72290 MiB = 75.8e9 bytes held by the scheduler: nvidia-smi's
        # "Used" (the 637 MiB reserved are shown apart, as nvidia-smi does).
        d["processes"] = [{"pid": SGLANG_PIDS[i], "used_mib": 72290,
                           "type": "compute",
                           "name": f"sglang::scheduler_TP{i}"}]
        devs.append(d)
    return scenario_json(
        "8x RTX PRO 6000 after the VM crash: an SGLang server that "
        "sglang.service auto-started at boot holds 75.8 GB per GPU (one TP "
        "scheduler each) at 0% utilization; driver 590.48.01 (open module, "
        "NVML and libcuda of the same release, CUDA 13.1)",
        "current", "590.48.01", "590.48.01", "13.590.48.01", 13010, devs,
        init={"latency_ms": 40}, latency_ms={"default": 1})


def watch_timeline(path):
    """after-crash's node as the resumed job runs, for `gpu-triage watch`:
    the SGLang server (TP 8) ramps up from idle (40% at 2 s, 95% at 4 s),
    GPU 3 reports Xid 31 through NVML events at 5 s, and GPU 5 stops
    answering (hangs in nvmlDeviceGetPowerUsage) at 8 s."""
    s = after_crash(path)
    s["description"] = ("after-crash's SGLang node resumed: utilisation ramps "
                        "0 -> 40% (2 s) -> 95% (4 s); Xid 31 on GPU 3 "
                        "(NVML event) at 5 s; GPU 5 hangs in "
                        "nvmlDeviceGetPowerUsage from 8 s")
    for i, d in enumerate(s["devices"]):
        d["timeline"] = [
            {"at_s": 2, "set": {"utilization": {"gpu": [40], "memory": [20]},
                                "power_draw_mw": 310000}},
            {"at_s": 4, "set": {"utilization": {"gpu": [95, 96, 94],
                                                "memory": [60]},
                                "power_draw_mw": 560000}},
        ]
        if i == 3:
            d["events"] = [{"at_s": 5, "type": "xid", "data": 31}]
        if i == 5:
            d["timeline"].append({"at_s": 8, "set": {
                "hang_in": "nvmlDeviceGetPowerUsage"}})
    return s


def no_driver(path):
    root = os.path.join(path, "root")
    base_root(root)
    gpu_pci_tree(root, H100_BUSES, "0x2330", ("0x10de", "0x16c1"),
                 bound=False)
    return {"description": "8x H100 on the PCI bus, no NVIDIA driver or "
                           "libnvidia-ml installed",
            "library_variant": "none", "devices": []}


def no_gpu(path):
    root = os.path.join(path, "root")
    base_root(root)
    intel_nic(root)
    return {"description": "no NVIDIA GPU on the PCI bus, no nvidia module, "
                           "no libnvidia-ml: a CPU node, or a VM whose "
                           "passed-through GPUs vanished",
            "library_variant": "none", "devices": []}


def driver_not_loaded(path):
    root = os.path.join(path, "root")
    base_root(root)
    gpu_pci_tree(root, H100_BUSES, "0x2330", ("0x10de", "0x16c1"),
                 bound=False)
    return scenario_json(
        "libnvidia-ml installed but the kernel module is not loaded",
        "current", "550.90.07", None, None, None, [],
        init={"error": "DRIVER_NOT_LOADED", "latency_ms": 20})


GUEST_FLAGS = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat "
               "pse36 clflush mmx fxsr sse sse2 ss syscall nx pdpe1gb rdtscp lm "
               "constant_tsc rep_good nopl xtopology cpuid tsc_known_freq pni "
               "pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt "
               "aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch")


def cpuinfo(root, flags, cpus=2):
    text = ""
    for i in range(cpus):
        text += (f"processor\t: {i}\nvendor_id\t: AuthenticAMD\n"
                 f"model name\t: AMD EPYC 9454 48-Core Processor\nflags\t\t: {flags}\n\n")
    write(root, "proc/cpuinfo", text)


def dmi(root, vendor, product):
    write(root, "sys/class/dmi/id/sys_vendor", vendor + "\n")
    write(root, "sys/class/dmi/id/product_name", product + "\n")


def driverless(path, vm):
    """NVIDIA's driver packages installed (libnvidia-ml answers
    DRIVER_NOT_LOADED, as NVIDIA's own library does on a machine without the
    module) but no NVIDIA GPU on the PCI bus: a VM whose GPUs the hypervisor
    did not pass through after a restart, or a bare-metal node whose GPUs
    vanished. The clock carries no evidence of being wrong: the kernel's
    unsynchronised flag only (no NTP daemon, the hypervisor keeps time)."""
    root = os.path.join(path, "root")
    base_root(root)
    intel_nic(root)
    if vm:
        dmi(root, "QEMU", "Standard PC (Q35 + ICH9, 2009)")
        cpuinfo(root, GUEST_FLAGS)
    else:
        dmi(root, "Supermicro", "SYS-821GE-TNHR")
        cpuinfo(root, GUEST_FLAGS.replace(" hypervisor", ""))
    this_boot(root)
    fixture_clock(root, NOW, state=5, ntp="no", ntp_synced="no", maxerror_us=16000000)
    what = ("a VM whose GPUs were not passed through" if vm
            else "a bare-metal node whose GPUs left the PCI bus")
    return scenario_json(
        f"driver packages installed, no NVIDIA GPU on the PCI bus, no nvidia module: {what}",
        "current", "535.261.03", None, None, None, [],
        init={"error": "DRIVER_NOT_LOADED", "latency_ms": 5})


def driverless_vm(path):
    return driverless(path, True)


def driverless_metal(path):
    return driverless(path, False)


def version_mismatch(path):
    root = os.path.join(path, "root")
    base_root(root)
    nvidia_module(root, "570.133.20", userspace="570.124.06")
    gpu_pci_tree(root, H100_BUSES, "0x2330", ("0x10de", "0x16c1"))
    # What holds the running module: the modules stacked on it and the
    # daemons that keep /dev/nvidia* open.
    loaded_modules(root, {
        "nvidia": (30, ["nvidia_modeset", "nvidia_peermem", "nvidia_uvm"]),
        "nvidia_modeset": (1, ["nvidia_drm"]),
        "nvidia_drm": (0, []), "nvidia_uvm": (0, []), "nvidia_peermem": (0, []),
    })
    init_proc(root)
    proc(root, 2210, "nvidia-persistenced",
         ["/usr/bin/nvidia-persistenced", "--user", "nvpd"], 1, 0, 6.0,
         "/system.slice/nvidia-persistenced.service")
    proc(root, 2305, "nv-fabricmanager",
         ["/usr/bin/nv-fabricmanager", "-c",
          "/usr/share/nvidia/nvswitch/fabricmanager.cfg"], 1, 0, 7.0,
         "/system.slice/nvidia-fabricmanager.service")
    proc(root, 2400, "nv-hostengine", ["/usr/bin/nv-hostengine", "-n"], 1, 0,
         8.0, "/system.slice/nvidia-dcgm.service")
    return scenario_json(
        "userspace libnvidia-ml 570.124.06 against kernel module 570.133.20",
        "current", "570.124.06", None, None, None, [],
        init={"error": "LIB_RM_VERSION_MISMATCH", "latency_ms": 20})


def h100_570(path, name, description, devices, **extra):
    root = os.path.join(path, "root")
    base_root(root)
    nvidia_module(root, "570.133.20")
    gpu_pci_tree(root, H100_BUSES, "0x2330", ("0x10de", "0x16c1"),
                 links=extra.pop("links", None))
    return scenario_json(description, "current", "570.133.20", "570.133.20",
                         "12.570.133.20", 12080, devices, **extra)


def one_gpu_hung(path):
    devs = h100x8("one-gpu-hung")
    devs[5]["hang_in"] = "nvmlDeviceGetPowerUsage"
    return h100_570(path, "one-gpu-hung",
                    "8x H100; GPU 5 (BB:00.0) blocks forever in "
                    "nvmlDeviceGetPowerUsage", devs,
                    latency_ms={"default": 2})


def wedged_driver(path):
    """A wedged driver: python3 (PID 4242) sleeps in state D in nvidia.ko
    waiting for the global RM API lock (open-gpu-kernel-modules#968, #1333),
    so NVML's init never returns; an rsync in D on NFS beside it is not
    nvidia's."""
    devs = h100x8("wedged-driver")
    # The RM API lock is one global lock (R7): nvmlInit allocates its client
    # under it, so NVML as a whole blocks, not one GPU.
    out = h100_570(path, "wedged-driver",
                   "8x H100; driver wedged: python3 (PID 4242) in state D in "
                   "os_acquire_rwlock_write [nvidia] waiting for the RM API lock; "
                   "NVML's init blocks behind it (every GPU)", devs,
                   init={"hang": True})
    root = os.path.join(path, "root")
    init_proc(root)
    proc(root, 4242, "python3", ["/usr/bin/python3", "train.py"], 1, 0,
         1200.0, "/user.slice/user-0.slice/session-3.scope", state="D")
    write(root, "proc/4242/wchan", "os_acquire_rwlock_write")
    write(root, "proc/4242/stack",
          "[<0>] rwsem_down_write_slowpath+0x27e/0x550\n"
          "[<0>] down_write+0x5c/0x80\n"
          "[<0>] os_acquire_rwlock_write+0x3c/0x70 [nvidia]\n"
          "[<0>] portSyncRwLockAcquireWrite+0x10/0x40 [nvidia]\n"
          "[<0>] rmapiLockAcquire+0x294/0x360 [nvidia]\n"
          "[<0>] nvidia_ioctl+0x5cb/0x8f0 [nvidia]\n"
          "[<0>] __x64_sys_ioctl+0x92/0xd0\n"
          "[<0>] do_syscall_64+0x59/0x90\n")
    proc(root, 5000, "rsync", ["rsync", "-a", "/nfs/ckpt/", "/data/"], 1, 0,
         1300.0, "/user.slice/user-0.slice/session-3.scope", state="D")
    write(root, "proc/5000/wchan", "rpc_wait_bit_killable")
    write(root, "proc/5000/stack",
          "[<0>] rpc_wait_bit_killable+0x1e/0xa0 [sunrpc]\n"
          "[<0>] __rpc_execute+0x11a/0x3c0 [sunrpc]\n"
          "[<0>] nfs4_proc_getattr+0x83/0x110 [nfsv4]\n")
    return out


def link_lost(root, bdf):
    """A function off the bus: config space reads all-ones, which sysfs's
    live link attributes show as Unknown (R9, drivers/pci/pci-sysfs.c)."""
    d = f"sys/bus/pci/devices/{bdf}/"
    write(root, d + "current_link_speed", "Unknown\n")
    write(root, d + "current_link_width", "63\n")


def one_gpu_lost(path):
    devs = h100x8("one-gpu-lost")
    devs[3]["lost"] = True
    out = h100_570(path, "one-gpu-lost",
                   "8x H100; GPU 3 (5D:00.0) fell off the bus: every call "
                   "returns GPU_IS_LOST", devs)
    link_lost(os.path.join(path, "root"), "0000:5d:00.0")
    driver_information(os.path.join(path, "root"), H100_BUSES,
                       "NVIDIA H100 80GB HBM3",
                       [gpu_uuid("one-gpu-lost", i) for i in range(8)])
    # The driver's own words for it (format of xid-catalog.md / gpud).
    kmsg(os.path.join(path, "root"), [
        (3, 88211734012, "NVRM: GPU at PCI:0000:5d:00: GPU-"
                         + gpu_uuid("one-gpu-lost", 3)[4:]),
        (3, 88211734100, "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', "
                         "name=<unknown>, GPU has fallen off the bus."),
        (3, 88211734150, "NVRM: GPU 0000:5d:00.0: GPU has fallen off the bus."),
    ])
    return out


def ecc_remap(path):
    root = os.path.join(path, "root")
    base_root(root)
    nvidia_module(root, "570.133.20")
    gpu_pci_tree(root, A100_BUSES, "0x20b2", ("0x10de", "0x1463"),
                 links={i: (4, 16) for i in range(8)})
    devs = []
    for i, bus in enumerate(A100_BUSES):
        d = device("ecc-remap", i, bus, "NVIDIA A100-SXM4-80GB",
                   "0x20B210DE", "0x146310DE", 81920, 569, 400,
                   [61, 58, 63, 60, 59, 62, 57, 60][i], 30 + i % 4, 4,
                   1564720004631)
        devs.append(d)
    devs[2]["ecc_errors"].update(volatile_uncorrected=3,
                                 aggregate_uncorrected=5)
    devs[2]["remapped_rows"].update(uncorrectable=2, pending=True)
    devs[6]["remapped_rows"].update(uncorrectable=9, failure=True)
    kmsg(root, [
        (4, 51234000001, "NVRM: Xid (PCI:0000:" + A100_BUSES[2].lower() + ":00): 48, "
                         "pid=48213, name=python3, An uncorrectable double bit error "
                         "(DBE) has been detected on GPU in the framebuffer at "
                         "partition 6, subpartition 0."),
        (4, 51234000200, "NVRM: Xid (PCI:0000:" + A100_BUSES[2].lower() + ":00): 63, "
                         "pid=48213, name=python3, Row Remapper: New row (0x00000000000011a9) "
                         "was marked for remapping, reset gpu to activate."),
        (4, 61234500000, "NVRM: Xid (PCI:0000:" + A100_BUSES[6].lower() + ":00): 64, "
                         "pid='<unknown>', name=<unknown>, Row Remapper Error: "
                         "Remapping failed, no spare rows."),
    ])
    return scenario_json(
        "8x A100-SXM4-80GB; GPU 2 has uncorrectable ECC errors and a row "
        "remap pending a reset; GPU 6 had a row-remap failure (RMA)",
        "current", "570.133.20", "570.133.20", "12.570.133.20", 12080, devs)


def pcie_downtrained(path):
    devs = h100x8("pcie-downtrained")
    root_procs = []
    for i, d in enumerate(devs):
        if i == 7:
            d["pcie"]["current_gen"] = 1  # idle: legitimately downclocked
            continue
        d.update(utilization={"gpu": [97, 100, 95, 99, 98],
                              "memory": [41, 55, 48]},
                 temperature_c=61 + i, power_draw_mw=(640 + i * 3) * 1000,
                 pstate=0, clock_event_reasons="0x0")
        d["processes"] = [{"pid": 50100 + i, "used_mib": 71234,
                           "type": "compute"}]
        root_procs.append(50100 + i)
    devs[4]["pcie"].update(current_gen=3, current_width=8)
    devs[4]["power_draw_mw"] = 650000
    out = h100_570(path, "pcie-downtrained",
                   "8x H100 under load; GPU 4 (9B:00.0) trained at gen3 x8; "
                   "GPU 7 idle at gen1 (normal power saving)", devs,
                   links={4: (3, 8), 7: (1, 16)})
    root = os.path.join(path, "root")
    with open(os.path.join(root, "etc/passwd"), "a") as f:
        f.write("alice:x:1001:1001:Alice:/home/alice:/bin/bash\n")
    init_proc(root)
    proc(root, 50000, "torchrun",
         ["/usr/bin/python3", "/usr/local/bin/torchrun", "--nproc-per-node",
          "7", "train.py"], 1, 1001, 300.0, "/user.slice/user-1001.slice")
    for r, pid in enumerate(root_procs):
        proc(root, pid, "python3", ["/usr/bin/python3", "-u", "train.py",
                                    f"--local-rank={r}"],
             50000, 1001, 302.0, "/user.slice/user-1001.slice",
             state="R", threads=40)
    return out


def mig_enabled(path):
    root = os.path.join(path, "root")
    base_root(root, ["alice:x:1001:1001:Alice:/home/alice:/bin/bash"])
    nvidia_module(root, "590.48.01")
    gpu_pci_tree(root, H100_BUSES, "0x2330", ("0x10de", "0x16c1"))
    init_proc(root)
    devs = h100x8("mig-enabled")
    for i in range(4):
        devs[i].update(mig_mode={"current": 1, "pending": 1},
                       utilization=None, remapped_rows=None)
    devs[0]["memory"]["used_mib"] = 150  # MIG instance bookkeeping
    devs[0]["processes"] = [
        {"pid": 7101, "used_mib": 9344, "type": "compute",
         "gpu_instance_id": 1, "compute_instance_id": 0},
        {"pid": 7102, "used_mib": 15360, "type": "compute",
         "gpu_instance_id": 2, "compute_instance_id": 0},
    ]
    for i in range(4):
        devs[i].update(max_mig_device_count=7, mig_devices=[])
    # GPU 0's two instances (3g.40gb and 2g.20gb; sizes plausible, not
    # from a fixture), each listing its own process as NVML does for a
    # MIG handle; the parent lists both (a privileged caller).
    for gi, (profile, mib, p) in enumerate(
            [("3g.40gb", 40448, devs[0]["processes"][0]),
             ("2g.20gb", 20096, devs[0]["processes"][1])], start=1):
        devs[0]["mig_devices"].append({
            "uuid": "MIG-" + str(uuid.uuid5(NS, f"mig-enabled/0/{gi}")),
            "name": f"NVIDIA H100 80GB HBM3 MIG {profile}",
            "gpu_instance_id": gi, "compute_instance_id": 0,
            "memory": {"total_mib": mib, "reserved_mib": 0, "used_mib": 13},
            "processes": [dict(p)]})
    for pid in (7101, 7102):
        proc(root, pid, "python3", ["/usr/bin/python3", "serve.py"], 1,
             1001, 600.0, "/user.slice/user-1001.slice", threads=24)
    return scenario_json(
        "8x H100; GPUs 0-3 in MIG mode (no utilization, no remapped rows), "
        "two MIG processes on GPU 0",
        "current", "590.48.01", "590.48.01", "13.590.48.01", 13010, devs)


def old_driver_r470(path):
    root = os.path.join(path, "root")
    base_root(root, ["bob:x:1002:1002:Bob:/home/bob:/bin/bash"])
    nvidia_module(root, "470.256.02")
    gpu_pci_tree(root, V100_BUSES, "0x1db5", ("0x10de", "0x1249"),
                 links={i: (3, 16) for i in range(4)})
    for i in range(4):  # gen3 parts: max speed 8 GT/s
        write(root, f"sys/bus/pci/devices/0000:{V100_BUSES[i].lower()}:00.0/"
              "max_link_speed", GEN_SPEED[3] + "\n")
    init_proc(root)
    devs = []
    for i, bus in enumerate(V100_BUSES):
        d = device("old-driver-r470", i, bus, "Tesla V100-SXM2-32GB",
                   "0x1DB510DE", "0x124910DE", 32768, 0, 300,
                   [44, 42, 45, 43][i], [36, 34, 38, 35][i], 3,
                   323617043210)
        d.update(mig_mode=None, remapped_rows=None,
                 retired_pages={"single_bit": 2 if i == 0 else 0,
                                "double_bit": 0, "pending": False},
                 clock_event_reasons_supported="0xFF")
        del d["pcie"]["gpu_max_gen"]
        devs.append(d)
    devs[0]["processes"] = [{"pid": 41001, "used_mib": 12034,
                             "type": "compute"}]
    devs[1]["processes"] = [{"pid": 41002, "used_mib": 8110,
                             "type": "compute"}]
    for pid in (41001, 41002):
        proc(root, pid, "python", ["python", "train_resnet.py"], 1, 1002,
             900.0, "/user.slice/user-1002.slice", state="R", threads=30)
    return scenario_json(
        "4x V100-SXM2-32GB on R470: no _v3 process calls, no MemoryInfo_v2, "
        "Throttle names only; GPU 0 has 2 retired pages",
        "r470", "470.256.02", "470.256.02", "11.470.256.02", 11040, devs)


def r535_records(path):
    root = os.path.join(path, "root")
    base_root(root, ["alice:x:1001:1001:Alice:/home/alice:/bin/bash"])
    nvidia_module(root, "535.54.03")
    gpu_pci_tree(root, H100_BUSES[:2], "0x2330", ("0x10de", "0x16c1"))
    init_proc(root)
    devs = [h100("r535-records", i) for i in range(2)]
    sizes = [[30000, 12000, 4567], [25000, 8192, 1234]]
    for i, d in enumerate(devs):
        d["processes"] = [{"pid": 20101 + 100 * i + k, "used_mib": mib,
                           "type": "compute"}
                          for k, mib in enumerate(sizes[i])]
        for p in d["processes"]:
            proc(root, p["pid"], "python3",
                 ["/usr/bin/python3", "worker.py", f"--gpu={i}"], 1, 1001,
                 700.0, "/user.slice/user-1001.slice", threads=16)
    return scenario_json(
        "2x H100 on early R535 (535.54.03): _v3 process calls write 32-byte "
        "records; 3 processes per GPU",
        "r535", "535.54.03", "535.54.03", "12.535.54.03", 12020, devs)


def desktop_gpu(path, driver="570.124.04"):
    """A workstation GPU: display server, compositor, editor and browser as
    graphics processes and one small idle python. Nothing is an idle server."""
    root = os.path.join(path, "root")
    base_root(root, ["alice:x:1001:1001:Alice:/home/alice:/bin/bash"],
              hostname="ws-alice")
    nvidia_module(root, driver)
    gpu_pci_tree(root, ["01"], "0x2684", ("0x10de", "0x16f4"))
    init_proc(root)
    sess = "/user.slice/user-1001.slice/session-2.scope"
    procs = [
        (1820, "Xorg", ["/usr/lib/xorg/Xorg", "vt2", "-displayfd", "3"], 0,
         "/system.slice/gdm.service", "graphics", 1100),
        (2210, "gnome-shell", ["/usr/bin/gnome-shell"], 1001, sess, "graphics", 650),
        (3405, "code", ["/usr/share/code/code", "--type=gpu-process"], 1001, sess,
         "graphics", 420),
        (3550, "firefox-esr", ["/usr/lib/firefox-esr/firefox-esr"], 1001, sess,
         "graphics", 880),
        (4100, "python3", ["/usr/bin/python3", "notebook_cell.py"], 1001, sess,
         "compute", 310),
    ]
    d = device("desktop-gpu", 0, "01", "NVIDIA GeForce RTX 4090", "0x268410DE",
               "0x16F410DE", 24564, 312, 450, 28, 41, 4, 1324521000011)
    d["persistence_mode"] = False
    d["utilization"] = {"gpu": [0, 0, 0, 0, 0], "memory": [0]}
    # R16: an idle display GPU sits in P8 with its fans reporting; GeForce
    # has no MIG and no ECC (NVML: NOT_SUPPORTED, absent here).
    d.update(pstate=8, fan_speed_pct=30, power_draw_mw=21000)
    for k in ("mig_mode", "ecc_mode", "ecc_errors", "retired_pages", "remapped_rows"):
        d.pop(k, None)
    d["processes"] = []
    for pid, comm, argv, uid, cg, kind, mib in procs:
        proc(root, pid, comm, argv, 1, uid, 30.0 + pid / 100, cg)
        d["processes"].append({"pid": pid, "used_mib": mib, "type": kind})
    major = int(driver.split(".")[0])
    return scenario_json(
        "1x RTX 4090 workstation: Xorg, gnome-shell, VS Code and Firefox as "
        "graphics processes, one small python (310 MiB); all idle",
        "current", driver, driver, f"12.{driver}", 12080 if major >= 570 else 12040, [d])


CUDA_COMPAT_12_8 = "570.124.06"  # cuda-compat-12-8's libcuda release


def cuda_compat(root, release=CUDA_COMPAT_12_8, cuda="12.8"):
    """cuda-compat-<cuda> installed: its libcuda and ptxjitcompiler in
    /usr/local/cuda-<cuda>/compat, an ld.so.conf.d file naming that directory
    ahead of the driver's (as NVIDIA's package and the vLLM images do), and
    the cache ldconfig made from it (the compat directory first)."""
    compat = f"usr/local/cuda-{cuda}/compat"
    driver_libraries(root, release, compat,
                     ("libcuda.so", "libnvidia-ptxjitcompiler.so"))
    write(root, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n\n")
    write(root, "etc/ld.so.conf.d/000-cuda-compat.conf", "/" + compat + "\n")
    write(root, "etc/ld.so.conf.d/x86_64-linux-gnu.conf",
          "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n"
          "/usr/lib/x86_64-linux-gnu\n")
    ld_so_cache(root, [("libnvidia-ptxjitcompiler.so.1", f"/{compat}/libnvidia-ptxjitcompiler.so.1"),
                       ("libnvidia-ptxjitcompiler.so.1", f"/{LIB_DIR}/libnvidia-ptxjitcompiler.so.1"),
                       ("libnvidia-ml.so.1", f"/{LIB_DIR}/libnvidia-ml.so.1"),
                       ("libcuda.so.1", f"/{compat}/libcuda.so.1"),
                       ("libcuda.so.1", f"/{LIB_DIR}/libcuda.so.1")])


def cuda_compat_datacenter(path):
    """8x H100 on R535 (a long-term support branch) with cuda-compat-12-8
    ahead of the driver: the forward-compatible path NVIDIA documents for
    data-center GPUs over a production or LTS branch (physics.md R2b; R550's
    designation is in no source read, so it would be unknown)."""
    def mutate(devs):
        pass
    s = hgx(path, "cuda-compat-datacenter", "535.261.03",
            "8x H100 on R535 with cuda-compat-12-8 (libcuda 570.124.06) first in the loader's "
            "cache: forward compatibility on data-center GPUs", mutate)
    cuda_compat(os.path.join(path, "root"))
    s["cuda_driver_version"] = 12080  # R4: the loader finds the compat libcuda first
    s["cuda"] = {"library_version": CUDA_COMPAT_12_8, "driver_version": 12080, "compat": True}
    return s


def cuda_compat_older(path):
    """8x H100 on R570 with an image's cuda-compat-12-4 (libcuda 550.54.15)
    first in the loader's cache: a compat library older than the driver
    fails with 803 (R2: nvidia-container-toolkit#1679, djl-serving#1278);
    NVML reports its CUDA 12.4 (R4). Nothing runs on the GPUs."""
    s = hgx(path, "cuda-compat-older", "570.124.04",
            "8x H100 on R570 with cuda-compat-12-4 (libcuda 550.54.15, older than the "
            "driver) first in the loader's cache: cuInit 803 for a new job",
            lambda devs: None)
    cuda_compat(os.path.join(path, "root"), "550.54.15", "12.4")
    s["cuda_driver_version"] = 12040  # R4: cuDriverGetVersion of the compat libcuda
    s["cuda"] = {"library_version": "550.54.15", "driver_version": 12040, "compat": True}
    return s


def cuda_compat_rtx(path):
    """desktop-gpu's RTX 4090 on R550 with cuda-compat-12-8 ahead of the
    driver: a GeForce board has no forward compatibility (804)."""
    s = desktop_gpu(path, driver="550.163.01")
    cuda_compat(os.path.join(path, "root"))
    s["cuda_driver_version"] = 12080  # R4: NVML reads the compat libcuda
    # The mock libcuda is the tree's compat library: cuInit 804 on a GeForce (R2).
    s["cuda"] = {"library_version": CUDA_COMPAT_12_8, "driver_version": 12080, "compat": True}
    # The compat libcuda fails with 804 on a GeForce (R2), so no CUDA
    # process holds memory here: the notebook's python is not running.
    d = s["devices"][0]
    d["processes"] = [p for p in d["processes"] if p["type"] != "compute"]
    s["description"] = ("1x RTX 4090 workstation on R550 with cuda-compat-12-8 (libcuda "
                        "570.124.06) first in the loader's cache: CUDA fails with 804")
    return s


VLLM_UNIT = """[Service]
{env}ExecStart=/usr/local/bin/vllm serve {model} --tensor-parallel-size 4 --port {port}
Restart=on-failure
"""


def two_vllm_tp4(path):
    """Two vLLM servers, TP=4 each: one on GPUs 0-3, one on GPUs 4-7, each
    in its own unit."""
    root = os.path.join(path, "root")
    base_root(root, ["svc-vllm:x:996:996:vLLM:/var/lib/vllm:/usr/sbin/nologin"])
    nvidia_module(root, "570.124.04")
    gpu_pci_tree(root, H100_BUSES, "0x2330", ("0x10de", "0x16c1"))
    init_proc(root)
    devs = h100x8("two-vllm-tp4")
    for half, (unit, model, port) in enumerate(
            [("vllm-llama.service", "meta-llama/Llama-3.1-70B-Instruct", 8000),
             ("vllm-qwen.service", "Qwen/Qwen2.5-72B-Instruct", 8001)]):
        cg = "/system.slice/" + unit
        launcher = 5100 + 100 * half
        # Without CUDA_VISIBLE_DEVICES the second server would take GPUs
        # 0-3 too (R15): its unit places it on 4-7.
        visible = "CUDA_VISIBLE_DEVICES=4,5,6,7" if half else None
        env = PROC_ENV + [visible] if visible else None
        proc(root, launcher, "vllm",
             ["/usr/bin/python3", "/usr/local/bin/vllm", "serve", model,
              "--tensor-parallel-size", "4", "--port", str(port)],
             1, 996, 25.0 + half, cg, threads=48, env=env)
        write(root, "etc/systemd/system/" + unit,
              VLLM_UNIT.format(model=model, port=port,
                               env=f"Environment={visible}\n" if visible else ""))
        for r in range(4):
            pid = launcher + 1 + r
            proc(root, pid, "VLLM::Worker_TP", [f"VLLM::Worker_TP{r}"],
                 launcher, 996, 40.0 + half + 0.1 * r, cg, threads=90, env=env)
            d = devs[4 * half + r]
            d["utilization"] = {"gpu": [0, 0, 0, 0], "memory": [0]}
            d["processes"] = [{"pid": pid, "used_mib": 71234, "type": "compute"}]
    return scenario_json(
        "8x H100: two vLLM servers (TP=4 each, one unit each) on GPUs 0-3 "
        "and 4-7, both idle", "current", "570.124.04", "570.124.04",
        "12.570.124.04", 12080, devs)


def hgx_nvlink_tp8(path):
    """An HGX H100x8 serving one vLLM TP=8 over NVLink (issue 38): every
    pair reads, writes and does atomics peer to peer over NVLink; the PCIe
    path is NODE within a socket, SYS across the two (the design). No
    topology finding."""
    root = os.path.join(path, "root")
    base_root(root, ["svc-vllm:x:996:996:vLLM:/var/lib/vllm:/usr/sbin/nologin"])
    nvidia_module(root, "570.124.04")
    gpu_pci_tree(root, H100_BUSES, "0x2330", ("0x10de", "0x16c1"))
    init_proc(root)
    devs = h100x8("hgx-nvlink-tp8")
    unit, model, port = "vllm.service", "meta-llama/Llama-3.1-405B-Instruct-FP8", 8000
    cg = "/system.slice/" + unit
    launcher = 5100
    proc(root, launcher, "vllm",
         ["/usr/bin/python3", "/usr/local/bin/vllm", "serve", model,
          "--tensor-parallel-size", "8", "--port", str(port)],
         1, 996, 25.0, cg, threads=48)
    write(root, "etc/systemd/system/" + unit, VLLM_UNIT.format(model=model, port=port, env=""))
    for r in range(8):
        pid = launcher + 1 + r
        proc(root, pid, "VLLM::Worker_TP", [f"VLLM::Worker_TP{r}"],
             launcher, 996, 40.0 + 0.1 * r, cg, threads=90)
        busy(devs[r], 93, 610, 58)
        devs[r]["processes"] = [{"pid": pid, "used_mib": 71234, "type": "compute"}]
    ok = {"read": "ok", "write": "ok", "nvlink": "ok", "atomics": "ok"}
    pairs = {f"{a},{b}": {"level": "system"}
             for a in range(8) for b in range(a + 1, 8) if (a < 4) != (b < 4)}
    s = scenario_json(
        "8x H100 HGX: one vLLM server, TP=8 over all GPUs, busy; every pair "
        "peer to peer over NVLink", "current", "570.124.04", "570.124.04",
        "12.570.124.04", 12080, devs)
    s["topology"] = {"default": {"level": "node", "p2p": ok}, "pairs": pairs}
    return s


def numa_nodes(root, cpulists):
    """/sys/devices/system/node/nodeN/cpulist for each node's CPU list."""
    for n, cpus in enumerate(cpulists):
        write(root, f"sys/devices/system/node/node{n}/cpulist", cpus + "\n")
    write(root, "sys/devices/system/node/possible", f"0-{len(cpulists) - 1}\n")


def numa_pinned_tp2(path):
    """A two-socket H100 node (issue 38 item 4): a vLLM server with TP=2 on
    GPU 0 (NUMA node 0) and GPU 4 (node 1), started under
    `numactl --cpunodebind=0`: both ranks may only run on node 0's CPUs, so
    rank 1 works across the CPU interconnect from its GPU. Its GPUs sit on
    two nodes where one node has four (topology.numa_split, info)."""
    root = os.path.join(path, "root")
    base_root(root, ["svc-vllm:x:996:996:vLLM:/var/lib/vllm:/usr/sbin/nologin"])
    nvidia_module(root, "570.124.04")
    gpu_pci_tree(root, H100_BUSES, "0x2330", ("0x10de", "0x16c1"))
    numa_nodes(root, ["0-31,64-95", "32-63,96-127"])
    init_proc(root)
    devs = h100x8("numa-pinned-tp2")
    unit, model, port = "vllm.service", "Qwen/Qwen2.5-32B-Instruct", 8000
    cg = "/system.slice/" + unit
    launcher = 5100
    node0 = "0-31,64-95"
    env = PROC_ENV + ["CUDA_VISIBLE_DEVICES=0,4"]  # R15: else GPUs 0 and 1
    proc(root, launcher, "vllm",
         ["/usr/bin/python3", "/usr/local/bin/vllm", "serve", model,
          "--tensor-parallel-size", "2", "--port", str(port)],
         1, 996, 25.0, cg, threads=48, cpus=node0, env=env)
    write(root, "etc/systemd/system/" + unit,
          VLLM_UNIT.format(model=model, port=port,
                           env="Environment=CUDA_VISIBLE_DEVICES=0,4\n").replace(
              "ExecStart=", "ExecStart=/usr/bin/numactl --cpunodebind=0 ").replace(
              "--tensor-parallel-size 4", "--tensor-parallel-size 2"))
    for r, gpu in enumerate([0, 4]):
        pid = launcher + 1 + r
        proc(root, pid, "VLLM::Worker_TP", [f"VLLM::Worker_TP{r}"],
             launcher, 996, 40.0 + 0.1 * r, cg, threads=90, cpus=node0, env=env)
        busy(devs[gpu], 88, 560, 55)
        devs[gpu]["processes"] = [{"pid": pid, "used_mib": 71234, "type": "compute"}]
    return scenario_json(
        "8x H100, two sockets: one vLLM server, TP=2 on GPU 0 (NUMA node 0) "
        "and GPU 4 (node 1), both ranks pinned to node 0 by numactl",
        "current", "570.124.04", "570.124.04", "12.570.124.04", 12080, devs)


TGI_CONTAINER = "4f2a9c1e7b3d" + "8e6f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f"


def docker_restart(path):
    """A TGI container with restart policy always on GPUs 0-1: a signal
    would be undone by Docker, so the owner must be stopped."""
    root = os.path.join(path, "root")
    base_root(root)
    nvidia_module(root, "570.124.04")
    gpu_pci_tree(root, H100_BUSES[:2], "0x2330", ("0x10de", "0x16c1"))
    init_proc(root)
    cg = f"/system.slice/docker-{TGI_CONTAINER}.scope"
    proc(root, 6000, "containerd-shim", ["/usr/bin/containerd-shim-runc-v2",
                                          "-namespace", "moby", "-id", TGI_CONTAINER],
         1, 0, 20.0, "/system.slice/containerd.service")
    proc(root, 6050, "tini", ["/tini", "--", "text-generation-launcher"], 6000, 0,
         20.5, cg)
    proc(root, 6100, "text-generation", ["text-generation-launcher", "--model-id",
                                         "mistralai/Mistral-7B-Instruct-v0.3",
                                         "--num-shard", "2", "--port", "80"],
         6050, 0, 21.0, cg)
    write(root, f"var/lib/docker/containers/{TGI_CONTAINER}/hostconfig.json",
          '{"Binds":["/data:/data"],"NetworkMode":"bridge","RestartPolicy":'
          '{"Name":"always","MaximumRetryCount":0},"Runtime":"nvidia"}')
    # `docker run -d --restart always --init --name tgi-mistral ...`: its PID
    # 1 is docker-init (tini), whose only child is the launcher.
    write(root, f"var/lib/docker/containers/{TGI_CONTAINER}/config.v2.json", json.dumps({
        "State": {"Running": True, "Pid": 6050, "StartedAt": "2026-01-01T00:00:20.4Z"},
        "ID": TGI_CONTAINER, "Created": "2026-01-01T00:00:20.1Z", "Path": "/tini",
        "Args": ["--", "text-generation-launcher"], "Name": "/tgi-mistral",
        "Config": {"Image": "ghcr.io/huggingface/text-generation-inference:3.0"},
        "MountPoints": {"/data": {"Source": "/data", "Destination": "/data", "RW": True,
                                  "Type": "bind"}}}, separators=(",", ":")))
    devs = [h100("docker-restart", i) for i in range(2)]
    for r, d in enumerate(devs):
        pid = 6101 + r
        proc(root, pid, "text-generation", ["/opt/conda/bin/python3",
                                            "/opt/conda/bin/text-generation-server",
                                            "serve", "mistralai/Mistral-7B-Instruct-v0.3",
                                            "--sharded", "--rank", str(r)],
             6100, 0, 35.0, cg)
        d["utilization"] = {"gpu": [0, 0, 0], "memory": [0]}
        d["processes"] = [{"pid": pid, "used_mib": 68000, "type": "compute"}]
    return scenario_json(
        "2x H100: a TGI container (restart policy always) holds GPUs 0-1 idle",
        "current", "570.124.04", "570.124.04", "12.570.124.04", 12080, devs)


def recovery_reboot(path):
    def mutate(devs):
        devs[2]["recovery_action"] = 2  # NODE_REBOOT; every ECC counter 0
    return hgx(path, "recovery-reboot", "580.65.06",
               "8x H100 on R580; the driver asks for a node reboot on GPU 2 "
               "(recovery action NODE_REBOOT) while every ECC counter is 0",
               mutate)


def fabric_degraded(path):
    def mutate(devs):
        devs[6]["fabric"] = fabric("fabric-degraded", 580, degraded=True)
    return hgx(path, "fabric-degraded", "580.65.06",
               "8x H100 on R580; GPU 6 (CB:00.0) is registered with the "
               "fabric but reports degraded bandwidth (health summary "
               "limited capacity); the other 7 are healthy", mutate)


def nvlink_down(path):
    def mutate(devs):
        devs[5]["nvlinks"] = h100_nvlinks(inactive=[7])
    return hgx(path, "nvlink-down", "570.133.20",
               "8x H100 on R570; NVLink 7 of GPU 5 (BB:00.0) is inactive "
               "while it is active on the other 7 GPUs", mutate)


def training_job(path, devs, used_mib=71680):
    """A torchrun training job on every GPU (launcher 7000, one worker per
    GPU): what keeps GPUs busy holds memory and is listed (R3)."""
    root = os.path.join(path, "root")
    init_proc(root)
    cg = "/user.slice/user-0.slice/session-4.scope"
    proc(root, 7000, "torchrun", ["/usr/bin/python3", "/usr/local/bin/torchrun",
                                  f"--nproc-per-node={len(devs)}", "train.py"],
         1, 0, 600.0, cg, threads=12)
    for r, d in enumerate(devs):
        pid = 7001 + r
        proc(root, pid, "python3", ["/usr/bin/python3", "-u", "train.py",
                                    f"--local-rank={r}"], 7000, 0, 604.0 + 0.1 * r, cg,
             threads=60)
        d["processes"] = [{"pid": pid, "used_mib": used_mib, "type": "compute",
                           "name": "python3"}]


def power_brake(path):
    def mutate(devs):
        for i, d in enumerate(devs):
            busy(d, [95, 97, 99, 96, 98], 630 + i, 60 + i)
        # The external power-brake signal holds GPU 3's clocks down for
        # ~90% of any window (R580 field 253); reasons mask 0x80 throughout.
        d = devs[3]
        d["limit_time_ns"]["hw_power_brake"] = {"base": 4.2e11,
                                                "per_s": 0.9e9}
        d.update(clock_event_reasons="0x80", power_draw_mw=212000)
    s = hgx(path, "power-brake", "580.65.06",
            "8x H100 on R580 under a training job (torchrun, 8 ranks, 70 GiB "
            "each); GPU 3 (5D:00.0) is held in HW power brake for ~90% of the "
            "window (reasons 0x80)", mutate)
    training_job(path, s["devices"])
    return s


def thermal_margin(path):
    def mutate(devs):
        for i, d in enumerate(devs):
            busy(d, [92, 95, 97, 94], 610 + i, 62 + i)
        busy(devs[1], [96, 98, 99, 97], 655, 86)  # 3 C from slowdown (89)
    s = hgx(path, "thermal-margin", "580.65.06",
            "8x H100 on R580 under a training job (torchrun, 8 ranks); GPU 1 "
            "(3B:00.0) runs at 86 C, 3 C from its 89 C slowdown threshold", mutate)
    training_job(path, s["devices"])
    return s


def aggregate_dbe(path):
    def mutate(devs):
        d = devs[4]
        # A board with a past: volatile counters cleared by a driver
        # reload, the lifetime ones not; rows remapped long ago and one
        # bank out of spare rows (its next failing row cannot be remapped).
        d["ecc_errors"].update(aggregate_corrected=18950,
                               aggregate_uncorrected=4312)
        d["remapped_rows"].update(correctable=3, uncorrectable=14)
        d["row_remapper_histogram"] = {"max": 631, "high": 6, "partial": 1,
                                       "low": 1, "none": 1}
    return hgx(path, "aggregate-dbe", "570.133.20",
               "8x H100 on R570; GPU 4 (9B:00.0): volatile ECC 0, aggregate "
               "uncorrectable 4,312, 17 rows remapped, one bank with no spare "
               "row left", mutate)


MALFORMED = """{
  "description": "truncated scenario file: the mock must fail init with UNKNOWN",
  "library_variant": "current",
  "library_version": "550.90.07",
  "driver_version": "550.90.07",
  "devices": [
    {"name": "NVIDIA H100 80GB HBM3", "memory": {"total_mib": 815"""


def missing_mount(path):
    """A healthy node whose /data mount did not come up: /etc/fstab names
    it (nofail: the boot went on), the mount table has only /, and /data is
    a plain directory on / that a resumed job already wrote into."""
    out = healthy_h100x8(path)
    root = os.path.join(path, "root")
    write(root, "proc/self/mountinfo",
          "22 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda1 "
          "rw,errors=remount-ro\n"
          "23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - "
          "proc proc rw\n"
          "24 22 0:20 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - "
          "sysfs sysfs rw\n")
    write(root, "etc/fstab",
          "# /etc/fstab: static file system information.\n"
          "UUID=3b1f0c9e-52a4-4d0b-9a51-0c6a2f1e7d11 / ext4 "
          "errors=remount-ro 0 1\n"
          "UUID=9f1c2d7a-6e0b-4b8e-8d2f-5a7c3e1b9d40 /data ext4 "
          "defaults,nofail 0 2\n")
    write(root, "data/checkpoints/step-1200.pt.partial", "partial\n")
    write(root, "data/hidden/data_0.ckpt", "written while /data was not mounted\n")
    # The block devices: / on vda1, and the data volume's NVMe present but
    # not mounted (its UUID is not the one fstab names).
    symlink(root, "dev/disk/by-uuid/3b1f0c9e-52a4-4d0b-9a51-0c6a2f1e7d11", "../../vda1")
    symlink(root, "dev/disk/by-uuid/5e0c7a41-2b9d-4f3e-8c1a-7d6e9f0b2a35", "../../nvme1n1")
    write(root, "sys/class/block/nvme1n1/size", "7501476528\n")
    write(root, "sys/class/block/vda/size", "83886080\n")
    write(root, "sys/class/block/vda/vda1/partition", "1\n")
    write(root, "sys/class/block/vda/vda1/size", "83884032\n")
    symlink(root, "sys/class/block/vda1", "vda/vda1")
    out["description"] = ("8x H100, healthy; the /data mount (fstab, nofail) "
                          "is missing: /data is a plain directory on /")
    return out


def repeat_xid79(path):
    """GPU 3 fell off the bus again in this boot (Xid 79); the e2e runs it
    in several boots by writing another boot_id into a copy."""
    out = one_gpu_lost(path)
    write(os.path.join(path, "root"), "proc/sys/kernel/random/boot_id",
          "6f1d2c3b-0a4e-4c5d-9e8f-7a6b5c4d3e21\n")
    out["description"] = ("8x H100; GPU 3 lost with Xid 79 in this boot "
                          "(run in several boots: gpu.repeat_offender)")
    return out


# --- Incident scenarios (issue 15): "what happened, and when?" -------------
# The journal, timedatectl and the clock come from <root>/.gt-fixture/
# (src/sources/incident/host.h): the saved outputs of the exact commands
# gpu-triage runs, and the clock's reading.
JOURNAL_LIST_CMD = "journalctl --list-boots -o json --no-pager -q"
JOURNAL_PREV_CMD = (
    "journalctl -b -1 -o json -n 20000 --no-pager -q "
    "--output-fields=MESSAGE,SYSLOG_IDENTIFIER,MESSAGE_ID,SHUTDOWN,_PID,_TRANSPORT "
    "_TRANSPORT=kernel + SYSLOG_IDENTIFIER=systemd + SYSLOG_IDENTIFIER=systemd-logind + "
    "SYSLOG_IDENTIFIER=systemd-journald + SYSLOG_IDENTIFIER=systemd-shutdown")
TIMEDATECTL_CMD = "timedatectl show -p NTP -p NTPSynchronized"
PREV_BOOT_ID = "5dffeb08a27344d5ae9e2fc244bbcbc5"
PREV_START = BTIME - 3 * 86400
PREV_END = BTIME - 300          # the VM was killed; restarted 5 minutes later
NOW = BTIME + 3600
LAST_SAMPLE = PREV_END - 540    # the job's last write: 9 min before the end


def fixture_command(root, name, cmd, out="", rc=None, err=None):
    write(root, f".gt-fixture/commands/{name}.cmd", cmd + "\n")
    write(root, f".gt-fixture/commands/{name}.out", out)
    if rc is not None:
        write(root, f".gt-fixture/commands/{name}.rc", f"{rc}\n")
    if err is not None:
        write(root, f".gt-fixture/commands/{name}.err", err)


def set_mtime(root, rel, t):
    """Sets a file's mtime, and records it in .gt-fixture/mtimes ("unix_s
    path" lines): git keeps no mtimes, so scripts/with-mock sets them again
    before each run."""
    os.utime(os.path.join(root, rel), (t, t))
    path = os.path.join(root, ".gt-fixture/mtimes")
    old = open(path).read() if os.path.exists(path) else ""
    write(root, ".gt-fixture/mtimes", old + f"{t} {rel}\n")


def fixture_clock(root, now, state=0, rtc=None, ntp_synced="yes", ntp="yes",
                  maxerror_us=16000):
    write(root, ".gt-fixture/clock",
          f"now_unix_s={now}\nadjtimex_state={state}\nmaxerror_us={maxerror_us}\n")
    write(root, "sys/class/rtc/rtc0/since_epoch", f"{now if rtc is None else rtc}\n")
    fixture_command(root, "timedatectl", TIMEDATECTL_CMD,
                    f"NTP={ntp}\nNTPSynchronized={ntp_synced}\n")


def this_boot(root, uptime_s=3600):
    write(root, "proc/uptime", f"{uptime_s}.00 {uptime_s * 90}.00\n")
    write(root, "proc/sys/kernel/random/boot_id", BOOT_ID + "\n")


def journal_entry(t, message, ident="kernel", pid=None, **extra):
    e = {"__REALTIME_TIMESTAMP": str(t * 1000000), "_BOOT_ID": PREV_BOOT_ID,
         "SYSLOG_IDENTIFIER": ident, "MESSAGE": message}
    if ident == "kernel":
        e["_TRANSPORT"] = "kernel"
    if pid is not None:
        e["_PID"] = str(pid)
    e.update(extra)
    return json.dumps(e)


def fixture_journal(root, entries, last=PREV_END):
    boots = [{"index": -1, "boot_id": PREV_BOOT_ID,
              "first_entry": PREV_START * 1000000, "last_entry": last * 1000000},
             {"index": 0, "boot_id": "00bcba97c7094fa88cc5d1cf2a389057",
              "first_entry": BTIME * 1000000, "last_entry": NOW * 1000000}]
    fixture_command(root, "list-boots", JOURNAL_LIST_CMD, json.dumps(boots) + "\n")
    fixture_command(root, "previous-boot", JOURNAL_PREV_CMD,
                    "".join(line + "\n" for line in entries))


def ordinary_entries():
    return [journal_entry(PREV_START, "Linux version 6.1.0-28-amd64"),
            journal_entry(PREV_START + 40, "Started sglang.service - SGLang inference server.",
                          "systemd", 1)]


def storm_entries():
    """The last minutes of the story: the Ceph pool under the VM fills up and
    pauses every write (R10: a full pool blocks writes, it does not fail
    them), so the job, the filesystem's journal and a writeback worker hang
    (kernel/hung_task.c's message, every 120 s of blocking); then the VM is
    killed. No I/O error, no remount."""
    out = []
    for i, task in enumerate(["python3:3190", "jbd2/vdb1-8:611", "kworker/u64:3:21034"]):
        out.append(journal_entry(PREV_END - 360 + 60 * i,
                                 f"INFO: task {task} blocked for more than 120 seconds."))
    return out


def data_tree(root):
    for i, name in enumerate(["sample-000121.jsonl", "sample-000122.jsonl",
                              "sample-000123.jsonl"]):
        rel = f"data/run-0412/samples/{name}"
        write(root, rel, '{"step": %d}\n' % (121 + i))
        set_mtime(root, rel, LAST_SAMPLE - 600 * (2 - i))


def incident_story(path):
    s = after_crash(path, launcher_start_s=41.0)
    root = os.path.join(path, "root")
    this_boot(root)
    fixture_clock(root, NOW)
    fixture_journal(root, ordinary_entries() + storm_entries())
    data_tree(root)
    s["description"] = ("the story: the Ceph pool under the VM filled up (writes "
                        "paused, tasks hung, no I/O error), the VM was killed (no shutdown "
                        "record); sglang.service auto-started SGLang 41 s after boot")
    return s


# --- gpu-triage cuda (issue 35): the mock libcuda's behaviour ----------------
# The "cuda" block is read by tests/mock_nvml/mock_cuda.cc (its header says
# every key); scripts/with-mock names the mock libcuda.so.<library_version>.

def story_cuda_probe():
    """The story's libcuda is the module's 590.48.01 (CUDA 13.1): the SGLang
    schedulers hold memory through it, so cuInit works (R3)."""
    return {"cuda": {"library_version": "590.48.01", "driver_version": 13010}}


# --- The story (make demo): the whole first contact in one tree --------------
ROOT_UUID = "3b1f0c9e-52a4-4d0b-9a51-0c6a2f1e7d11"
OLD_DATA_UUID = "9f1c2d7a-6e0b-4b8e-8d2f-5a7c3e1b9d40"  # the failed vdb1
NEW_DATA_UUID = "c41e8f27-3d5a-4b19-a6e2-7f0d9b3c5e84"  # the new NVMe


def block_device(root, devpath, name, sectors, major, minor, parts=()):
    """A disk as sysfs shows it: /sys/devices/<devpath>/block/<name> with
    size (512-byte sectors), dev, ro, removable; partitions below it as
    (name, start, sectors); /sys/block and /sys/class/block links."""
    d = f"sys/devices/{devpath}/block/{name}"
    for k, v in (("size", sectors), ("dev", f"{major}:{minor}"), ("ro", 0),
                 ("removable", 0)):
        write(root, f"{d}/{k}", f"{v}\n")
    symlink(root, f"sys/block/{name}", f"../devices/{devpath}/block/{name}")
    symlink(root, f"sys/class/block/{name}", f"../../devices/{devpath}/block/{name}")
    for i, (part, start, size) in enumerate(parts, 1):
        for k, v in (("partition", i), ("start", start), ("size", size),
                     ("dev", f"{major}:{minor + i}"), ("ro", 0)):
            write(root, f"{d}/{part}/{k}", f"{v}\n")
        symlink(root, f"sys/class/block/{part}",
                f"../../devices/{devpath}/block/{name}/{part}")


# The new data disk: a 15.36 TB NVMe (Samsung PM9A3 MZQL215THBLA, 30,005,842,608
# sectors of 512 bytes as its datasheet's capacity gives), /data migrated to
# it after the crash.
NVME_SECTORS = 30005842608


def story_disks(root):
    """The root disk (virtio vda, vda1 on /) and the new 15.36 TB NVMe that
    /data was migrated to after the crash, mounted on /data by the UUID
    fstab names. The old data disk (vdb, on the Ceph pool that filled up)
    is gone. A tree in git holds no 15 TB filesystem: the figures statvfs
    gives on the node are in .gt-fixture/statvfs (sources/fs/disk_usage.cc)."""
    block_device(root, "pci0000:00/0000:00:04.0/virtio2", "vda", 419430400, 252, 0,
                 [("vda1", 2048, 419428319)])
    nvme = "pci0000:00/0000:00:05.0/nvme/nvme0"
    block_device(root, nvme, "nvme0n1", NVME_SECTORS, 259, 0)
    for k, v in (("model", "SAMSUNG MZQL215THBLA-00A07"), ("serial", "S6CRNE0W301234"),
                 ("firmware_rev", "GDC5A02Q"), ("transport", "pcie")):
        write(root, f"sys/devices/{nvme}/{k}", v + "\n")
    symlink(root, f"sys/devices/{nvme}/nvme0n1/device", "../../nvme0")
    symlink(root, f"dev/disk/by-uuid/{ROOT_UUID}", "../../vda1")
    symlink(root, f"dev/disk/by-uuid/{NEW_DATA_UUID}", "../../nvme0n1")
    symlink(root, "dev/disk/by-id/nvme-SAMSUNG_MZQL215THBLA-00A07_S6CRNE0W301234",
            "../../nvme0n1")
    write(root, "proc/self/mountinfo",
          "22 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
          "23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
          "24 22 0:20 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
          "31 22 259:0 / /data rw,relatime shared:20 - ext4 /dev/nvme0n1 rw\n")
    write(root, "etc/fstab",
          "# /etc/fstab: static file system information.\n"
          f"UUID={ROOT_UUID} / ext4 errors=remount-ro 0 1\n"
          f"UUID={NEW_DATA_UUID} /data ext4 defaults,nofail 0 2\n")
    # ext4's figures: vda1 (200 GiB) a third used; the NVMe with the 1.9 TB
    # migrated from the old disk (an inode per 16 KiB, mke2fs's default).
    write(root, ".gt-fixture/statvfs",
          "/ 210303664128 141733244928 13107200 12712112\n"
          "/data 15119659745280 13098432102400 937865216 937826420\n")
    kmsg(root, [(6, 1893211, "nvme nvme0: pci function 0000:00:05.0"),
                (6, 2014457, "nvme nvme0: 32/0/0 default/read/poll queues"),
                (6, 2101935, "virtio_blk virtio2: [vda] 419430400 512-byte logical blocks "
                             "(215 GB/200 GiB)"),
                (6, 2113002, " vda: vda1")])


# The job's container (story): specforge.service runs `docker run --rm --name
# specforge` at every boot (the pattern of Docker's "start containers
# automatically" with a process manager: ExecStartPre removes a leftover of
# the same name), so the VM's restart made a new container and the old one,
# with the local patch made in it, was gone. The image's command
# /workspace/start.sh starts SGLang in the background and keeps the
# container up with `sleep infinity`: SGLang is started by the container,
# not by a person. The host's PIDs of the container's processes, as NVML and
# the host's /proc number them.
SPECFORGE_ID = ("7c3e9a1b2d4f" + "5e6a8b9c0d1e2f3a" * 4)[:64]
SPECFORGE_CG = f"/system.slice/docker-{SPECFORGE_ID}.scope"
SPECFORGE_CREATED = BTIME + 29  # 00:00:29.81 UTC
DOCKER_RUN = ["/usr/bin/docker", "run", "--rm", "--name", "specforge", "--gpus", "all",
              "--ipc=host", "--shm-size=64g", "-v", "/data:/data", "-v", "/models:/models:ro",
              "-p", "30000:30000", "--env", "HF_TOKEN", "specforge:kimi-k2.5"]
SPECFORGE_UNIT = f"""[Unit]
Description=SpecForge job container (Kimi-K2.5 drafter data)
After=docker.service nvidia-persistenced.service
Requires=docker.service

[Service]
Environment=HF_TOKEN=hf_QmVyIHNlY3JldCB0b2tlbiBmb3IgdGVzdHM
ExecStartPre=-/usr/bin/docker rm -f specforge
ExecStart={" ".join(DOCKER_RUN)}
ExecStop=/usr/bin/docker stop specforge
Restart=always
RestartSec=10

[Install]
WantedBy=multi-user.target
"""


def specforge_container(root, launcher_start_s):
    """The story's server as it really ran: in the job's container, started
    by the image's start script (see SPECFORGE_ID)."""
    os.remove(os.path.join(root, "etc/systemd/system/multi-user.target.wants/sglang.service"))
    os.remove(os.path.join(root, "etc/systemd/system/sglang.service"))
    write(root, "etc/systemd/system/specforge.service", SPECFORGE_UNIT)
    symlink(root, "etc/systemd/system/multi-user.target.wants/specforge.service",
            "../specforge.service")
    proc(root, 2950, "containerd", ["/usr/bin/containerd"], 1, 0, 9.0,
         "/system.slice/containerd.service")
    proc(root, 3010, "dockerd", ["/usr/bin/dockerd", "-H", "fd://",
                                 "--containerd=/run/containerd/containerd.sock"], 1, 0, 10.0,
         "/system.slice/docker.service")
    proc(root, 3080, "docker", DOCKER_RUN, 1, 0, 29.0, "/system.slice/specforge.service")
    proc(root, 3100, "containerd-shim", ["/usr/bin/containerd-shim-runc-v2", "-namespace",
                                         "moby", "-id", SPECFORGE_ID, "-address",
                                         "/run/containerd/containerd.sock"], 1, 0, 29.9,
         "/system.slice/containerd.service")
    proc(root, 3120, "start.sh", ["/bin/bash", "/workspace/start.sh"], 3100, 0, 30.0,
         SPECFORGE_CG)
    proc(root, 3142, "sleep", ["sleep", "infinity"], 3120, 0, 30.1, SPECFORGE_CG)
    proc(root, LAUNCHER_PID, "python3", STORY_SGLANG_CMD, 3120, 0, launcher_start_s,
         SPECFORGE_CG, threads=64, vsize_kb=9800000, rss_kb=1900000)
    for r, pid in enumerate(SGLANG_PIDS):
        proc(root, pid, "sglang::scheduler", [f"sglang::scheduler_TP{r}"],
             LAUNCHER_PID, 0, launcher_start_s + 6.5 + 0.01 * r, SPECFORGE_CG, threads=140,
             vsize_kb=152000000, rss_kb=6100000)
    mount = lambda src, rw: {"Source": src, "Destination": src, "RW": rw, "Name": "",
                             "Driver": "", "Type": "bind", "Propagation": "rprivate",
                             "Spec": {"Type": "bind", "Source": src, "Target": src}}
    config = {
        "StreamConfig": {},
        "State": {"Running": True, "Paused": False, "Restarting": False, "OOMKilled": False,
                  "Dead": False, "Pid": 3120, "ExitCode": 0, "Error": "",
                  "StartedAt": "2026-01-01T00:00:30.041723519Z",
                  "FinishedAt": "0001-01-01T00:00:00Z", "Health": None},
        "ID": SPECFORGE_ID, "Created": "2026-01-01T00:00:29.812406215Z",
        "Managed": False, "Path": "/workspace/start.sh", "Args": [],
        "Config": {"Hostname": SPECFORGE_ID[:12], "User": "", "Tty": False,
                   "Env": ["HF_TOKEN=hf_QmVyIHNlY3JldCB0b2tlbiBmb3IgdGVzdHM",
                           "PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:"
                           "/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                           "NVIDIA_VISIBLE_DEVICES=all"],
                   "Cmd": ["/workspace/start.sh"], "Image": "specforge:kimi-k2.5",
                   "WorkingDir": "/workspace", "Entrypoint": None},
        "Image": "sha256:" + "4d2e" * 16, "Name": "/specforge", "RestartCount": 0,
        "Driver": "overlay2", "Platform": "linux",
        "MountPoints": {"/data": mount("/data", True), "/models": mount("/models", False)},
    }
    hostconfig = {
        "Binds": ["/data:/data", "/models:/models:ro"], "NetworkMode": "bridge",
        "PortBindings": {"30000/tcp": [{"HostIp": "", "HostPort": "30000"}]},
        "RestartPolicy": {"Name": "no", "MaximumRetryCount": 0}, "AutoRemove": True,
        "IpcMode": "host", "ShmSize": 68719476736, "Runtime": "runc",
        "DeviceRequests": [{"Driver": "", "Count": -1, "DeviceIDs": None,
                            "Capabilities": [["gpu"]], "Options": {}}],
    }
    d = f"var/lib/docker/containers/{SPECFORGE_ID}/"
    write(root, d + "config.v2.json", json.dumps(config, separators=(",", ":")))
    write(root, d + "hostconfig.json", json.dumps(hostconfig, separators=(",", ":")))


def story_entries():
    """The previous boot as the story's journal has it: the job's container
    started by its unit, then the storage stall."""
    return [journal_entry(PREV_START, "Linux version 6.1.0-28-amd64"),
            journal_entry(PREV_START + 30, "Started specforge.service - SpecForge job "
                          "container (Kimi-K2.5 drafter data).", "systemd", 1)
            ] + storm_entries()


def story(path):
    """make demo: incident-story's node (the Ceph pool under the VM filled
    up, writes paused, tasks hung and the VM was killed) as it really ran:
    the job's container made anew at boot by specforge.service, SGLang
    serving Kimi-K2.5 started in it by the image's start script 41 s after
    boot; driver 590.48.01, open module; with the disks of the morning after: /data migrated to a
    new 15.36 TB NVMe and mounted. scripts/demo adds the job's output on
    /data (37,312 samples planned, 18,400 written at 1.09 a second, intact)."""
    s = after_crash(path, launcher_start_s=41.0)
    root = os.path.join(path, "root")
    this_boot(root)
    fixture_clock(root, NOW)
    fixture_journal(root, story_entries())
    story_disks(root)
    specforge_container(root, 41.0)
    s["description"] = ("the story: the Ceph pool under the VM filled up (writes "
                        "paused, tasks hung) and the VM was killed; at boot specforge.service "
                        "made the job's container anew (docker run --rm), whose start script "
                        "started SGLang (Kimi-K2.5, TP 8) 41 s after boot; driver "
                        "590.48.01 throughout; /data migrated to a new 15.36 TB NVMe, "
                        "mounted")
    s.update(story_cuda_probe())
    # The incident's header read NVIDIA-SMI 565.57.01 under driver 590.48.01:
    # in the job's container the nvidia-smi first on PATH was the image's own
    # (built on a 565 node, in /usr/local/bin), while the container toolkit
    # mounts the driver's own as /usr/bin/nvidia-smi (R4); the VM has the
    # driver's. The container's files as the host reaches them:
    # /proc/<its PID 1>/root. Stand-ins carry the release as NVIDIA's binary
    # does, before "<NVSMIV".
    for rel, release in (("proc/3120/root/usr/local/bin/nvidia-smi", "565.57.01"),
                         ("proc/3120/root/usr/bin/nvidia-smi", "590.48.01"),
                         ("usr/bin/nvidia-smi", "590.48.01")):
        write(root, rel, b"\x7fELF stand-in for nvidia-smi\0<TIME STAMP\0" + release.encode()
              + b"\0<NVSMIV\0", binary=True)
        os.chmod(os.path.join(root, rel), 0o755)
    return s


def p2p_lost_vm(path):
    """The story's node after the hypervisor re-attached its GPUs (issue 38):
    pairs within a NUMA node share it (NODE), pairs across the two go over
    the CPU interconnect (SYS), every pair reads and writes peer to peer
    except GPUs 3 and 4, which lost it (chipset not supported): NCCL copies
    that pair's traffic through host memory."""
    s = story(path)
    dmi(os.path.join(path, "root"), "QEMU", "Standard PC (Q35 + ICH9, 2009)")
    ok = {"read": "ok", "write": "ok", "nvlink": "not_supported", "atomics": "not_supported"}
    pairs = {}
    for a in range(8):
        for b in range(a + 1, 8):
            if (a < 4) != (b < 4):
                pairs[f"{a},{b}"] = {"level": "system"}
    pairs["3,4"] = {"level": "system",
                    "p2p": {"read": "chipset_not_supported", "write": "chipset_not_supported"}}
    s["topology"] = {"default": {"level": "node", "p2p": ok}, "pairs": pairs}
    s["description"] = ("the story's VM after the hypervisor re-attached its GPUs: GPUs 3 "
                        "and 4 lost peer-to-peer (NVML: chipset not supported), every other "
                        "pair keeps it")
    return s


def incident_clean_reboot(path):
    s = healthy_h100x8(path)
    root = os.path.join(path, "root")
    this_boot(root)
    fixture_clock(root, NOW)
    fixture_journal(root, ordinary_entries() + [
        journal_entry(PREV_END - 20, "System is rebooting.", "systemd-logind", 1117,
                      MESSAGE_ID="98268866d1d54a499c4e98921d93bc40", SHUTDOWN="reboot"),
        journal_entry(PREV_END - 5, "Reached target System Reboot.", "systemd", 1),
        journal_entry(PREV_END, "Journal stopped", "systemd-journald", 402)])
    s["description"] = "the previous boot ended with a requested reboot"
    return s


PANIC_RECORD = (
    "Panic#1 Part1\n"
    "<4>[259100.311052] CPU: 17 PID: 0 Comm: swapper/17 Tainted: P           OE      "
    "6.1.0-28-amd64 #1  Debian 6.1.119-1\n"
    "<0>[259100.311310] Kernel panic - not syncing: Fatal exception in interrupt\n"
    "<0>[259100.311771] Kernel Offset: 0x2a000000 from 0xffffffff81000000\n"
    "<0>[259100.312004] ---[ end Kernel panic - not syncing: Fatal exception in interrupt ]---\n")


def incident_panic(path):
    s = healthy_h100x8(path)
    root = os.path.join(path, "root")
    this_boot(root)
    fixture_clock(root, NOW)
    fixture_journal(root, ordinary_entries() + [
        journal_entry(PREV_END - 2, "NVRM: Xid (PCI:0000:19:00): 79, pid=3190, "
                                    "name=python3, GPU has fallen off the bus.")])
    # efi-pstore names a record (seconds * 100 + part) * 1000 + count: the
    # name carries the time of the panic (the end of the previous boot).
    rel = f"var/lib/systemd/pstore/{PREV_END}/dmesg-efi-{PREV_END}01001"
    write(root, rel, PANIC_RECORD)
    set_mtime(root, rel, PREV_END)
    s["description"] = "the previous boot ended in a kernel panic (systemd-pstore kept it)"
    return s


def incident_clock_off(path):
    s = healthy_h100x8(path)
    root = os.path.join(path, "root")
    this_boot(root)
    fixture_clock(root, NOW, state=5, rtc=NOW - 7200, ntp_synced="no")
    fixture_command(root, "list-boots", JOURNAL_LIST_CMD, "", rc=1,
                    err="No journal files were found.\n")
    s["description"] = ("the clock is 2 hours off the RTC and unsynchronised; the journal "
                        "is missing")
    return s


def linked_pci(root, bdf, devpath):
    """Moves the plain folder sys/bus/pci/devices/<bdf> to its place on the
    PCI tree, sys/devices/<devpath>, and links it back as a live node does
    (its driver link made relative to the new place)."""
    bus_dir = os.path.join(root, "sys/bus/pci/devices", bdf)
    dest = os.path.join(root, "sys/devices", devpath)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.move(bus_dir, dest)
    symlink(root, f"sys/bus/pci/devices/{bdf}", f"../../../devices/{devpath}")
    driver = os.path.join(dest, "driver")
    if os.path.islink(driver):
        name = os.path.basename(os.readlink(driver))
        os.remove(driver)
        up = "../" * (len(devpath.split("/")) + 1)
        os.symlink(f"{up}bus/pci/drivers/{name}", driver)


def rdma_hca(root, name, bdf, devpath, numa, state, phys, rate):
    """A ConnectX-7 (single-port NDR InfiniBand) at sys/devices/<devpath>,
    laid out as the kernel does: the class link, the `device` link, ports."""
    pci_device(root, bdf, "0x15b3", "0x1021", "0x020700", "mlx5_core", 5, 16,
               numa=numa, sub=("0x15b3", "0x0041"))
    linked_pci(root, bdf, devpath)
    ib = f"sys/devices/{devpath}/infiniband/{name}"
    symlink(root, f"sys/class/infiniband/{name}", f"../../devices/{devpath}/infiniband/{name}")
    symlink(root, f"{ib}/device", f"../../../{bdf}")
    write(root, f"{ib}/board_id", "MT_0000000838\n")
    write(root, f"{ib}/fw_ver", "28.39.1002\n")
    write(root, f"{ib}/node_type", "1: CA\n")
    write(root, f"{ib}/ports/1/state", state + "\n")
    write(root, f"{ib}/ports/1/phys_state", phys + "\n")
    write(root, f"{ib}/ports/1/rate", rate + "\n")
    write(root, f"{ib}/ports/1/link_layer", "InfiniBand\n")


def rdma_port_down(path):
    """healthy-h100x8 as an HGX node for multi-node jobs (issue 38 item 5):
    each GPU and its NDR HCA under one PCIe switch (the real symlinked
    sysfs layout), mlx5_3's port down (Polling: no link), and
    nvidia_peermem not loaded under the proprietary module."""
    s = healthy_h100x8(path)
    root = os.path.join(path, "root")
    write(root, "proc/sys/kernel/osrelease", "6.1.0-28-amd64\n")
    for i, bus in enumerate(H100_BUSES):
        b = int(bus, 16)
        hb = b - 3
        top = f"pci0000:{hb:02x}/0000:{hb:02x}:01.0/0000:{hb + 1:02x}:00.0"
        linked_pci(root, f"0000:{b:02x}:00.0", f"{top}/0000:{hb + 2:02x}:00.0/0000:{b:02x}:00.0")
        nic = f"0000:{b + 1:02x}:00.0"
        down = i == 3
        rdma_hca(root, f"mlx5_{i}", nic, f"{top}/0000:{hb + 2:02x}:01.0/{nic}",
                 0 if i < 4 else 1, "1: DOWN" if down else "4: ACTIVE",
                 "2: Polling" if down else "5: LinkUp",
                 "10 Gb/sec (4X SDR)" if down else "400 Gb/sec (4X NDR)")
    s["description"] = (
        "healthy-h100x8 with 8 single-port NDR InfiniBand HCAs (mlx5_0-7), each "
        "under its GPU's PCIe switch: mlx5_3's port DOWN (phys Polling), and "
        "nvidia_peermem not loaded (proprietary module): GPUDirect RDMA off")
    return s


def stuck_gpu(path):
    """Issue 46: GPU 2 busy at 100% over the whole window with no process,
    no memory beyond the reserve and idle power: a kernel that never ends or
    a context whose process is gone (users report it: 100% with no process).
    The realism rule R3b accepts only this pattern of busy-without-process."""
    devs = h100x8("stuck-gpu")
    devs[2].update(utilization={"gpu": [100, 100, 100, 100], "memory": [0]},
                   power_draw_mw=76000)
    return h100_570(path, "stuck-gpu",
                    "8x H100; GPU 2 (4C:00.0) reads 100% busy over the window with no "
                    "process, 0 MiB used beyond the reserve and 76 W of 700 W: stuck", devs)


UPGRADE_FROM, UPGRADE_TO = "590.48.01", "595.45.04"


def upgrade_under_server(path):
    """Issue 46: the story's node after the driver's user space was upgraded
    to 595.45.04 without a reboot. The module is still 590.48.01, so NVML
    (595) is refused (R1); the SGLang server started before the upgrade
    still runs on the libcuda it mapped, now deleted on disk (its maps say
    "(deleted)"); a new job loads libcuda.so.595.45.04 and fails with 803."""
    root = os.path.join(path, "root")
    base_root(root, ["svc-llm:x:997:997:SGLang service:/var/lib/svc-llm:"
                     "/usr/sbin/nologin"], hostname="llm-rtxpro-03")
    nvidia_module(root, UPGRADE_FROM, userspace=UPGRADE_TO, open_module=True)
    gpu_pci_tree(root, CRASH_BUSES, "0x2bb5", ("0x10de", "0x204e"))
    init_proc(root)
    cg = "/system.slice/sglang.service"
    proc(root, LAUNCHER_PID, "python3", SGLANG_CMD, 1, 997, 41.0, cg,
         threads=64, vsize_kb=9800000, rss_kb=1900000)
    lib = f"/{LIB_DIR}/libcuda.so.{UPGRADE_FROM}"
    for r, pid in enumerate(SGLANG_PIDS):
        proc(root, pid, "sglang::scheduler", [f"sglang::scheduler_TP{r}"],
             LAUNCHER_PID, 997, 47.5 + 0.01 * r, cg, threads=140,
             vsize_kb=152000000, rss_kb=6100000)
        write(root, f"proc/{pid}/maps",
              "55d1c0a00000-55d1c0a21000 r--p 00000000 fd:01 131090                     "
              "/usr/bin/python3.12\n"
              "7f0a40000000-7f0a40200000 r-xp 00000000 fd:01 2883617                    "
              f"{lib} (deleted)\n"
              "7f0a40200000-7f0a40400000 r--p 00200000 fd:01 2883617                    "
              f"{lib} (deleted)\n")
    write(root, "etc/systemd/system/sglang.service", SGLANG_UNIT)
    # Each refused client (nvidia-smi after the upgrade) in the 575+ wording.
    kmsg(root, [(4, 86400000000,
                 f"NVRM: API mismatch: the client 'nvidia-smi' (pid 9121) has the version "
                 f"{UPGRADE_TO}, but this kernel module has the version {UPGRADE_FROM}.  "
                 "Please make sure that this kernel module and all NVIDIA driver components "
                 "have the same version.")])
    devs = [device("upgrade-under-server", i, bus,
                   "NVIDIA RTX PRO 6000 Blackwell Server Edition",
                   "0x2BB510DE", "0x204E10DE", 97887, 637, 600, 84, 34, 5,
                   1794125000118) for i, bus in enumerate(CRASH_BUSES)]
    s = scenario_json(
        "the story's node after an upgrade of the driver's user space to 595.45.04 "
        "without a reboot: module 590.48.01, NVML refused (LIB_RM_VERSION_MISMATCH); "
        "SGLang's schedulers still run on libcuda.so.590.48.01 (deleted); a new job "
        "would load libcuda.so.595.45.04 and fail with 803",
        "current", UPGRADE_TO, None, None, None, devs,
        init={"error": "LIB_RM_VERSION_MISMATCH", "latency_ms": 20})
    # NVIDIA's release notes give no CUDA version here that was checked; the
    # mock libcuda's value matters only to `gpu-triage cuda`, which fails first.
    s["cuda"] = {"library_version": UPGRADE_TO, "driver_version": 13020}
    return s


SCENARIOS = {
    "healthy-h100x8": healthy_h100x8,
    "pcie-aer-fatal": pcie_aer_fatal,
    "after-crash": after_crash,
    "no-driver": no_driver,
    "no-gpu": no_gpu,
    "driver-not-loaded": driver_not_loaded,
    "driverless-vm": driverless_vm,
    "driverless-metal": driverless_metal,
    "version-mismatch": version_mismatch,
    "one-gpu-hung": one_gpu_hung,
    "wedged-driver": wedged_driver,
    "one-gpu-lost": one_gpu_lost,
    "ecc-remap": ecc_remap,
    "pcie-downtrained": pcie_downtrained,
    "mig-enabled": mig_enabled,
    "old-driver-r470": old_driver_r470,
    "r535-records": r535_records,
    "desktop-gpu": desktop_gpu,
    "cuda-compat-datacenter": cuda_compat_datacenter,
    "cuda-compat-rtx": cuda_compat_rtx,
    "cuda-compat-older": cuda_compat_older,
    "two-vllm-tp4": two_vllm_tp4,
    "docker-restart": docker_restart,
    "recovery-reboot": recovery_reboot,
    "fabric-degraded": fabric_degraded,
    "nvlink-down": nvlink_down,
    "power-brake": power_brake,
    "thermal-margin": thermal_margin,
    "aggregate-dbe": aggregate_dbe,
    "incident-story": incident_story,
    "story": story,
    "p2p-lost-vm": p2p_lost_vm,
    "hgx-nvlink-tp8": hgx_nvlink_tp8,
    "numa-pinned-tp2": numa_pinned_tp2,
    "rdma-port-down": rdma_port_down,
    "incident-clean-reboot": incident_clean_reboot,
    "incident-panic": incident_panic,
    "incident-clock-off": incident_clock_off,
    "missing-mount": missing_mount,
    "repeat-xid79": repeat_xid79,
    "watch-timeline": watch_timeline,
    "stuck-gpu": stuck_gpu,
    "upgrade-under-server": upgrade_under_server,
}


# --------------------------------------------------------------------------
# CUDA readiness, device nodes and limits (issue 34 items 2-6, cuda-node).
# Device nodes are regular files standing for character devices (a tree
# cannot hold device nodes; sources/cuda/device_nodes.h), /dev/shm's size is
# .gt-fixture/dev-shm-bytes (sources/cuda/nccl_limits.h).

READY_SERVER_PID = 6100
READY_SITE = "opt/venv/lib/python3.12/site-packages"


def gpu_device_nodes(root, devs, uvm=True):
    """/dev/nvidiactl, /dev/nvidiaN and (uvm) /dev/nvidia-uvm{,-tools} as
    stand-in files, with the driver's per-GPU information (minors 0..n-1)."""
    for rel in ["dev/nvidiactl"] + [f"dev/nvidia{i}" for i in range(len(devs))] + (
            ["dev/nvidia-uvm", "dev/nvidia-uvm-tools"] if uvm else []):
        write(root, rel, "")
    driver_information(root, H100_BUSES, "NVIDIA H100 80GB HBM3",
                       [d["uuid"] for d in devs])


def busy_tp8_server(root, devs, site_packages=True):
    """An SGLang server (TP 8, busy) on the 8 GPUs: launcher 6100, one
    scheduler per GPU; each scheduler maps torch's libtorch_cuda.so from
    /opt/venv, and /proc/PID/root is the tree."""
    init_proc(root)
    cg = "/system.slice/sglang.service"
    argv = ["/opt/venv/bin/python", "-m", "sglang.launch_server",
            "--model-path", "/models/Qwen3-32B", "--tp", "8", "--port", "30000"]
    proc(root, READY_SERVER_PID, "python", argv, 1, 0, 20.0, cg, threads=64)
    for r, d in enumerate(devs):
        pid = READY_SERVER_PID + 1 + r
        proc(root, pid, "sglang::scheduler", [f"sglang::scheduler_TP{r}"],
             READY_SERVER_PID, 0, 26.0 + 0.01 * r, cg, threads=140)
        symlink(root, f"proc/{pid}/root", "/")
        if site_packages:
            write(root, f"proc/{pid}/maps",
                  "7f0a40000000-7f0a48000000 r-xp 00000000 fd:01 2883617    "
                  f"/{READY_SITE}/torch/lib/libtorch_cuda.so\n")
        busy(d, 95, 560, 62)
        d["processes"] = [{"pid": pid, "used_mib": 70123, "type": "compute",
                           "name": f"sglang::scheduler_TP{r}"}]


def ready_base(path, name):
    """healthy-h100x8 (R550, CUDA 12.4), its GPUs named for `name`."""
    s = healthy_h100x8(path)
    root = os.path.join(path, "root")
    devs = s["devices"]
    for i, d in enumerate(devs):
        d["uuid"] = gpu_uuid(name, i)
    return s, root, devs


def cuda_no_uvm(path):
    s, root, devs = ready_base(path, "cuda-no-uvm")
    write(root, ".dockerenv", "")
    gpu_device_nodes(root, devs, uvm=False)
    write(root, "proc/modules",
          "nvidia_drm 122880 0 - Live 0x0000000000000000\n"
          "nvidia_modeset 1638400 1 nvidia_drm, Live 0x0000000000000000\n"
          "nvidia 104857600 1 nvidia_modeset, Live 0x0000000000000000\n")
    s["description"] = ("healthy-h100x8 seen from a container started before "
                        "the host loaded nvidia-uvm: /dev/nvidiactl and "
                        "/dev/nvidia0-7 are there, /dev/nvidia-uvm is not, "
                        "nvidia_uvm is not in /proc/modules: NVML answers, "
                        "CUDA would fail (999/100)")
    return s


def cuda_exclusive_held(path):
    s, root, devs = ready_base(path, "cuda-exclusive-held")
    init_proc(root)
    proc(root, 4711, "python3", ["python3", "train.py"], 1, 0, 30.0,
         "/user.slice/user-0.slice/session-1.scope", threads=40)
    devs[0]["compute_mode"] = 3  # NVML_COMPUTEMODE_EXCLUSIVE_PROCESS
    busy(devs[0], 97, 600, 64)
    devs[0]["processes"] = [{"pid": 4711, "used_mib": 60211, "type": "compute",
                             "name": "python3"}]
    s["description"] = ("healthy-h100x8 with GPU 0 in compute mode "
                        "EXCLUSIVE_PROCESS and a training process on it: a "
                        "new process cannot open GPU 0")
    return s


def cuda_torch_newer(path):
    s, root, devs = ready_base(path, "cuda-torch-newer")
    busy_tp8_server(root, devs)
    write(root, f"{READY_SITE}/torch/version.py",
          "from typing import Optional\n\n__all__ = ['__version__', 'debug', "
          "'cuda', 'git_version', 'hip']\n__version__ = '2.7.0+cu128'\n"
          "debug = False\ncuda: Optional[str] = '12.8'\n"
          "git_version = '134179474539648ba7dee1317959529fbd0e7f89'\n"
          "hip: Optional[str] = None\n")
    s["description"] = ("healthy-h100x8 on R550 (CUDA 12.4) running an SGLang "
                        "server (TP 8) whose torch 2.7.0+cu128 was built for "
                        "CUDA 12.8: minor-version compatibility only")
    return s


def nccl_shm_64m(path):
    s, root, devs = ready_base(path, "nccl-shm-64m")
    write(root, ".dockerenv", "")
    busy_tp8_server(root, devs, site_packages=False)
    write(root, ".gt-fixture/dev-shm-bytes", f"{64 * 1024 * 1024}\n")
    s["description"] = ("healthy-h100x8 in a container with Docker's default "
                        "64 MiB /dev/shm under an SGLang server of TP 8")
    return s


SCENARIOS_CUDA_NODE = {
    "cuda-no-uvm": cuda_no_uvm,
    "cuda-exclusive-held": cuda_exclusive_held,
    "cuda-torch-newer": cuda_torch_newer,
    "nccl-shm-64m": nccl_shm_64m,
}


def drop_none_top(s):
    return {k: v for k, v in s.items()
            if v is not None or k not in ("driver_version", "nvml_version",
                                          "cuda_driver_version")}


def with_module_version(s, path):
    """The loaded kernel module's release, as the root's sysfs says: the
    mock NVML refuses a library of another release (LIB_RM_VERSION_MISMATCH)
    and the mock libcuda fails cuInit (803), as the real module does."""
    try:
        with open(os.path.join(path, "root/sys/module/nvidia/version")) as f:
            version = f.read().strip()
    except OSError:
        return s
    out = {}
    for k, v in s.items():
        out[k] = v
        if k == "library_version":
            out["module_version"] = version
    out.setdefault("module_version", version)
    return out


def main():
    for name, fn in {**SCENARIOS, **SCENARIOS_CUDA_NODE}.items():
        path = os.path.join(HERE, name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        s = with_module_version(drop_none_top(fn(path)), path)
        with open(os.path.join(path, "scenario.json"), "w") as f:
            json.dump(s, f, indent=2)
            f.write("\n")
    path = os.path.join(HERE, "malformed")
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    with open(os.path.join(path, "scenario.json"), "w") as f:
        f.write(MALFORMED)
    path = os.path.join(HERE, "empty-root")
    shutil.rmtree(path, ignore_errors=True)
    base_root(path)


if __name__ == "__main__":
    main()
