#!/usr/bin/env python3
"""Print every entry of a pprof file's string table, one per line.

A decoder independent of the agent's: it walks the protobuf wire format of
perftools.profiles.Profile and prints field 6 (string_table), so a test can
assert that no string of a redacted identity is left anywhere in a profile.

usage: pprof_strings.py FILE   (gzip'd or raw)
"""
import gzip
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from pprof_samples import fields  # noqa: E402  (the one wire reader)


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    for field, wire, v in fields(data):
        if field == 6 and wire == 2:
            print(v.decode("utf-8", "replace"))


main()
