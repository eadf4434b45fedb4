#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Crafts the hostile shared object of tests/integration/hostile/profile_memory.sh
(and tests/unit/test_symbolize.c): a copy of a real ELF64 little-endian
shared object whose .symtab is replaced by NSYMS function symbols that all
name ONE string of NAMELEN bytes.  On disk that is NSYMS * 24 + NAMELEN bytes;
a loader that copies each symbol's name keeps NSYMS * NAMELEN.

The loadable segments are untouched (the object still dlopens); the new
.strtab, .symtab and section header table are appended at the end.

usage: craft_symtab.py IN OUT NSYMS NAMELEN [TAG]
TAG (an integer) varies the name's bytes, so two crafted files differ."""
import struct
import sys


def main():
    src, dst, nsyms, namelen = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    tag = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    data = bytearray(open(src, "rb").read())
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit("not an ELF64 little-endian file: " + src)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    shdrs = [list(struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize))
             for i in range(shnum)]
    names = shdrs[shstrndx]

    def name_of(h):
        off = names[4] + h[0]
        return bytes(data[off:data.index(b"\0", off)]).decode()

    text = next(i for i, h in enumerate(shdrs) if name_of(h) == ".text")
    text_addr, text_size = shdrs[text][3], shdrs[text][5]
    symtab = next((i for i, h in enumerate(shdrs) if h[1] == 2), None)  # SHT_SYMTAB
    strtab = shdrs[symtab][6] if symtab is not None else None
    if symtab is None:
        sys.exit("no .symtab to replace in " + src)

    # One name for all: "A..A" with the tag's digits in front.
    name = (str(tag) + "_").encode() + b"A" * max(0, namelen - len(str(tag)) - 1)
    strbytes = b"\0" + name[:namelen] + b"\0"
    syms = bytearray(24)  # the null symbol
    for i in range(nsyms):
        # distinct values inside .text (the loader keeps one symbol per value)
        value = text_addr + (i % max(1, text_size))
        if i >= text_size:
            value = text_addr + i  # past .text: still distinct, still a function
        syms += struct.pack("<IBBHQQ", 1, 0x12, 0, text, value, 1)  # GLOBAL FUNC

    def align(n):
        return (n + 7) & ~7

    while len(data) % 8:
        data.append(0)
    str_off = len(data)
    data += strbytes
    while len(data) % 8:
        data.append(0)
    sym_off = len(data)
    data += syms
    shdrs[strtab][4], shdrs[strtab][5] = str_off, len(strbytes)
    shdrs[symtab][4], shdrs[symtab][5] = sym_off, len(syms)
    shdrs[symtab][7] = 1  # sh_info: first non-local
    while len(data) % 8:
        data.append(0)
    new_shoff = len(data)
    for h in shdrs:
        data += struct.pack("<IIQQQQIIQQ", *h)
    struct.pack_into("<Q", data, 0x28, new_shoff)
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main()
