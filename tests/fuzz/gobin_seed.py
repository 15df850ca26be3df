#!/usr/bin/env python3
"""Write a minimal Go-shaped ELF (build info, a Go 1.18-format function table
with two functions, their code) as the seed of tests/fuzz/fuzz_gobin.c: a
real Go program is megabytes, too big a seed for libFuzzer to mutate well."""
import struct, sys

TEXT, DATA = 0x401000, 0x402000
code = bytes.fromhex("554889e54883ec10" "4885c07403" "c9c3" "31c0c9c3" "cccccc")  # push/mov/sub; test/je; leave/ret; xor/leave/ret
code2 = bytes.fromhex("31c0c3")                                                    # xor eax,eax; ret
text = code.ljust(0x20, b"\xcc") + code2.ljust(0x10, b"\xcc")

names = b"crypto/aes.(*gcmAsm).Seal\0main.main\0"
hdr_len = 8 + 8 * 8
pcln_off = (hdr_len + len(names) + 7) & ~7
funcs = [(0, 0), (0x20, len(names.split(b"\0")[0]) + 1)]  # (entryoff, nameoff)
functab = b""
func_recs = b""
rec_base = 3 * 8  # after nfunc+1 (entryoff, funcoff) pairs
for i, (eoff, noff) in enumerate(funcs):
    functab += struct.pack("<II", eoff, rec_base + len(func_recs))
    func_recs += struct.pack("<Ii", eoff, noff) + bytes(8)
functab += struct.pack("<II", len(text), 0)
header = struct.pack("<IBBBB", 0xfffffff0, 0, 0, 1, 8) + struct.pack(
    "<8Q", len(funcs), 0, TEXT, hdr_len, 0, 0, 0, pcln_off)
pcln = (header + names).ljust(pcln_off, b"\0") + functab + func_recs

version = b"go1.19.8"
buildinfo = b"\xff Go buildinf:" + bytes([8, 2]) + bytes(16) + bytes([len(version)]) + version + b"\0"

shstr = b"\0.text\0.go.buildinfo\0.gopclntab\0.shstrtab\0"
def sname(n): return shstr.index(n)

ehdr_len, phdr_len = 64, 56
off_text = ehdr_len + 2 * phdr_len
off_data = off_text + len(text)
off_pcln = off_data + 0x30
off_shstr = off_pcln + len(pcln)
off_sh = (off_shstr + len(shstr) + 7) & ~7
img = bytearray(off_sh + 5 * 64)
img[0:16] = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
struct.pack_into("<HHIQQQIHHHHHH", img, 16, 2, 62, 1, TEXT, ehdr_len, off_sh, 0,
                 ehdr_len, phdr_len, 2, 64, 5, 4)
struct.pack_into("<IIQQQQQQ", img, 64, 1, 5, off_text, TEXT, TEXT, len(text), len(text), 0x1000)
data_len = off_shstr - off_data
struct.pack_into("<IIQQQQQQ", img, 64 + 56, 1, 6, off_data, DATA, DATA, data_len, data_len, 0x1000)
img[off_text:off_text + len(text)] = text
img[off_data:off_data + len(buildinfo)] = buildinfo
img[off_pcln:off_pcln + len(pcln)] = pcln
img[off_shstr:off_shstr + len(shstr)] = shstr
secs = [
    (0, 0, 0, 0, 0, 0),
    (sname(b".text"), 1, 6, TEXT, off_text, len(text)),
    (sname(b".go.buildinfo"), 1, 3, DATA, off_data, len(buildinfo)),
    (sname(b".gopclntab"), 1, 2, DATA + 0x30, off_pcln, len(pcln)),
    (sname(b".shstrtab"), 3, 0, 0, off_shstr, len(shstr)),
]
for i, (n, t, fl, addr, off, size) in enumerate(secs):
    struct.pack_into("<IIQQQQIIQQ", img, off_sh + 64 * i, n, t, fl, addr, off, size, 0, 0, 1, 0)
open(sys.argv[1], "wb").write(img)
