"""Measures how long loading a large model takes, the whole-file checksum
included: compiles a cpu model with SIZE_MB of weights (one MatMul), then
times graphc_model_load with and without GRAPHC_MODEL_SKIP_CHECKSUM.

usage: GRAPHC_RUNTIME_LIBRARY=build/lib/libgraphc_runtime.so \
       python bench/load_time.py build/bin/graphc [SIZE_MB] [WORKDIR]"""
import ctypes
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

graphc = sys.argv[1]
size_mb = int(sys.argv[2]) if len(sys.argv) > 2 else 400
workdir = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="graphc-load-")
columns = 1024
rows = size_mb * (1 << 20) // (4 * columns)
weights = np.random.default_rng(0).standard_normal((rows, columns), np.float32)
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")],
    "large",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, rows])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, columns])],
    [numpy_helper.from_array(weights, "w")],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx_path = os.path.join(workdir, "large.onnx")
so_path = os.path.join(workdir, "large.so")
onnx.save(model, onnx_path)
start = time.perf_counter()
subprocess.run([graphc, "compile", onnx_path, "--target", "cpu", "-o", so_path,
                "--force"], check=True)
print(f"compile: {time.perf_counter() - start:.1f} s, "
      f"{os.path.getsize(so_path) / (1 << 20):.0f} MiB artifact")

runtime = ctypes.CDLL(os.environ["GRAPHC_RUNTIME_LIBRARY"])
runtime.graphc_model_load.restype = ctypes.c_void_p
runtime.graphc_model_load.argtypes = [ctypes.c_char_p, ctypes.c_void_p,
                                      ctypes.POINTER(ctypes.c_void_p)]
runtime.graphc_model_release.argtypes = [ctypes.c_void_p]


class Options(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint32), ("device_ordinal", ctypes.c_int32),
                ("weights_path", ctypes.c_char_p)]


def time_load(flags):
    options = Options(flags, 0, None)
    best = float("inf")
    for _ in range(5):
        handle = ctypes.c_void_p()
        start = time.perf_counter()
        status = runtime.graphc_model_load(so_path.encode(), ctypes.byref(options),
                                           ctypes.byref(handle))
        elapsed = time.perf_counter() - start
        if status:
            sys.exit("load failed")
        runtime.graphc_model_release(handle)
        best = min(best, elapsed)
    return best


checked = time_load(0)
skipped = time_load(1 << 0)
print(f"load (file in page cache, best of 5): {checked * 1000:.1f} ms with the "
      f"checksum, {skipped * 1000:.1f} ms without "
      f"({size_mb / max(checked - skipped, 1e-9) / 1024:.1f} GiB/s hashed)")
