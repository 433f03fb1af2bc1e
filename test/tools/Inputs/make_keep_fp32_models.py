"""Small models for --keep-fp32 auto, with calibration inputs and the
float32 outputs (numpy, float64 arithmetic).

usage: make_keep_fp32_models.py KIND OUT.onnx DIR

KIND: overflow (h = x @ W reaches about 1e5, beyond fp16; the output
h / max|h| is within [-1, 1]), safe (relu(x @ W + b), fine in fp16 and
bf16), cancel ((x + offset) - offset with offset = 1000: the narrow sum
loses x), cancel-many (twenty such pairs, summed); KIND-dynamic gives x
and y the dim_param batch for dim 0. DIR receives the inputs
as NAME.npy, expected/y.npy and inputs.txt (the --input flags for graphc
run).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

kind, path, directory = sys.argv[1:4]
# KIND-dynamic: x's first dim is the dim_param batch.
dynamic = kind.endswith("-dynamic")
kind = kind[:-len("-dynamic")] if dynamic else kind
rng = np.random.default_rng(7)
x = rng.uniform(-1, 1, size=(4, 16)).astype(np.float32)
feeds = {"x": x}
inputs = [helper.make_tensor_value_info(
    "x", TensorProto.FLOAT, ["batch" if dynamic else 4, 16])]
inits = []

if kind == "overflow":
    w = (rng.choice([-1.0, 1.0], size=(16, 16)) * 2e4).astype(np.float32)
    inits.append(numpy_helper.from_array(w, "w"))
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"], name="project"),
        helper.make_node("Abs", ["h"], ["a"], name="magnitude"),
        helper.make_node("ReduceMax", ["a"], ["m"], name="peak", axes=[1],
                         keepdims=1),
        helper.make_node("Div", ["h", "m"], ["y"], name="normalise"),
    ]
    h = x.astype(np.float64) @ w.astype(np.float64)
    y = h / np.max(np.abs(h), axis=1, keepdims=True)
elif kind == "safe":
    w = rng.uniform(-0.5, 0.5, size=(16, 16)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, size=(16,)).astype(np.float32)
    inits += [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"], name="project"),
        helper.make_node("Add", ["h", "b"], ["s"], name="bias"),
        helper.make_node("Relu", ["s"], ["y"], name="relu"),
    ]
    y = np.maximum(x.astype(np.float64) @ w + b, 0)
elif kind == "cancel":
    offset = np.array([1000.0], np.float32)
    feeds["offset"] = offset
    inputs.append(helper.make_tensor_value_info("offset", TensorProto.FLOAT,
                                                [1]))
    nodes = [
        helper.make_node("Add", ["x", "offset"], ["shifted"], name="shift"),
        helper.make_node("Sub", ["shifted", "offset"], ["y"], name="unshift"),
    ]
    y = x.astype(np.float64)
elif kind == "cancel-many":
    # Twenty such pairs with their own offsets: each takes a run to fix.
    nodes = []
    for i in range(20):
        inits.append(numpy_helper.from_array(
            np.array([1000.0 + 8 * i], np.float32), "offset%d" % i))
        nodes += [
            helper.make_node("Add", ["x", "offset%d" % i], ["shifted%d" % i],
                             name="shift%d" % i),
            helper.make_node("Sub", ["shifted%d" % i, "offset%d" % i],
                             ["unshifted%d" % i], name="unshift%d" % i),
        ]
    nodes.append(helper.make_node(
        "Sum", ["unshifted%d" % i for i in range(20)], ["y"], name="total"))
    y = 20 * x.astype(np.float64)
else:
    sys.exit("unknown kind " + kind)

graph = helper.make_graph(
    nodes, kind, inputs,
    [helper.make_tensor_value_info(
        "y", TensorProto.FLOAT, ["batch" if dynamic else 4] + list(y.shape[1:]))],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, path)
os.makedirs(os.path.join(directory, "expected"), exist_ok=True)
for name, value in feeds.items():
    np.save(os.path.join(directory, name + ".npy"), value)
np.save(os.path.join(directory, "expected", "y.npy"), y.astype(np.float32))
with open(os.path.join(directory, "inputs.txt"), "w") as f:
    f.write(" ".join("--input %s=%s" % (n, os.path.join(directory, n + ".npy"))
                     for n in feeds) + "\n")
