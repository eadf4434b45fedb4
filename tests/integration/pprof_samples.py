#!/usr/bin/env python3
"""Print a pprof file's samples as JSON lines, with their labels and the
function names of their stacks (leaf first).

A decoder independent of the agent's: it walks the protobuf wire format of
perftools.profiles.Profile (sample = 2, location = 4, function = 5,
string_table = 6), so a test can check which samples carry which labels.

usage: pprof_samples.py FILE   (gzip'd or raw)
output: {"values": [..], "labels": {"key": "str" or num}, "functions": [...]}
"""
import gzip
import json
import sys


def varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def fields(buf):
    """(field, wire type, value) of one message: ints, or bytes for wire 2."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(buf, i)
        elif wire == 1:
            v, i = int.from_bytes(buf[i : i + 8], "little"), i + 8
        elif wire == 5:
            v, i = int.from_bytes(buf[i : i + 4], "little"), i + 4
        elif wire == 2:
            n, i = varint(buf, i)
            v, i = buf[i : i + n], i + n
        else:
            raise ValueError(f"wire type {wire}")
        if i > len(buf):
            raise ValueError("truncated")
        yield field, wire, v


def ints(wire, v):
    """A repeated integer field: packed (wire 2) or one value."""
    if wire != 2:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strings, samples, locations, functions = [], [], {}, {}
    for field, wire, v in fields(data):
        if field == 6:
            strings.append(v.decode("utf-8", "replace"))
        elif field == 2:
            samples.append(v)
        elif field == 4:
            loc_id, fns = 0, []
            for f, w, x in fields(v):
                if f == 1:
                    loc_id = x
                elif f == 4:  # Line: function_id = 1
                    for lf, _, lx in fields(x):
                        if lf == 1:
                            fns.append(lx)
            locations[loc_id] = fns
        elif field == 5:
            fn_id = name = 0
            for f, _, x in fields(v):
                if f == 1:
                    fn_id = x
                elif f == 2:
                    name = x
            functions[fn_id] = name
    for s in samples:
        locs, values, labels = [], [], {}
        for f, w, x in fields(s):
            if f == 1:
                locs += ints(w, x)
            elif f == 2:
                values += ints(w, x)
            elif f == 3:
                key = string = num = 0
                for lf, _, lx in fields(x):
                    if lf == 1:
                        key = lx
                    elif lf == 2:
                        string = lx
                    elif lf == 3:
                        num = lx
                labels[strings[key]] = strings[string] if string else num
        names = []
        for loc in locs:
            # inlined functions: the deepest Line first
            names += [strings[functions.get(fn, 0)] for fn in locations.get(loc, [])]
        print(json.dumps({"values": values, "labels": labels, "functions": names}))


if __name__ == "__main__":
    main()
