#!/usr/bin/env python3
"""Which NVML symbols a library exports, against what the tool looks up.

    symbols.py real VERSION PROBE_OUT EXPORTS
        NVIDIA's library of driver VERSION: every symbol the tool looks up
        (gt_abi_probe's "wanted" lines) is exported, or symbol_versions.txt
        says it first came in a later release; a required one always is.
        And the table must not claim a symbol is newer than a library
        that exports it.
    symbols.py mock MODELLED PROBE_OUT MOCK_EXPORTS [REAL_EXPORTS [ALLOWED...]]
        A mock variant that stands for driver MODELLED exports, of the
        symbols the tool looks up, exactly those the table gives that
        release; with REAL_EXPORTS (NVIDIA's library of a nearby release),
        exactly what it exports, apart from the ALLOWED symbols (each the
        table places between the two releases).
Exits 1 naming every symbol that breaks a rule.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def version(v):
    return tuple(int(x) for x in v.split("."))


def table():
    out = {}
    with open(os.path.join(HERE, "symbol_versions.txt")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            sym, header, first = line.split()
            out[sym] = first
    return out


def has_it(first, release):
    """Whether driver `release` is at least the table's first release."""
    if first.startswith(">"):
        return version(release) > version(first[1:])
    rel, lim = version(release), version(first)
    return rel[:len(lim)] >= lim


def wanted(probe_out):
    out = {}
    with open(probe_out) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("\t")
            if key.startswith("wanted "):
                out[key[len("wanted "):]] = value.endswith(" required")
    return out


def exports(path):
    with open(path) as f:
        return {line.strip() for line in f if line.strip()}


def check_real(release, probe_out, exports_file):
    t, w, x = table(), wanted(probe_out), exports(exports_file)
    problems = []
    for sym, required in sorted(w.items()):
        if sym in x:
            if sym in t and not has_it(t[sym], release):
                problems.append(f"{sym}: symbol_versions.txt says from {t[sym]}, "
                                f"but {release} exports it")
            continue
        if required:
            problems.append(f"{sym}: required by the tool, not exported by {release}")
        elif sym not in t:
            problems.append(f"{sym}: not exported by {release} and not marked optional "
                            f"with its first release in symbol_versions.txt")
        elif has_it(t[sym], release):
            problems.append(f"{sym}: symbol_versions.txt says from {t[sym]}, "
                            f"but {release} does not export it")
    missing = sorted(s for s in w if s not in x)
    print(f"{release}: {len(w)} symbols looked up, {len(w) - len(missing)} exported; "
          f"not exported (newer than {release}): {', '.join(missing) or 'none'}")
    return problems


def check_mock(modelled, probe_out, mock_file, real_file=None, allowed=()):
    t, w, m = table(), wanted(probe_out), exports(mock_file)
    problems = []
    for sym in sorted(w):
        expect = sym not in t or has_it(t[sym], modelled)
        if expect != (sym in m):
            problems.append(f"{sym}: the mock of {modelled} {'lacks' if expect else 'exports'} "
                            f"it, symbol_versions.txt says {'from ' + t[sym] if sym in t else 'always'}")
    if real_file:
        x = exports(real_file)
        for sym in sorted(w):
            if sym in allowed:
                continue
            if (sym in x) != (sym in m):
                problems.append(f"{sym}: the mock of {modelled} "
                                f"{'exports' if sym in m else 'lacks'} it, NVIDIA's library "
                                f"{'exports' if sym in x else 'lacks'} it")
    print(f"mock of {modelled}: {len([s for s in w if s in m])} of {len(w)} looked-up symbols")
    return problems


def main():
    if sys.argv[1] == "real":
        problems = check_real(*sys.argv[2:5])
    else:
        problems = check_mock(sys.argv[2], sys.argv[3], sys.argv[4],
                              sys.argv[5] if len(sys.argv) > 5 else None, set(sys.argv[6:]))
    for p in problems:
        print(f"MISMATCH {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
