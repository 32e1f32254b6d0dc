#!/usr/bin/env python3
"""The realism check: every scenario is a state a real node can be in.

Each rule is one function reading a scenario (scenario.json and its root/
tree) and returning the ways the scenario breaks it. The rules and their
sources are in docs/physics.md (NVIDIA's kernel-module source, NVML and CUDA
documentation, public issue threads). A scenario that must break a rule on
purpose (a parser case, a fuzz seed) names the rule and its reason in
"physics_exempt": {"R3": "why"}; "*" exempts it from every rule.

    tests/scenarios/realism.py                 every scenario under tests/scenarios
    tests/scenarios/realism.py DIR...          the scenarios given
    tests/scenarios/realism.py --self-test     each rule against a planted violation

Exit 0 when every scenario passes, 1 when one breaks a rule (one line per
breach: scenario, rule, what), 2 for a usage error. stdlib only.
"""

import copy
import json
import os
import re
import shutil
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# R5: the CUDA version (cuDriverGetVersion) each driver branch's libcuda
# reports. docs/physics.md cites each pairing.
CUDA_OF_BRANCH = {470: 11040, 535: 12020, 550: 12040, 565: 12070, 570: 12080,
                  580: 13000, 590: 13010}

LIB_DIRS = ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu", "usr/lib64", "usr/lib")
RELEASE = re.compile(r"^(\d+)\.\d+(\.\d+)?$")
ARCH = r"(?:x86_64|aarch64|ppc64le)"
OPEN_BANNER = re.compile(
    r"NVIDIA UNIX Open Kernel Module for " + ARCH + r"  (\S+)  Release Build  \(\S+\)  .+")
PROPRIETARY_BANNER = re.compile(
    r"NVIDIA UNIX " + ARCH + r" Kernel Module  (\S+)  (?!Release Build)\w{3} \w{3} .+")
# Blackwell device ids (GB100/GB102: 0x29xx, GB202/GB203/GB205/GB206/GB207:
# 0x2Bxx-0x2Fxx), as the PCI id database lists them, beside the names.
BLACKWELL_NAME = re.compile(r"Blackwell|\b(?:G?B[123]00|GB[23]00)\b|RTX 50[0-9]0")


class Scenario:
    """scenario.json as a dict and the root/ tree it comes with (or None)."""

    def __init__(self, name, data, root):
        self.name, self.data, self.root = name, data, root

    @classmethod
    def load(cls, path):
        path = path.rstrip("/")
        json_path = path if path.endswith(".json") else os.path.join(path, "scenario.json")
        base = os.path.dirname(json_path)
        with open(json_path, encoding="utf-8") as f:
            data = json.load(f)
        root = os.path.join(base, "root")
        return cls(os.path.basename(base), data, root if os.path.isdir(root) else None)

    def read(self, rel):
        if not self.root:
            return None
        try:
            with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return None

    def devices(self):
        d = self.data.get("devices")
        return [x for x in d if isinstance(x, dict)] if isinstance(d, list) else []

    def module_version(self):
        v = self.read("sys/module/nvidia/version")
        return v.strip() if v else None

    def nvml_initialises(self):
        init = self.data.get("init") or {}
        return (self.data.get("library_variant") != "none" and not init.get("hang")
                and init.get("error") in (None, "SUCCESS"))

    def environ(self, pid):
        text = self.read(f"proc/{pid}/environ") or ""
        return dict(e.split("=", 1) for e in text.split("\0") if "=" in e)

    def ppid(self, pid):
        m = re.search(r"^PPid:\s*(\d+)", self.read(f"proc/{pid}/status") or "", re.M)
        return int(m.group(1)) if m else None


def branch(release):
    m = RELEASE.match(release or "")
    return int(m.group(1)) if m else None


def release_of(name, base):
    m = re.match(re.escape(base) + r"\.(\d+\.\d+(?:\.\d+)?)$", name)
    return m.group(1) if m else None


def resolve(s, path):
    """A path of the node resolved inside the root (links followed there)."""
    full = os.path.join(s.root, path.lstrip("/"))
    for _ in range(16):
        if not os.path.islink(full):
            return full if os.path.exists(full) else None
        target = os.readlink(full)
        full = (os.path.join(s.root, target.lstrip("/")) if target.startswith("/")
                else os.path.normpath(os.path.join(os.path.dirname(full), target)))
    return None


