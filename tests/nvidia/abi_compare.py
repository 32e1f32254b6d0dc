#!/usr/bin/env python3
"""Compares our NVML ABI with NVIDIA's, item by item.

    abi_compare.py OURS THEIRS HEADER

OURS: gt_abi_probe's output (our nvml_types.h and what NvmlLibrary asks
for); THEIRS: abi_probe built against NVIDIA's nvml.h; HEADER: 1108 or 1204,
the header THEIRS came from. Prints every difference naming the item and
exits 1 if there is one. Prototypes compare by ABI shape
(nvml_abi_desc.h) with two allowances, both without effect on the calling
convention or the bytes written: a 4-byte enum where we use a 4-byte int
(nvmlReturn_t, nvmlEnableState_t, ...), and void* where NVIDIA names a
struct pointer (the process and fabric calls take versioned structs whose
size we choose at run time).
"""
import sys


def read(path):
    values, tagged, wanted = {}, {}, {}
    with open(path) as f:
        for raw in f:
            key, _, value = raw.rstrip("\n").partition("\t")
            if key in ("in1108", "in1204"):
                tagged.setdefault(key, set()).add(value)
            elif key.startswith("wanted "):
                wanted.setdefault(key[len("wanted "):], value)
            else:
                values[key] = value
    return values, tagged, wanted


def parse(desc, i=0):
    """Parses one type descriptor at desc[i:]; returns (node, next index).
    A node is (head, [children]): "p" with one child, "a<n>" with one child,
    "fn:<ret>" for functions, or a leaf like "u4", "e4", "S68", "opaque"."""
    j = i
    while j < len(desc) and desc[j] not in "(),":
        j += 1
    head = desc[i:j]
    if j < len(desc) and desc[j] == "(":
        children = []
        j += 1
        while desc[j] != ")":
            child, j = parse(desc, j)
            children.append(child)
            if desc[j] == ",":
                j += 1
        j += 1
        return (head, children), j
    return (head, []), j


INT4 = {"e4", "s4", "u4"}


def same_head(ours, theirs):
    if ours == theirs:
        return True
    if ours in INT4 and theirs in INT4 and "e4" in (ours, theirs):
        return True
    if ours.startswith("k") and theirs.startswith("k"):
        return same_head(ours[1:], theirs[1:])
    return False


def same(ours, theirs):
    (oh, oc), (th, tc) = ours, theirs
    if oh == "p" and th == "p" and oc == [("v", [])]:
        return True
    return same_head(oh, th) and len(oc) == len(tc) and all(same(a, b) for a, b in zip(oc, tc))


def same_desc(ours, theirs):
    try:
        return same(parse(ours)[0], parse(theirs)[0])
    except (IndexError, ValueError):
        return ours == theirs


def main():
    ours, tagged, wanted = read(sys.argv[1])
    theirs, _, _ = read(sys.argv[2])
    header = sys.argv[3]
    label = {"1108": "nvml.h 11.8", "1204": "nvml.h 12.4"}[header]
    expected = tagged.get("in" + header, set())
    problems = []

    # The list of entry points must be the list the tool really asks for.
    listed = {k[len("listed fn "):] for k in ours if k.startswith("listed fn ")}
    called = {name for name, v in wanted.items() if not v.startswith(" ")}
    for name in sorted(called - listed):
        problems.append(f"fn {name}: resolved by nvml_api.cc but missing from abi_items.def")
    for name in sorted(listed - called):
        problems.append(f"fn {name}: listed in abi_items.def but nvml_api.cc never asks for it")

    for key in sorted(expected):
        if key not in theirs:
            problems.append(f"{key}: expected in {label} but the probe printed nothing")
            continue
        if key.startswith("fn "):
            sig = wanted.get(key[3:], "").rsplit(" ", 1)[0]
            if not same_desc(sig, theirs[key]):
                problems.append(f"{key}: we call it as {sig}, {label} declares {theirs[key]}")
            continue
        if key not in ours:
            problems.append(f"{key}: missing on our side")
        elif ours[key] != theirs[key]:
            t = theirs[key]
            if key.startswith("field ") and same_field(ours[key], t):
                continue
            problems.append(f"{key}: ours {ours[key]}, {label} {t}")

    checked = len(expected)
    beyond = sorted(k for k in ours if k.split(" ")[0] in ("struct", "field", "const")
                    and k not in tagged.get("in1204", set()))
    beyond += sorted("fn " + n for n in listed
                     if "fn " + n not in tagged.get("in1204", set()))
    print(f"{label}: {checked} items compared, {len(problems)} differ")
    if header == "1204":
        print(f"beyond nvml.h 12.4 (tests/nvidia/abi_items.def, last section): {len(beyond)}")
        for k in beyond:
            print(f"  {k}")
    for p in problems:
        print(f"MISMATCH {p}")
    return 1 if problems else 0


def same_field(ours, theirs):
    """A field matches when its offset is equal and its type is the same
    shape (an enum field where we declare int is the same 4 bytes)."""
    o_off, _, o_type = ours.partition(" type=")
    t_off, _, t_type = theirs.partition(" type=")
    return o_off == t_off and same_desc(o_type, t_type)


if __name__ == "__main__":
    sys.exit(main())
