#!/usr/bin/env python3
"""Print the links of an ExportProfilesServiceRequest (profiles/v1development)
as "TRACE_ID SPAN_ID" hex lines, and how many samples point at each.

An independent reader of the wire format (protoc checks the schema; this
pulls the ids out as hex): dictionary = 2 in the request, link_table = 4 in
the dictionary (trace_id = 1, span_id = 2); resource_profiles = 1,
scope_profiles = 2, profiles = 2, samples = 2, link_index = 3.

usage: otlp_links.py FILE   ->   lines "TRACE SPAN SAMPLES" (index 0 skipped)
"""
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from pprof_samples import fields  # noqa: E402


def main():
    data = open(sys.argv[1], "rb").read()
    links, uses = [], {}
    for f, _, v in fields(data):
        if f == 2:
            for df, _, dv in fields(v):
                if df == 4:
                    t = s = b""
                    for lf, _, lv in fields(dv):
                        if lf == 1:
                            t = lv
                        elif lf == 2:
                            s = lv
                    links.append((t.hex(), s.hex()))
        elif f == 1:
            for rf, _, rv in fields(v):
                if rf != 2:
                    continue
                for sf, _, sv in fields(rv):
                    if sf != 2:
                        continue
                    for pf, _, pv in fields(sv):
                        if pf != 2:
                            continue
                        for xf, _, xv in fields(pv):
                            if xf == 3:
                                uses[xv] = uses.get(xv, 0) + 1
    for i, (t, s) in enumerate(links):
        if i:
            print(t, s, uses.get(i, 0))


if __name__ == "__main__":
    main()