def ld_so_cache_entries(s):
    """(soname, path) pairs of the root's /etc/ld.so.cache (glibc's new format)."""
    if not s.root:
        return []
    try:
        with open(os.path.join(s.root, "etc/ld.so.cache"), "rb") as f:
            blob = f.read()
    except OSError:
        return []
    if not blob.startswith(b"glibc-ld.so.cache1.1"):
        return []
    n = struct.unpack_from("<I", blob, 20)[0]

    def cstr(off):
        return blob[off:blob.index(b"\0", off)].decode(errors="replace")
    out = []
    for i in range(min(n, 4096)):
        _, key, value, _, _ = struct.unpack_from("<iIIIQ", blob, 48 + 24 * i)
        out.append((cstr(key), cstr(value)))
    return out


def loader_libcuda(s):
    """(release, is_compat) of the libcuda.so.1 the loader finds first, or None."""
    if not s.root:
        return None
    candidates = [p for so, p in ld_so_cache_entries(s) if so == "libcuda.so.1"]
    candidates += ["/" + d + "/libcuda.so.1" for d in LIB_DIRS]
    for path in candidates:
        real = resolve(s, path)
        if real:
            rel = release_of(os.path.basename(real), "libcuda.so")
            return (rel, "/compat/" in path or "/compat/" in real) if rel else None
    return None


def libcuda_files(s):
    """Every libcuda.so.RELEASE file of the tree (outside proc and sys)."""
    found = []
    if not s.root:
        return found
    for top, dirs, files in os.walk(s.root):
        rel_top = os.path.relpath(top, s.root)
        if rel_top.split(os.sep)[0] in ("proc", "sys", "dev", ".gt-fixture"):
            dirs[:] = []
            continue
        for f in files:
            r = release_of(f, "libcuda.so")
            if r:
                found.append(("/" + os.path.join(rel_top, f).lstrip("./"), r))
    return found


def mapped_libcuda(s, pid):
    """(path, release, deleted) of the libcuda pid maps, or None."""
    for line in (s.read(f"proc/{pid}/maps") or "").splitlines():
        m = re.search(r"(/\S*libcuda\.so\.(\d+\.\d+(?:\.\d+)?))( \(deleted\))?$", line)
        if m:
            return m.group(1), m.group(2), bool(m.group(3))
    return None


def forward_compat_gpu(name):
    """NVIDIA's forward compatibility: data-center boards only (R2)."""
    return not re.search(r"GeForce|TITAN|RTX|Quadro", name or "")


def gpu_processes(d):
    p = d.get("processes")
    return [x for x in p if isinstance(x, dict)] if isinstance(p, list) else []


def samples(v):
    if isinstance(v, list):
        return [x for x in v if isinstance(x, (int, float))]
    return [v] if isinstance(v, (int, float)) else []


def answers(d):
    return not d.get("lost") and not d.get("hang_in") and not d.get("handle_error")


# --------------------------------------------------------------------------
# The rules. Each returns a list of breaches (strings).

def r1_nvml_is_the_modules_release(s):
    """R1: the module rejects a client of any other version; NVML answers
    only at the module's exact release, and then reports it as the driver's."""
    out = []
    mod = s.module_version()
    declared = s.data.get("module_version")
    if declared and mod and declared != mod:
        out.append(f"module_version {declared} is not the root's /sys/module/nvidia/version {mod}")
    mod = mod or declared
    lib = s.data.get("library_version")
    if not mod or s.data.get("library_variant") == "none":
        return out
    if s.nvml_initialises():
        if lib and lib != mod:
            out.append(f"NVML library {lib} answers under kernel module {mod}")
        drv = s.data.get("driver_version")
        if drv and drv != mod:
            out.append(f"NVML reports driver {drv} under kernel module {mod}")
    elif lib and lib != mod and (s.data.get("init") or {}).get("error") not in (
            "LIB_RM_VERSION_MISMATCH", None) and not (s.data.get("init") or {}).get("hang"):
        out.append(f"NVML library {lib} under module {mod} fails with "
                   f"{s.data['init']['error']}, not LIB_RM_VERSION_MISMATCH")
    return out


