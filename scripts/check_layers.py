#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The layering check: every #include in src/, bpf/ and include/ points down
a layer or sideways to a peer's public header, never up, never into another
folder's private header, and the folders' include graph has no cycle.

The layers, lowest first (docs/architecture.md explains each):

  include/enav   the kernel/user ABI            everyone may include it
  platform       containers, codecs, logging    nothing of ours
  model, config  the signal, the configuration  platform
  golang         Go binaries' build info and    platform
                 pclntab, read by two features
  probe          what this kernel can do        the above
  runtime        runner, host contract, BPF source runner, transports
  discovery, enrich, features/<f>, exporters/<e>
                 the capabilities, behind the host contract
  cli            src/main.c and src/cli/        anything

A folder of features/ or exporters/ is one unit with its subfolders
(features/network/l7 belongs to features/network).  A header whose name ends
in _priv.h is private to its unit.

Capabilities do not include one another: a feature folder and an exporter
folder are each a unit of their own, and an include from one such unit to
another (feature -> feature, feature -> exporter, exporter -> feature,
exporter -> exporter) is refused unless its header is a declared service.
A header declares itself a service with a comment line

    enav-service: <why this header is a narrow contract, and for whom>

so the declaration sits where the contract is written, shows in every diff
that touches it, and cannot be made without a reason.  A service header
includes nothing else of its own unit (only lower layers and the unit's
other services), so declaring one never opens the rest of the folder.
Sideways includes that predate the rule are listed in PENDING, each with
what removing it takes; an entry that no include uses any more is itself a
violation, so the list only shrinks.

