#!/usr/bin/env python3
"""Writes good and malformed `graphc run` input files into DIR: .npy files
(numpy's writer, then hand-edited headers) and ONNX TensorProto .pb files.
The good ones hold a float32[4,64] tensor for examples/make_example.py.

Usage: make_input_files.py DIR
"""
import os
import random
import struct
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def npy_with_header(header, data):
    """A version 1.0 .npy file with `header` padded as numpy pads it."""
    header = header.encode("latin1")
    total = (10 + len(header) + 1 + 63) // 64 * 64
    header += b" " * (total - 10 - len(header) - 1) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def main():
    out = sys.argv[1]
    x = np.linspace(-1, 1, 256, dtype=np.float32).reshape(4, 64)

    def write(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    np.save(os.path.join(out, "x.npy"), x)
    np.save(os.path.join(out, "x_big_endian.npy"), x.astype(">f4"))
    f4 = x.tobytes()
    shape = "(4, 64)"
    write("repeated.npy", npy_with_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (64, 4), "
        f"'shape': {shape}, }}", f4))
    write("unknown_key.npy", npy_with_header(
        f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, 'x': 1}}", f4))
    write("trailing.npy", npy_with_header(
        f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}}} junk", f4))
    write("fortran.npy", npy_with_header(
        f"{{'descr': '<f4', 'fortran_order': True, 'shape': {shape}}}", f4))
    write("complex.npy", npy_with_header(
        f"{{'descr': '<c8', 'fortran_order': False, 'shape': (4, 32)}}", f4))
    write("negative.npy", npy_with_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-4, 64)}", f4))
    write("overflow.npy", npy_with_header(
        "{'descr': '<f4', 'fortran_order': False, "
        "'shape': (4611686018427387904, 4)}", b""))
    good = open(os.path.join(out, "x.npy"), "rb").read()
    write("short_data.npy", good[:-4])
    write("short_header.npy", good[:40])

    def pb(name, tensor):
        write(name, tensor.SerializeToString())

    pb("x.pb", numpy_helper.from_array(x, "features"))
    pb("int64.pb", numpy_helper.from_array(x.astype(np.int64), "features"))
    serialized = numpy_helper.from_array(x, "features").SerializeToString()
    write("truncated.pb", serialized[: len(serialized) // 2])
    rng = random.Random(7)
    write("random.pb", bytes(rng.randrange(256) for _ in range(1000)))
    write("empty.pb", b"")
    def raw_tensor(data_type, dims, raw):
        # Built by hand: helper.make_tensor refuses inconsistent tensors.
        tensor = TensorProto()
        tensor.name = "features"
        tensor.data_type = data_type
        tensor.dims.extend(dims)
        tensor.raw_data = raw
        return tensor

    pb("negative_dim.pb", raw_tensor(TensorProto.FLOAT, [-4, 64], f4))
    pb("overflow_dims.pb", raw_tensor(TensorProto.FLOAT, [1 << 62, 4], b""))
    pb("short.pb", raw_tensor(TensorProto.FLOAT, [4, 64], f4[:100]))
    pb("bool.pb", raw_tensor(TensorProto.BOOL, [2], b"\x01\x02"))
    pb("string.pb", helper.make_tensor("features", TensorProto.STRING, [1],
                                       [b"a"]))

if __name__ == "__main__":
    main()