def r3_memory_proves_libcuda(s):
    """R2/R3: a process holding GPU memory through CUDA has a libcuda that
    passed cuInit against this module: the module's release (or a newer
    forward-compatibility one on a data-center GPU)."""
    mod = s.module_version() or s.data.get("module_version")
    files = libcuda_files(s)
    if not mod or not files:
        return []
    out = []
    for i, d in enumerate(s.devices()):
        for p in gpu_processes(d):
            if "compute" not in str(p.get("type", "compute")) or not p.get("used_mib"):
                continue
            mapped = mapped_libcuda(s, p.get("pid"))
            if mapped:
                works = mapped[1] == mod or (
                    "/compat/" in mapped[0] and branch(mapped[1]) > branch(mod)
                    and forward_compat_gpu(d.get("name")))
                what = f"maps {mapped[0]}"
            else:
                loader = loader_libcuda(s)
                works = bool(loader) and (loader[0] == mod or (
                    loader[1] and branch(loader[0]) > branch(mod)
                    and forward_compat_gpu(d.get("name"))))
                what = f"the loader finds libcuda {loader[0] if loader else 'none'}"
            if not works:
                out.append(f"pid {p.get('pid')} holds {p['used_mib']} MiB on GPU {i} "
                           f"but {what}, which cannot initialise under module {mod}")
    return out


def r3_kernels_need_a_context(s):
    """R3: utilisation is kernels running, kernels run in a context, a context
    holds memory and is listed. The one real exception users report is a
    stuck GPU: busy with no process at near-idle power."""
    out = []
    for i, d in enumerate(s.devices()):
        if not answers(d) or d.get("mig_devices"):
            continue
        # The device as it starts, then as each timeline step leaves it.
        states = [d]
        for step in d.get("timeline") or []:
            if isinstance(step, dict) and isinstance(step.get("set"), dict):
                states.append({**states[-1], **step["set"]})
        for st in states:
            util = samples((st.get("utilization") or {}).get("gpu"))
            limit = st.get("power_limit_mw") or 0
            draw = st.get("power_draw_mw") or 0
            if util and max(util) > 0 and limit and draw >= 0.3 * limit and not gpu_processes(st):
                out.append(f"GPU {i} at {max(util)}% and {draw // 1000} W with no process "
                           "holding memory")
                break
    return out


def r4_nvml_cuda_is_the_loaders_libcuda(s):
    """R4/R5: NVML's CUDA version is cuDriverGetVersion of the libcuda the
    loader finds (compat included)."""
    loader = loader_libcuda(s)
    want = CUDA_OF_BRANCH.get(branch(loader[0])) if loader else None
    out = []
    got = s.data.get("cuda_driver_version")
    if want and got and s.nvml_initialises() and got != want:
        out.append(f"NVML reports CUDA {got} but the loader's libcuda {loader[0]} is {want}")
    cuda = s.data.get("cuda") if isinstance(s.data.get("cuda"), dict) else {}
    if loader and loader[1] and cuda.get("library_version") != loader[0]:
        out.append(f"the tree's loader finds the compat libcuda {loader[0]}, which the mock "
                   "libcuda (the scenario's cuda block) is not")
    elif loader and cuda.get("library_version") and cuda["library_version"] != loader[0]:
        out.append(f"the mock libcuda is {cuda['library_version']}, the tree's loader finds "
                   f"{loader[0]}")
    if want and cuda.get("driver_version") and cuda["driver_version"] != want:
        out.append(f"the mock libcuda reports CUDA {cuda['driver_version']}, release "
                   f"{loader[0]} is {want}")
    return out


