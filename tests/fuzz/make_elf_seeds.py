#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the small ELF seeds of the plugin-inspection fuzzer (tests/fuzz/corpus/plugin_inspection)
and its crafted regressions (tests/fuzz/regressions/plugin_inspection).

Hand-made 64-bit little-endian x86-64 shared objects of a few hundred bytes: section headers, a
.dynsym with one symbol, its .dynstr and the section-name table. Small seeds that already reach
the symbol-table reading let the fuzzer spend its time inside the ELF parsing instead of first
rediscovering the ELF header. Run from the repository root: python3 tests/fuzz/make_elf_seeds.py
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "plugin_inspection")
REGRESSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regressions", "plugin_inspection")

SHT_NULL, SHT_STRTAB, SHT_DYNSYM = 0, 3, 11
ET_DYN, EM_X86_64 = 3, 62


STT_OBJECT, STT_FUNC, STB_GLOBAL = 1, 2, 1


def elf(symbol: bytes, e_type=ET_DYN, machine=EM_X86_64, symbol_type=STT_FUNC, copies=1, name_end=True) -> bytes:
    dynstr = b"\0" + symbol + (b"\0" if name_end else b"")
    shstrtab = b"\0.dynsym\0.dynstr\0.shstrtab\0"
    # Elf64_Sym: st_name, st_info (GLOBAL <type>), st_other (DEFAULT), st_shndx, st_value, st_size
    info = (STB_GLOBAL << 4) | symbol_type
    dynsym = bytes(24) + struct.pack("<IBBHQQ", 1, info, 0, 1, 0x1000, 16) * copies
    header_size = 64
    body = bytearray()
    offsets = {}
    for name, data in (("dynsym", dynsym), ("dynstr", dynstr), ("shstrtab", shstrtab)):
        while (header_size + len(body)) % 8:
            body += b"\0"
        offsets[name] = header_size + len(body)
        body += data
    while (header_size + len(body)) % 8:
        body += b"\0"
    shoff = header_size + len(body)

    def section(name_offset, sh_type, offset, size, link=0, entsize=0):
        return struct.pack("<IIQQQQIIQQ", name_offset, sh_type, 0, 0, offset, size, link, 0, 8, entsize)

    sections = section(0, SHT_NULL, 0, 0)
    sections += section(1, SHT_DYNSYM, offsets["dynsym"], len(dynsym), link=2, entsize=24)
    sections += section(9, SHT_STRTAB, offsets["dynstr"], len(dynstr))
    sections += section(17, SHT_STRTAB, offsets["shstrtab"], len(shstrtab))
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    header = ident + struct.pack("<HHIQQQIHHHHHH", e_type, machine, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 4, 3)
    return bytes(header) + bytes(body) + sections


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "plugin_v1.so": elf(b"gpucore_plugin_entry_v1"),
        "plugin_v2.so": elf(b"gpucore_plugin_entry_v2"),
        "no_entry.so": elf(b"something_else"),
        "executable.elf": elf(b"gpucore_plugin_entry_v1", e_type=2),
        "aarch64.so": elf(b"gpucore_plugin_entry_v1", machine=183),
        "header_only.so": elf(b"gpucore_plugin_entry_v1")[:64],
        "not_elf.txt": b"not a shared object\n",
        "entry_v01.so": elf(b"gpucore_plugin_entry_v01"),
        "entry_v1x.so": elf(b"gpucore_plugin_entry_v1x"),
        "entry_data_object.so": elf(b"gpucore_plugin_entry_v1", symbol_type=STT_OBJECT),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    # Unbounded-work regressions, replayed by ctest: 1,500 symbols sharing one 300,000-byte name
    # with no NUL before the table's end (a reader copying each name allocates 450 MB).
    regressions = {
        "symbols_sharing_one_huge_name.so": elf(b"A" * 300000, copies=1500, name_end=False),
    }
    os.makedirs(REGRESSIONS, exist_ok=True)
    for name, data in regressions.items():
        with open(os.path.join(REGRESSIONS, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
