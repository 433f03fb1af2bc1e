"""Copies a model .so (or a weights file) with one byte flipped in a named
region: `descriptor` (the .graphc_model section), `code` (.text), `weights`
(the bytes of the ONNX model's first initializer, found in the file) or
`file` (any file: the byte in the middle).

usage: flip_artifact_byte.py REGION IN OUT [MODEL.onnx]"""
import struct
import sys


def section(data, wanted):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def header(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    names = header(shstrndx)
    for i in range(shnum):
        name_at = names[4] + header(i)[0]
        name = data[name_at:data.index(b"\0", name_at)].decode()
        if name == wanted:
            offset, size = header(i)[4], header(i)[5]
            return offset, size
    sys.exit(f"no section {wanted}")


region, source, target = sys.argv[1:4]
data = bytearray(open(source, "rb").read())
if region == "descriptor":
    offset, size = section(data, ".graphc_model")
    at = offset + 4  # the target field: not the checksum itself
elif region == "code":
    offset, size = section(data, ".text")
    at = offset + size // 2
elif region == "weights":
    import numpy
    import onnx
    from onnx import numpy_helper
    model = onnx.load(sys.argv[4])
    raw = numpy_helper.to_array(model.graph.initializer[0]).tobytes()
    at = bytes(data).find(raw)
    if at < 0:
        sys.exit("weights not found")
    at += len(raw) // 2
elif region == "file":
    at = len(data) // 2
else:
    sys.exit(f"unknown region {region}")
data[at] ^= 0x10
open(target, "wb").write(data)