def r6_module_banner(s):
    """R6/D1: the banner is one of the two flavours NVIDIA builds, of the
    loaded version; Blackwell boards need the open one."""
    banner = s.read("proc/driver/nvidia/version")
    mod = s.module_version()
    if not banner or not mod:
        return []
    first = banner.splitlines()[0] if banner.splitlines() else ""
    m_open, m_prop = OPEN_BANNER.search(first), PROPRIETARY_BANNER.search(first)
    out = []
    if not (m_open or m_prop):
        out.append(f"/proc/driver/nvidia/version is neither flavour: {first[:90]}")
    elif (m_open or m_prop).group(1) != mod:
        out.append(f"the banner's version is not the module's {mod}")
    for line in (s.read("dev/kmsg") or "").splitlines():
        if "NVRM: loading NVIDIA UNIX" in line:
            text = line.split(";", 1)[-1].replace("NVRM: loading ", "")
            if not (OPEN_BANNER.search(text) or PROPRIETARY_BANNER.search(text)):
                out.append(f"kmsg's module line is neither flavour: {text[:90]}")
            elif bool(OPEN_BANNER.search(text)) != bool(m_open):
                out.append("kmsg's module line and /proc/driver/nvidia/version differ in flavour")
    blackwell = [i for i, d in enumerate(s.devices())
                 if BLACKWELL_NAME.search(d.get("name") or "")
                 or re.match(r"0x2[9B-F][0-9A-F]{2}10DE$", str((d.get("pci") or {}).get(
                     "device_id", "")), re.I)]
    if blackwell and not m_open:
        out.append(f"GPU {blackwell[0]} is Blackwell, which needs the open kernel module")
    return out


def r7_api_lock_is_global(s):
    """R7: a task waiting for the RM API lock blocks every client on every GPU."""
    if not s.root or not os.path.isdir(os.path.join(s.root, "proc")):
        return []
    waiting = []
    for pid in os.listdir(os.path.join(s.root, "proc")):
        stack = s.read(f"proc/{pid}/stack") if pid.isdigit() else None
        if stack and "rmapiLockAcquire" in stack:
            waiting.append(pid)
    if not waiting or (s.data.get("init") or {}).get("hang"):
        return []
    answering = [i for i, d in enumerate(s.devices()) if answers(d)]
    if answering:
        return [f"pid {waiting[0]} waits for the RM API lock while GPUs "
                f"{','.join(map(str, answering))} answer"]
    return []


def r8_no_pcie_error_recovery(s):
    """R8: a fatal error at a bridge resets the link below it; nvidia.ko has no
    error handler, so the GPUs below it are lost."""
    if not s.root:
        return []
    out = []
    devices_dir = os.path.join(s.root, "sys/bus/pci/devices")
    if not os.path.isdir(devices_dir):
        return []
    for bdf in sorted(os.listdir(devices_dir)):
        fatal = s.read(f"sys/bus/pci/devices/{bdf}/aer_dev_fatal") or ""
        m = re.search(r"TOTAL_ERR_FATAL (\d+)", fatal)
        if not m or int(m.group(1)) == 0:
            continue
        below = os.path.realpath(os.path.join(devices_dir, bdf))
        for i, d in enumerate(s.devices()):
            gbus = (d.get("pci") or {}).get("bus_id", "")[-12:].lower()
            gpu = os.path.realpath(os.path.join(devices_dir, gbus)) if gbus else ""
            if gpu.startswith(below + os.sep) and answers(d):
                out.append(f"GPU {i} answers below {bdf}, which counted a fatal error")
    return out


def r9_lost_link_reads_unknown(s):
    """R9: the link attributes are read live; a GPU off the bus reads all-ones."""
    out = []
    for i, d in enumerate(s.devices()):
        if not d.get("lost"):
            continue
        bus = (d.get("pci") or {}).get("bus_id", "")[-12:].lower()
        speed = s.read(f"sys/bus/pci/devices/{bus}/current_link_speed")
        if speed and "GT/s" in speed:
            out.append(f"lost GPU {i}'s current_link_speed reads {speed.strip()}")
    return out


def r10_full_pool_pauses_writes(s):
    """R10: a Ceph pool (or a thin pool) that fills up pauses writes: a
    scenario whose description says the storage under the VM filled up shows
    hung tasks in its journal, never write I/O errors or a read-only remount."""
    text = s.data.get("description", "") if isinstance(s.data, dict) else ""
    if not re.search(r"(Ceph|pool|storage under the VM)[^;]*fill(ed)? up", text):
        return []
    journal = s.read(".gt-fixture/commands/previous-boot.out") or ""
    out = []
    if re.search(r"I/O error, dev \S+, sector \d+ op 0x1:\(WRITE\)", journal):
        out.append("write I/O errors in the journal of a pool that filled up (it pauses writes)")
    if "Remounting filesystem read-only" in journal:
        out.append("a read-only remount in the journal of a pool that filled up")
    if "blocked for more than" not in journal:
        out.append("no hung task in the journal of a pool that filled up")
    return out


