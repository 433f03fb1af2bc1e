"""Tiny models that used to blow up compile time or the artifact, with the
inputs and expected outputs of those small enough to run.

usage: make_compile_bombs.py KIND OUT.onnx [DIR]

KIND: conv, maxpool, einsum (folded constants whose op is beyond the folding
budget; the -small variants run), max (4100 distinct operands, past
CUDA's kernel parameters), convtranspose (a run-time one whose
columns take several tiles), many-einsums (each op within the budget,
together past the total per compile), splats (64 Expand(scalar, [2^20])),
concat (one Concat of 4000 operands). DIR receives x.npy (and y.npy) and
expected/<output>.npy for the kinds that run.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

kind, path = sys.argv[1:3]
directory = sys.argv[3] if len(sys.argv) > 3 else None
nodes, inits, inputs, outputs = [], [], [], []
feeds, expected = {}, {}


def const(name, array):
    inits.append(numpy_helper.from_array(np.asarray(array), name))
    return name


def folded_plane(name, side, fn):
    """A [1, 1, side, side] float constant the compiler folds: fn(range)."""
    count = side * side
    nodes.append(helper.make_node(
        "Range", [const(name + "_start", np.array(0, np.int64)),
                  const(name + "_limit", np.array(count, np.int64)),
                  const(name + "_delta", np.array(1, np.int64))],
        [name + "_range"]))
    nodes.append(helper.make_node("Cast", [name + "_range"], [name + "_float"],
                                  to=TensorProto.FLOAT))
    nodes.append(helper.make_node(fn, [name + "_float"], [name + "_values"]))
    nodes.append(helper.make_node(
        "Reshape", [name + "_values",
                    const(name + "_shape", np.array([1, 1, side, side], np.int64))],
        [name]))
    values = getattr(np, fn.lower())(np.arange(count, dtype=np.float32))
    return values.astype(np.float32).reshape(1, 1, side, side)


def add_input(name, array):
    inputs.append(helper.make_tensor_value_info(
        name, helper.np_dtype_to_tensor_dtype(array.dtype), list(array.shape)))
    feeds[name] = array


def pools(x, kernel, pads):
    """MaxPool of x [1, 1, H, W], stride 1, in float64."""
    h, w = x.shape[2:]
    padded = np.full((h + pads[0] + pads[2], w + pads[1] + pads[3]), -np.inf)
    padded[pads[0]:pads[0] + h, pads[1]:pads[1] + w] = x[0, 0]
    oh, ow = padded.shape[0] - kernel + 1, padded.shape[1] - kernel + 1
    out = np.empty((oh, ow))
    for i in range(oh):
        rows = padded[i:i + kernel].max(axis=0)
        for j in range(ow):
            out[i, j] = rows[j:j + kernel].max()
    return out.reshape(1, 1, oh, ow)


def conv(x, w, pad):
    """Conv of x [1, 1, H, W] by w [1, 1, K, K], stride 1, in float64."""
    x, w = x[0, 0].astype(np.float64), w[0, 0].astype(np.float64)
    padded = np.pad(x, pad)
    k = w.shape[0]
    oh, ow = padded.shape[0] - k + 1, padded.shape[1] - k + 1
    out = np.zeros((oh, ow))
    for a in range(k):
        for b in range(k):
            out += w[a, b] * padded[a:a + oh, b:b + ow]
    return out.reshape(1, 1, oh, ow)


if kind in ("conv", "conv-small"):
    side, pad = (1024, 500) if kind == "conv" else (64, 60)
    x = folded_plane("image", side, "Sin")
    w = folded_plane("weight", side, "Cos")
    nodes.append(helper.make_node("Conv", ["image", "weight"], ["c"],
                                  pads=[pad] * 4, name="conv_bomb"))
    out = side + 2 * pad - side + 1
    add_input("x", np.linspace(-1, 1, out * out, dtype=np.float32)
              .reshape(1, 1, out, out))
    nodes.append(helper.make_node("Add", ["c", "x"], ["y"]))
    outputs.append(helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                 [1, 1, out, out]))
    if kind == "conv-small":
        expected["y"] = conv(x, w, pad) + feeds["x"]
elif kind == "convtranspose":
    # A run-time input, so nothing folds: the host kernel's col2im columns
    # (4096 rows) take two tiles of input positions.
    w = folded_plane("weight", 64, "Cos")
    add_input("x", np.sin(np.arange(1600, dtype=np.float32))
              .reshape(1, 1, 40, 40))
    nodes.append(helper.make_node("ConvTranspose", ["x", "weight"], ["y"],
                                  pads=[2, 1, 0, 3]))
    out = [39 + 64 - 2, 39 + 64 - 4]
    outputs.append(helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                 [1, 1] + out))
    full = np.zeros((39 + 64, 39 + 64))
    for a in range(40):
        for b in range(40):
            full[a:a + 64, b:b + 64] += feeds["x"][0, 0, a, b] * w[0, 0]
    expected["y"] = full[2:2 + out[0], 1:1 + out[1]].reshape([1, 1] + out)
elif kind in ("maxpool", "maxpool-small"):
    side = 1024 if kind == "maxpool" else 96
    pads = [side // 2, side // 2, side // 2 - 1, side // 2 - 1]
    x = folded_plane("image", side, "Sin")
    nodes.append(helper.make_node("MaxPool", ["image"], ["p"],
                                  kernel_shape=[side, side], pads=pads,
                                  name="maxpool_bomb"))
    add_input("x", np.linspace(-1, 1, side * side, dtype=np.float32)
              .reshape(1, 1, side, side))
    nodes.append(helper.make_node("Add", ["p", "x"], ["y"]))
    outputs.append(helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                 [1, 1, side, side]))
    if kind == "maxpool-small":
        expected["y"] = pools(x, side, pads) + feeds["x"]
elif kind in ("einsum", "einsum-small"):
    length = 1024 if kind == "einsum" else 80
    vectors = []
    for i, fn in enumerate(["Sin", "Cos", "Sin", "Cos"]):
        name = "v%d" % i
        nodes.append(helper.make_node(
            "Range", [const(name + "_start", np.array(i, np.int64)),
                      const(name + "_limit", np.array(i + length, np.int64)),
                      const(name + "_delta", np.array(1, np.int64))],
            [name + "_range"]))
        nodes.append(helper.make_node("Cast", [name + "_range"],
                                      [name + "_float"], to=TensorProto.FLOAT))
        nodes.append(helper.make_node(fn, [name + "_float"], [name]))
        values = getattr(np, fn.lower())(np.arange(i, i + length,
                                                   dtype=np.float32))
        vectors.append(values.astype(np.float32).astype(np.float64))
    nodes.append(helper.make_node("Einsum", ["v0", "v1", "v2", "v3"], ["e"],
                                  equation="a,b,c,d->", name="einsum_bomb"))
    # A [1] input makes the output [1]: graphc run takes no rank-0 output.
    add_input("x", np.array([0.5], np.float32))
    nodes.append(helper.make_node("Add", ["e", "x"], ["y"]))
    outputs.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, [1]))
    if kind == "einsum-small":
        expected["y"] = np.array([np.prod([v.sum() for v in vectors]) + 0.5])
elif kind == "many-einsums":
    # 200 ops of 2^23 element operations each: every one within the budget
    # of one fold, together past the total per compile.
    length, count = 2048, 200
    def vector(name, first):
        nodes.append(helper.make_node(
            "Range", [const(name + "_start", np.array(first, np.int64)),
                      const(name + "_limit", np.array(first + length, np.int64)),
                      const(name + "_delta", np.array(1, np.int64))],
            [name + "_range"]))
        nodes.append(helper.make_node("Cast", [name + "_range"],
                                      [name + "_float"], to=TensorProto.FLOAT))
        nodes.append(helper.make_node("Sin", [name + "_float"], [name]))
        return np.sin(np.arange(first, first + length, dtype=np.float32)) \
            .astype(np.float32).astype(np.float64)
    w = vector("w", 7)
    total = 0.0
    for i in range(count):
        v = vector("v%d" % i, 100 * i)
        nodes.append(helper.make_node("Einsum", ["v%d" % i, "w"], ["e%d" % i],
                                      equation="a,b->"))
        total += v.sum() * w.sum()
    nodes.append(helper.make_node("Identity", ["e0"], ["s0"]))
    for i in range(1, count):
        nodes.append(helper.make_node("Add", ["s%d" % (i - 1), "e%d" % i],
                                      ["s%d" % i]))
    nodes.append(helper.make_node("Identity", ["s%d" % (count - 1)], ["s"]))
    add_input("x", np.array([0.5], np.float32))
    nodes.append(helper.make_node("Add", ["s", "x"], ["y"]))
    outputs.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, [1]))
    expected["y"] = np.array([total + 0.5])
elif kind == "splats":
    # 64 tensors of 2^20 equal elements: half read by a pointwise Add (a
    # literal in its kernel), half by a Concat (filled at run time); one
    # is an output as it is.
    size = 1 << 20
    add_input("x", np.linspace(-1, 1, size, dtype=np.float32))
    shape = const("shape", np.array([size], np.int64))
    axes = const("axes", np.array([0], np.int64))
    for i in range(64):
        value = np.float32(i + 1) / 8
        nodes.append(helper.make_node(
            "Expand", [const("s%d" % i, np.array(value, np.float32)), shape],
            ["e%d" % i], name="expand_%d" % i))
        if i % 2:
            nodes.append(helper.make_node("Add", ["x", "e%d" % i], ["t%d" % i]))
            total = feeds["x"].astype(np.float64).sum() + size * float(value)
        else:
            nodes.append(helper.make_node("Concat", ["x", "e%d" % i],
                                          ["t%d" % i], axis=0))
            total = feeds["x"].astype(np.float64).sum() + size * float(value)
        nodes.append(helper.make_node("ReduceSum", ["t%d" % i, axes],
                                      ["y%d" % i], keepdims=1))
        outputs.append(helper.make_tensor_value_info("y%d" % i,
                                                     TensorProto.FLOAT, [1]))
        expected["y%d" % i] = np.array([total])
    outputs.append(helper.make_tensor_value_info("e0", TensorProto.FLOAT,
                                                 [size]))
    expected["e0"] = np.full(size, np.float32(1) / 8, np.float64)
elif kind == "concat":
    operands = 4000
    add_input("x", np.arange(3, dtype=np.float32).reshape(1, 3))
    add_input("y", -np.arange(3, dtype=np.float32).reshape(1, 3) - 1)
    names = ["x" if i % 3 else "y" for i in range(operands)]
    nodes.append(helper.make_node("Concat", names, ["c"], axis=0,
                                  name="wide_concat"))
    nodes.append(helper.make_node("Relu", ["c"], ["z"]))
    outputs.append(helper.make_tensor_value_info("z", TensorProto.FLOAT,
                                                 [operands, 3]))
    expected["z"] = np.maximum(
        np.concatenate([feeds[n] for n in names], axis=0), 0).astype(np.float64)
elif kind == "max":
    # A Max of 4100 distinct inputs: more pointers than a CUDA kernel takes.
    names = ["x%d" % i for i in range(4100)]
    for name in names:
        inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT,
                                                    [2]))
    nodes.append(helper.make_node("Max", names, ["y"], name="wide_max"))
    outputs.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]))
elif kind == "sum":
    # A Sum and a Mean of 100 inputs: more than the 64 the cpu kernel once
    # held, within a CUDA kernel's parameters.
    names = ["x%d" % i for i in range(100)]
    for i, name in enumerate(names):
        add_input(name, np.array([i, -i, 0.5], np.float32))
    nodes.append(helper.make_node("Sum", names, ["s"], name="wide_sum"))
    nodes.append(helper.make_node("Mean", names, ["m"], name="wide_mean"))
    for name in ("s", "m"):
        outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, [3]))
    total = sum(feeds[n].astype(np.float64) for n in names)
    expected["s"] = total
    expected["m"] = total / len(names)
else:
    sys.exit("unknown kind " + kind)

graph = helper.make_graph(nodes, kind.replace("-", "_"), inputs, outputs, inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, path)
if directory:
    os.makedirs(os.path.join(directory, "expected"), exist_ok=True)
    for name, array in feeds.items():
        np.save(os.path.join(directory, name + ".npy"), array)
    for name, array in expected.items():
        np.save(os.path.join(directory, "expected", name + ".npy"), array)
    # The input files in model order, one per line, for xargs.
    with open(os.path.join(directory, "inputs.txt"), "w") as f:
        for value in inputs:
            f.write(os.path.join(directory, value.name + ".npy") + "\n")
