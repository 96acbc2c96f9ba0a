#!/usr/bin/env python3
"""Writes the small ELF seeds of the plugin-inspection fuzzer (tests/fuzz/corpus/plugin_inspection).

Hand-made 64-bit little-endian x86-64 shared objects of a few hundred bytes: section headers, a
.dynsym with one symbol, its .dynstr and the section-name table. Small seeds that already reach
boost::dll::library_info let the fuzzer spend its time inside the ELF parsing instead of first
rediscovering the ELF header. Run from the repository root: python3 tests/fuzz/make_elf_seeds.py
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "plugin_inspection")

SHT_NULL, SHT_STRTAB, SHT_DYNSYM = 0, 3, 11
ET_DYN, EM_X86_64 = 3, 62


def elf(symbol: bytes, e_type=ET_DYN, machine=EM_X86_64) -> bytes:
    dynstr = b"\0" + symbol + b"\0"
    shstrtab = b"\0.dynsym\0.dynstr\0.shstrtab\0"
    # Elf64_Sym: st_name, st_info (GLOBAL FUNC), st_other (DEFAULT), st_shndx, st_value, st_size
    dynsym = bytes(24) + struct.pack("<IBBHQQ", 1, 0x12, 0, 1, 0x1000, 16)
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
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