def r15_later_gpus_need_visible_devices(s):
    """R15: without CUDA_VISIBLE_DEVICES a job of N GPUs takes CUDA's first N."""
    by_pid = {}
    for i, d in enumerate(s.devices()):
        for p in gpu_processes(d):
            if p.get("gpu_instance_id") is None and "compute" in str(p.get("type", "compute")):
                by_pid.setdefault(p.get("pid"), set()).add(i)
    groups = {}
    for pid, gpus in by_pid.items():
        groups.setdefault(s.ppid(pid) or pid, set()).update(gpus)
    out = []
    for leader, gpus in groups.items():
        if sorted(gpus) == list(range(len(gpus))):
            continue
        pids = [p for p in by_pid if (s.ppid(p) or p) == leader] + [leader]
        env = {}
        for p in pids:
            env.update(s.environ(p))
        cgroup = " ".join(s.read(f"proc/{p}/cgroup") or "" for p in pids)
        if ("CUDA_VISIBLE_DEVICES" in env or "NVIDIA_VISIBLE_DEVICES" in env
                or re.search(r"docker-|libpod-|cri-containerd|kubepods", cgroup)):
            continue
        out.append(f"processes of {leader} sit on GPUs {sorted(gpus)} without "
                   "CUDA_VISIBLE_DEVICES")
    return out


def r16_geforce(s):
    """R16: a GeForce board reports its fan, has no MIG, idles in P5/P8."""
    out = []
    for i, d in enumerate(s.devices()):
        if "GeForce" not in (d.get("name") or ""):
            continue
        if d.get("fan_speed_pct") is None:
            out.append(f"GeForce GPU {i} has no fan reading")
        if isinstance(d.get("mig_mode"), dict):
            out.append(f"GeForce GPU {i} answers a MIG mode")
        util = samples((d.get("utilization") or {}).get("gpu"))
        if util and max(util) == 0 and d.get("pstate") == 0:
            out.append(f"GeForce GPU {i} idles in P0")
    return out


def d2_fields_of_later_branches(s):
    """D2: the recovery action (field 230) and the thermal margin are R570+."""
    major = branch(s.data.get("driver_version"))
    if not major or major >= 570:
        return []
    return [f"GPU {i} answers {k} on R{major}" for i, d in enumerate(s.devices())
            for k in ("recovery_action", "margin_temperature_c") if k in d]


RULES = {
    "R1": r1_nvml_is_the_modules_release,
    "R3": r3_memory_proves_libcuda,
    "R3b": r3_kernels_need_a_context,
    "R4": r4_nvml_cuda_is_the_loaders_libcuda,
    "R6": r6_module_banner,
    "R7": r7_api_lock_is_global,
    "R8": r8_no_pcie_error_recovery,
    "R9": r9_lost_link_reads_unknown,
    "R10": r10_full_pool_pauses_writes,
    "R15": r15_later_gpus_need_visible_devices,
    "R16": r16_geforce,
    "D2": d2_fields_of_later_branches,
}


def check(s):
    """(rule, breach) pairs for scenario `s`, exemptions applied."""
    exempt = s.data.get("physics_exempt") if isinstance(s.data, dict) else None
    exempt = exempt if isinstance(exempt, dict) else {}
    out = []
    for rule, fn in RULES.items():
        if rule in exempt or "*" in exempt:
            continue
        out.extend((rule, b) for b in fn(s))
    return out


def scenario_dirs(args):
    if args:
        return args
    return sorted(os.path.join(HERE, n) for n in os.listdir(HERE)
                  if os.path.isfile(os.path.join(HERE, n, "scenario.json")))


def load_or_exempt(path):
    """A scenario, or None for a file that is not a JSON object: a parser
    case, which must then say so in its name (malformed)."""
    try:
        return Scenario.load(path)
    except (ValueError, RecursionError):
        return None


# --------------------------------------------------------------------------
# --self-test: each rule against a planted violation in a copy of a scenario
# that passes, and the copy unplanted passes.

def plant(name, fn):
    def run(tmp):
        src = os.path.join(HERE, name)
        dst = os.path.join(tmp, name)
        shutil.copytree(src, dst, symlinks=True)
        s = Scenario.load(dst)
        fn(s)
        return s
    return run


