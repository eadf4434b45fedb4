#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The layering check: every #include in src/, bpf/ and include/ points down
a layer or sideways to a peer's public header, never up, never into another
folder's private header, and the folders' include graph has no cycle.

The layers, lowest first (docs/architecture.md explains each):

  include/enav   the kernel/user ABI            everyone may include it
  platform       containers, codecs, logging    nothing of ours
  model, config  the signal, the configuration  platform
  probe          what this kernel can do        the above
  runtime        runner, host contract, BPF source runner, transports
  discovery, enrich, features/<f>, exporters/<e>, bench
                 the capabilities, behind the host contract
  cli            src/main.c and src/cli/        anything

A folder of features/ or exporters/ is one unit with its subfolders
(features/network/l7 belongs to features/network).  A header whose name ends
in _priv.h is private to its unit.  Exit 1 on any violation, naming the file,
line and include.
"""
import os
import re
import sys

# --root DIR checks another tree (tests/layers/test_check_layers.sh).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) == 3 and sys.argv[1] == "--root":
    ROOT = sys.argv[2]
os.chdir(ROOT)

LAYERS = {
    "include": -1,
    "platform": 0,
    "model": 1,
    "config": 1,
    "probe": 2,
    "runtime": 3,
    "discovery": 4,
    "enrich": 4,
    "features": 4,
    "exporters": 4,
    "bench": 4,
    "cli": 5,
    "main": 5,
    # Kernel side: shared helpers below the per-feature programs.
    "bpf/lib": 0,
    "bpf/feature": 1,
}
GENERATED = re.compile(r"(\.skel\.h|^vmlinux\.h|^version\.h)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


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
    for e in errors:
        print("check_layers: " + e)
    if errors:
        print(f"check_layers: {len(errors)} violation(s); the allowed directions are "
              "in scripts/check_layers.py")
        return 1
    print(f"check_layers: {len(files)} files, {len(edges)} folder-to-folder arrows, "
          "none up, none private, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
