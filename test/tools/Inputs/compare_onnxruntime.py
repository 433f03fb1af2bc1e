"""Runs a compiled model and onnxruntime on the same random inputs and
checks that every output agrees.

usage: compare_onnxruntime.py MODEL.onnx MODEL.so DIM=N [DIM=N ...]
(each dim_param of the inputs named by a DIM=N)"""
import sys

import numpy as np
import onnx
import onnxruntime as ort

import graphc

# onnxruntime warns about the initializers a model leaves unused.
QUIET = ort.SessionOptions()
QUIET.log_severity_level = 3

model_path, so_path = sys.argv[1], sys.argv[2]
dims = dict((k, int(v)) for k, v in (a.split("=") for a in sys.argv[3:]))
rng = np.random.default_rng(0)
feeds = {}
for value in onnx.load(model_path).graph.input:
    shape = [d.dim_value if d.HasField("dim_value") else dims[d.dim_param]
             for d in value.type.tensor_type.shape.dim]
    feeds[value.name] = rng.standard_normal(shape).astype(np.float32)
want = ort.InferenceSession(model_path, QUIET, providers=["CPUExecutionProvider"]).run(None, feeds)
with graphc.load(so_path) as model:
    got = [tensor.numpy() for tensor in model.run(feeds)]
for w, g in zip(want, got):
    error = float(np.max(np.abs(w - g))) if w.size else 0.0
    assert w.shape == g.shape and np.allclose(w, g, rtol=1e-4, atol=1e-5), \
        (w.shape, g.shape, error)
    print(f"{list(g.shape)} max |error| {error:.3g}")
