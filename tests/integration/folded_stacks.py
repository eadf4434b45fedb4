#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Measures folded profiles (comm;root;...;leaf VALUE) for the native-unwinding
tests (tests/integration/test_unwind.sh).  Every measure prints one line of
KEY=VALUE words for the test to read, and weighs each stack by its value
(samples for CPU, nanoseconds for off-CPU and futex).

A stack's user part is its frames before the first kernel frame (named
NAME_[k]: the kernel half is at the leaf end).

usage:
  folded_stacks.py entry FILE [--entry NAME,...] [--thread NAME,...] [--need NAME]...
      user=   weight of stacks with a user part
      entry=  of those, weight whose user part holds an entry frame (main by
              default) or a thread entry (start_thread, clone3 by default)
      main= thread=  the two kinds apart
      need_NAME=  weight of user stacks holding frame NAME
  folded_stacks.py misses FILE [--entry NAME,...] [--thread NAME,...]
      the three heaviest user stacks that reach no entry, weight first (what
      a failed entry measure's reader needs: where the unwinding stopped)
  folded_stacks.py chain FILE --among NAME A,B,C
      among=  weight of user stacks holding frame NAME (*: every one)
      chain=  of those, weight whose user part holds A;B;C as consecutive
              frames (root first) below an entry frame
  folded_stacks.py order FILE --among NAME A,B,C
      like chain, with A, B, C in that order but not necessarily adjacent;
      each may be a regular expression that must match a whole frame
  folded_stacks.py outside FILE MAPS
      hex=      weight of stacks with a bare address in their user part
      outside=  weight of stacks with one outside every executable mapping of
                MAPS (a copy of /proc/PID/maps); the first few are printed
                to stderr
  folded_stacks.py mappings RAW MAPS PATH BUILD_ID
      RAW is `go tool pprof -raw` of the same profile.  Of the locations
      without a function (unnamed=) in the mapping whose file is PATH:
      build_id= how many carry BUILD_ID, offset_ok= how many have the file
      offset MAPS gives for their address (address - start + offset).
"""
import re
import sys

MAIN_ENTRY = ["main", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main", "_start"]
THREAD_ENTRY = ["start_thread", "clone3", "__clone3", "clone", "__clone"]
HEX = re.compile(r"^0x([0-9a-f]+)(?: \(.*\))?$")


def stacks(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, value = line.rpartition(" ")
            frames = stack.split(";")[1:]  # the first is the comm
            user = []
            for fr in frames:
                if fr.endswith("_[k]"):
                    break
                user.append(fr)
            yield frames, user, float(value)


def arg_list(args, flag, default):
    if flag in args:
        i = args.index(flag)
        return args[i + 1].split(",")
    return default


def fmt(**kw):
    return " ".join("%s=%.0f" % (k, v) for k, v in kw.items())


def cmd_entry(path, args):
    entry = set(arg_list(args, "--entry", MAIN_ENTRY))
    thread = set(arg_list(args, "--thread", THREAD_ENTRY))
    need = [args[i + 1] for i, a in enumerate(args) if a == "--need"]
    user = main = thr = 0.0
    needs = {n: 0.0 for n in need}
    for _, u, v in stacks(path):
        if not u:
            continue
        user += v
        if entry.intersection(u):
            main += v
        elif thread.intersection(u):
            thr += v
        for n in need:
            if n in u:
                needs[n] += v
    out = dict(user=user, entry=main + thr, main=main, thread=thr)
    out.update(("need_" + n, w) for n, w in needs.items())
    print(fmt(**out))


def cmd_misses(path, args):
    entry = set(arg_list(args, "--entry", MAIN_ENTRY))
    thread = set(arg_list(args, "--thread", THREAD_ENTRY))
    miss = [(v, ";".join(u)) for _, u, v in stacks(path) if u and not (entry | thread).intersection(u)]
    for v, u in sorted(miss, reverse=True)[:3]:
        print("miss %.0f %s" % (v, u[:300]))


def cmd_chain(path, args, adjacent):
    among = args[args.index("--among") + 1]
    chain = args[-1].split(",")
    entry = set(MAIN_ENTRY)
    pats = [re.compile("^(?:%s)$" % c) for c in chain]
    total = good = 0.0
    for _, u, v in stacks(path):
        if not u or (among != "*" and among not in u):
            continue
        total += v
        if not entry.intersection(u):
            continue
        if adjacent:
            n = len(chain)
            ok = any(u[i : i + n] == chain for i in range(len(u) - n + 1))
        else:
            i = 0
            for fr in u:
                if i < len(pats) and pats[i].match(fr):
                    i += 1
            ok = i == len(pats)
        if ok:
            good += v
    print(fmt(among=total, chain=good))


def exec_ranges(maps):
    ranges = []
    with open(maps) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 5 or "x" not in parts[1]:
                continue
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            path = parts[5] if len(parts) > 5 else ""
            ranges.append((lo, hi, int(parts[2], 16), path))
    return ranges


def cmd_outside(path, maps):
    ranges = exec_ranges(maps)
    hexw = outside = 0.0
    shown = 0
    for _, u, v in stacks(path):
        bad = None
        anyhex = False
        for fr in u:
            m = HEX.match(fr)
            if not m:
                continue
            anyhex = True
            a = int(m.group(1), 16)
            if not any(lo <= a < hi for lo, hi, _, _ in ranges):
                bad = fr
                break
        if anyhex:
            hexw += v
        if bad is not None:
            outside += v
            if shown < 5:
                shown += 1
                print("outside an executable mapping: %s in %s" % (bad, ";".join(u)), file=sys.stderr)
    print(fmt(hex=hexw, outside=outside))


def cmd_mappings(raw, maps, path, build_id):
    ranges = exec_ranges(maps)
    mappings = {}
    locations = []
    section = None
    with open(raw) as f:
        for line in f:
            s = line.strip()
            if s in ("Locations", "Mappings"):
                section = s
                continue
            if section == "Mappings":
                # ID: START/LIMIT/OFFSET FILE [BUILD_ID] [FLAGS]
                m = re.match(r"^(\d+): 0x([0-9a-f]+)/0x([0-9a-f]+)/0x([0-9a-f]+) (\S+)(?: ([0-9a-f]+))?", s)
                if m:
                    mappings[m.group(1)] = (int(m.group(2), 16), int(m.group(4), 16), m.group(5), m.group(6) or "")
            elif section == "Locations":
                # ID: 0xADDR M=MAPPING [FUNCTION FILE:LINE s=START]: no function
                m = re.match(r"^\d+: 0x([0-9a-f]+) M=(\d+)$", s)
                if m:
                    locations.append((int(m.group(1), 16), m.group(2)))
    unnamed = with_id = offset_ok = 0
    for addr, mid in locations:
        mp = mappings.get(mid)
        if mp is None or mp[2] != path:
            continue
        unnamed += 1
        if mp[3] == build_id:
            with_id += 1
        want = [off + addr - lo for lo, hi, off, _ in ranges if lo <= addr < hi]
        if want and want[0] == addr - mp[0] + mp[1]:
            offset_ok += 1
    print(fmt(unnamed=unnamed, build_id=with_id, offset_ok=offset_ok))


def main():
    a = sys.argv[1:]
    if len(a) >= 2 and a[0] == "entry":
        cmd_entry(a[1], a[2:])
    elif len(a) >= 2 and a[0] == "misses":
        cmd_misses(a[1], a[2:])
    elif len(a) == 5 and a[0] in ("chain", "order") and a[2] == "--among":
        cmd_chain(a[1], a[2:], a[0] == "chain")
    elif len(a) == 3 and a[0] == "outside":
        cmd_outside(a[1], a[2])
    elif len(a) == 5 and a[0] == "mappings":
        cmd_mappings(a[1], a[2], a[3], a[4])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