def _write(s, rel, text):
    path = os.path.join(s.root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.islink(path):
        os.remove(path)
    with open(path, "w") as f:
        f.write(text)


def _old_libcuda(s):
    lib = os.path.join(s.root, "usr/lib/x86_64-linux-gnu")
    for f in os.listdir(lib):
        if f.startswith("libcuda.so."):
            os.remove(os.path.join(lib, f))
    _write(s, "usr/lib/x86_64-linux-gnu/libcuda.so.565.57.01", "stand-in\n")
    os.symlink("libcuda.so.565.57.01", os.path.join(lib, "libcuda.so.1"))


def _busy_no_process(s):
    d = s.devices()[0]
    d["utilization"] = {"gpu": [95, 97], "memory": [40]}
    d["power_draw_mw"] = 610000
    d["processes"] = []


def _geforce_p0(s):
    d = s.devices()[0]
    d["pstate"] = 0


PLANTED = {
    "R1": plant("healthy-h100x8", lambda s: s.data.update(library_version="535.183.01")),
    "R3": plant("cuda-torch-newer", _old_libcuda),
    "R3b": plant("healthy-h100x8", _busy_no_process),
    "R4": plant("healthy-h100x8", lambda s: s.data.update(cuda_driver_version=12080)),
    "R6": plant("story", lambda s: _write(
        s, "proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  590.48.01  Thu Dec 18 10:00:00 UTC "
        "2025\n")),
    "R7": plant("healthy-h100x8", lambda s: _write(
        s, "proc/4242/stack", "[<0>] rmapiLockAcquire+0x294/0x360 [nvidia]\n")),
    "R8": plant("pcie-aer-fatal", lambda s: [d.pop("lost", None) for d in s.devices()]),
    "R9": plant("one-gpu-lost", lambda s: _write(
        s, "sys/bus/pci/devices/0000:5d:00.0/current_link_speed", "32.0 GT/s PCIe\n")),
    "R10": plant("incident-story", lambda s: _write(
        s, ".gt-fixture/commands/previous-boot.out",
        (s.read(".gt-fixture/commands/previous-boot.out") or "") + json.dumps(
            {"__REALTIME_TIMESTAMP": "1767225000000000", "MESSAGE":
             "I/O error, dev vdb, sector 8 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio class 0",
             "SYSLOG_IDENTIFIER": "kernel", "_TRANSPORT": "kernel"}) + "\n")),
    "R15": plant("numa-pinned-tp2", lambda s: _write(s, "proc/5102/environ", "LANG=C\0")
                 or _write(s, "proc/5101/environ", "LANG=C\0")
                 or _write(s, "proc/5100/environ", "LANG=C\0")),
    "R16": plant("desktop-gpu", _geforce_p0),
    "D2": plant("healthy-h100x8", lambda s: [d.update(recovery_action=0) for d in s.devices()]),
}


def self_test():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for rule in RULES:
            if rule not in PLANTED:
                failures.append(f"{rule}: no planted violation")
                continue
            s = PLANTED[rule](os.path.join(tmp, rule))
            base = Scenario.load(os.path.join(HERE, s.name))
            if any(r == rule for r, _ in check(base)):
                failures.append(f"{rule}: its base scenario {s.name} already breaks it")
            if not any(r == rule for r, _ in check(s)):
                failures.append(f"{rule}: the planted violation in {s.name} passed")
            exempted = copy.deepcopy(s)
            exempted.data["physics_exempt"] = {rule: "planted"}
            if any(r == rule for r, _ in check(exempted)):
                failures.append(f"{rule}: an exemption did not exempt it")
    for f in failures:
        print("realism self-test: " + f)
    print(f"realism self-test: {len(RULES)} rules, {len(failures)} failures")
    return 1 if failures else 0


def main(argv):
    if argv[:1] == ["--self-test"]:
        return self_test()
    if any(a.startswith("-") for a in argv):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    bad = 0
    for path in scenario_dirs(argv):
        s = load_or_exempt(path)
        if s is None:
            if os.path.basename(path.rstrip("/")) != "malformed":
                print(f"{path}: not a JSON object and not named malformed")
                bad += 1
            continue
        for rule, what in check(s):
            print(f"{s.name}: {rule}: {what}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
