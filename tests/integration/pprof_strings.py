#!/usr/bin/env python3
"""Print every entry of a pprof file's string table, one per line.

A decoder independent of the agent's: it walks the protobuf wire format of
perftools.profiles.Profile and prints field 6 (string_table), so a test can
assert that no string of a redacted identity is left anywhere in a profile.

usage: pprof_strings.py FILE   (gzip'd or raw)
"""
import gzip
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


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    i = 0
    out = []
    while i < len(data):
        key, i = varint(data, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, i = varint(data, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            n, i = varint(data, i)
            if field == 6:
                out.append(data[i:i + n].decode("utf-8", "replace"))
            i += n
        else:
            raise ValueError("wire type %d" % wire)
    if i != len(data):
        raise ValueError("truncated")
    for s in out:
        print(s)


main()
