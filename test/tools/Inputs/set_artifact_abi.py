"""Rewrites the ABI version of a graphc artifact in place, as an artifact of
another graphc release would have it: the first 4 bytes (abi_version,
little-endian) of the ELF section .graphc_model that holds the descriptor.

    set_artifact_abi.py MODEL.so VERSION
"""
import struct
import sys


def descriptor_offset(data):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit("not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def section(index):
        name, _, _, _, offset, size = struct.unpack_from(
            "<IIQQQQ", data, shoff + index * shentsize)
        return name, offset, size

    _, names_at, _ = section(shstrndx)
    for index in range(shnum):
        name, offset, _ = section(index)
        end = data.index(b"\0", names_at + name)
        if data[names_at + name:end] == b".graphc_model":
            return offset
    sys.exit("no .graphc_model section")


path, version = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    data = f.read()
    f.seek(descriptor_offset(data))
    f.write(struct.pack("<I", version))