Exit 1 on any violation, naming the file, line and include.
"""
import os
import re
import sys

# Sideways includes of this repository that predate the rule: (includer's
# unit, header) -> what it would take to remove the arrow.  A tree checked
# with --root brings its own list (--pending UNIT=HEADER, repeatable).
PENDING = {}

# --root DIR checks another tree (tests/layers/test_check_layers.sh).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
if args[:1] == ["--root"] and len(args) >= 2:
    ROOT = args[1]
    PENDING = {}
    for a in args[2:]:
        unit, _, header = a.removeprefix("--pending=").partition("=")
        if not a.startswith("--pending=") or not header:
            sys.exit(f"check_layers: unknown argument {a!r} (--pending=UNIT=HEADER)")
        PENDING[(unit, header)] = "a test tree's own entry"
elif args:
    sys.exit("usage: check_layers.py [--root DIR [--pending=UNIT=HEADER]...]")
os.chdir(ROOT)

LAYERS = {
    "include": -1,
    "platform": 0,
    "model": 1,
    "config": 1,
    "golang": 1,
    "probe": 2,
    "runtime": 3,
    "discovery": 4,
    "enrich": 4,
    "features": 4,
    "exporters": 4,
    "cli": 5,
    "main": 5,
    # Kernel side: shared helpers below the per-feature programs.
    "bpf/lib": 0,
    "bpf/feature": 1,
}
GENERATED = re.compile(r"(\.skel\.h|^vmlinux\.h|^version\.h)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SERVICE = re.compile(r"enav-service:(.*)")
CAPABILITIES = ("features", "exporters")  # layers whose folders never include each other


def service_reason(header, cache={}):
    """The reason a header gives for being a service, "" when it declares
    none, None when it declares one without a reason."""
    if header not in cache:
        cache[header] = ""
        with open(header, encoding="utf-8") as fh:
            for line in fh:
                m = SERVICE.search(line)
                if m:
                    reason = m.group(1).strip(" */")
                    cache[header] = reason if reason else None
                    break
    return cache[header]


def unit_of(path):
    """(unit name, layer key) of a repository path."""
    parts = path.split("/")
    if parts[0] == "include":
        return "include", "include"
    if parts[0] == "bpf":
        if parts[1] == "lib":
            return "bpf/lib", "bpf/lib"
        return "bpf/" + parts[1], "bpf/feature"
    if parts[0] != "src":
        raise ValueError(path)
    if len(parts) == 2:
        return "main", "main"
    top = parts[1]
    if top in ("features", "exporters"):
        return top + "/" + parts[2], top
    return top, top


def resolve(src, inc):
    """The repository path an include names, or None when generated."""
    here = os.path.dirname(src)
    if GENERATED.search(os.path.basename(inc)):
        return None
    cands = [os.path.join(here, inc)]
    if src.startswith("bpf/"):
        cands.append(os.path.join("bpf/lib", inc))
    cands += [os.path.join("src", inc), os.path.join("include", inc)]
    for c in cands:
        if os.path.isfile(c):
            return os.path.normpath(c)
    return ""


def main():
    files = []
    for top in ("src", "bpf", "include"):
        for d, _, names in sorted(os.walk(top)):
            files += [os.path.join(d, n) for n in names if n.endswith((".c", ".h"))]
    errors = []
    edges = {}  # (from unit, to unit) -> first "file:line: include"
    services_used = set()  # (unit, header) across capabilities, through a service
    pending_used = set()  # (unit, header) across capabilities, listed in PENDING
    for f in sorted(files):
        fu, fl = unit_of(f)
        with open(f, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                target = resolve(f, inc)
                where = f"{f}:{lineno}: #include \"{inc}\""
                if target is None:
                    continue
                if target == "":
                    errors.append(f"{where}: names no file in this tree")
                    continue
                try:
                    tu, tl = unit_of(target)
                except (ValueError, IndexError, KeyError):
                    errors.append(f"{where}: {target} is in no layer")
                    continue
                if tl not in LAYERS or fl not in LAYERS:
                    errors.append(f"{where}: {fu} or {tu} is in no layer")
                    continue
                if tu == fu:
                    # A service is narrow only if it does not hand its users
                    # the rest of its unit: its own includes stay in lower
                    # layers or other services of the unit.
                    if (fl in CAPABILITIES and f.endswith(".h") and service_reason(f)
                            and not service_reason(target)):
                        errors.append(f"{where}: service header {f} includes {target}, "
                                      f"which is not a service of {fu}")
                    continue
                if f.startswith("src/") and tu.startswith("bpf"):
                    errors.append(f"{where}: user space includes a kernel-side file")
                    continue
                if LAYERS[tl] > LAYERS[fl]:
                    errors.append(f"{where}: points up, from {fu} (layer {LAYERS[fl]}) "
                                  f"to {tu} (layer {LAYERS[tl]})")
                    continue
                if LAYERS[tl] == LAYERS[fl] and fl == "bpf/feature":
                    errors.append(f"{where}: one feature's BPF code includes another's")
                    continue
                if target.endswith("_priv.h"):
                    errors.append(f"{where}: {target} is private to {tu}")
                    continue
                if fl in CAPABILITIES and tl in CAPABILITIES:
                    reason = service_reason(target)
                    if reason is None:
                        errors.append(f"{where}: {target} declares a service without "
                                      "saying why (enav-service: REASON)")
                        continue
                    if not reason:
                        if (fu, target) not in PENDING:
                            errors.append(f"{where}: sideways, from {fu} to {tu}: "
                                          "capabilities meet only through a declared "
                                          "service (a header saying enav-service:), "
                                          "or through shared code a layer down")
                            continue
                    (services_used if reason else pending_used).add((fu, target))
                edges.setdefault((fu, tu), where)
    # Cycles between units: Tarjan's strongly connected components.
    graph = {}
    for (a, b) in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, sccs = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            strong(v)
    for comp in sccs:
        inside = [w for (a, b), w in sorted(edges.items()) if a in comp and b in comp]
        errors.append("include cycle between " + ", ".join(comp) + ":\n    " +
                      "\n    ".join(inside))
    for unit, header in sorted(set(PENDING) - pending_used):
        errors.append(f"PENDING entry ({unit}, {header}) matches no include: "
                      "delete it from scripts/check_layers.py")
    for e in errors:
        print("check_layers: " + e)
    if errors:
        print(f"check_layers: {len(errors)} violation(s); the allowed directions are "
              "in scripts/check_layers.py")
        return 1
    print(f"check_layers: {len(files)} files, {len(edges)} folder-to-folder arrows, "
          "none up, none private, no cycle; "
          f"between capabilities {len(services_used)} through a service, "
          f"{len(pending_used)} pending")
    return 0


if __name__ == "__main__":
    sys.exit(main())
