"""Fuzzes the preconditions of the unbind-to-split rewrite
(passes/MergeProjections.cpp): many small models whose Gathers are, or
almost are, the unbind of a tensor (every index of an axis once, as constant
scalars), mutated: an index missing or taken twice, counted from the end,
an axis mixed in, the tensor read by another op too, an index that is an
input, a [1] or [2] index tensor, unbinds of the unbind's parts, other
ranks and sizes. Each model is compiled for the cpu and run against
onnxruntime: the compiler must neither crash nor change a result.

usage: fuzz_unbind.py GRAPHC WORK_DIR [--models N] [--seed S]"""
import argparse
import os
import random
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import graphc

# onnxruntime warns about the initializers a model leaves unused.
QUIET = ort.SessionOptions()
QUIET.log_severity_level = 3

parser = argparse.ArgumentParser()
parser.add_argument("graphc")
parser.add_argument("work_dir")
parser.add_argument("--models", type=int, default=12)
parser.add_argument("--seed", type=int, default=1)
args = parser.parse_args()


class Builder:
    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.feeds = {}
        self.count = 0

    def name(self, stem):
        self.count += 1
        return f"{stem}{self.count}"

    def const(self, values, shape=None):
        name = self.name("c")
        array = np.array(values, np.int64)
        if shape is not None:
            array = array.reshape(shape)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def output(self, value):
        self.outputs.append(helper.make_tensor_value_info(value, TensorProto.FLOAT, None))

    def unbind(self, source, shape, depth):
        """Gathers of `source` [shape] that unbind it, maybe mutated; their
        results become outputs or are unbound again."""
        rng = self.rng
        rank = len(shape)
        axis = rng.randrange(rank)
        n = shape[axis]
        indices = list(range(n))
        mutation = rng.choice(["none", "none", "missing", "twice", "negative",
                               "mixed_axis", "extra_user", "input_index",
                               "vector_index", "matrix_index", "nested", "nested"])
        if mutation == "missing" and n > 1:
            indices.pop(rng.randrange(n))
        if mutation == "twice":
            indices.append(rng.randrange(n))
        rng.shuffle(indices)
        part_shape = shape[:axis] + shape[axis + 1:]
        for position, index in enumerate(indices):
            gather_axis = axis if rng.random() < 0.5 else axis - rank
            index_shape = []
            if mutation == "negative" and rng.random() < 0.5:
                index -= n
            if mutation == "mixed_axis" and position == 0 and rank > 1:
                gather_axis = (axis + 1) % rank
                index = 0
            if mutation == "input_index" and position == 0:
                name = self.name("idx")
                self.inputs.append(helper.make_tensor_value_info(name, TensorProto.INT64, []))
                self.feeds[name] = np.array(index, np.int64)
                idx = name
            elif mutation == "vector_index" and position == 0:
                idx = self.const([index], [1])
                index_shape = [1]
            elif mutation == "matrix_index" and position == 0:
                idx = self.const([index, index], [1, 2])
                index_shape = [1, 2]
            else:
                idx = self.const(index, [])
            real_axis = gather_axis % rank
            result_shape = shape[:real_axis] + index_shape + shape[real_axis + 1:]
            part = self.node("Gather", [source, idx], axis=gather_axis)
            if mutation == "nested" and depth < 2 and len(result_shape) > 0 \
                    and not index_shape and real_axis == axis:
                self.unbind(part, result_shape, depth + 1)
            else:
                self.output(self.node("Relu", [part]))
        if mutation == "extra_user":
            self.output(self.node("Sigmoid", [source]))
        return mutation


def make_model(seed, path):
    rng = random.Random(seed)
    b = Builder(rng)
    mutations = []
    for case in range(4):
        rank = rng.randint(1, 4)
        shape = [rng.randint(1, 3) for _ in range(rank)]
        name = f"x{case}"
        b.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
        b.feeds[name] = np.random.default_rng(seed * 10 + case).standard_normal(
            shape).astype(np.float32)
        # An intermediate, as an exporter's packed projection is.
        source = b.node("Mul", [name, name]) if rng.random() < 0.7 else name
        mutations.append(b.unbind(source, shape, 0))
    graph = helper.make_graph(b.nodes, f"unbind{seed}", b.inputs, b.outputs, b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return b.feeds, mutations


os.makedirs(args.work_dir, exist_ok=True)
seen = set()
for model_index in range(args.models):
    seed = args.seed * 1000 + model_index
    path = os.path.join(args.work_dir, f"unbind{model_index}.onnx")
    feeds, mutations = make_model(seed, path)
    seen.update(mutations)
    so = path[:-5] + ".so"
    proc = subprocess.run([args.graphc, "compile", path, "--target", "cpu", "-o", so,
                           "--quiet"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{path} ({mutations}): graphc exited {proc.returncode}\n"
                         f"{proc.stderr}")
    want = ort.InferenceSession(path, QUIET, providers=["CPUExecutionProvider"]).run(None, feeds)
    with graphc.load(so) as model:
        got = [t.numpy() for t in model.run(feeds)]
    for w, g in zip(want, got):
        if w.shape != g.shape or not np.allclose(w, g, rtol=1e-6, atol=1e-6):
            raise SystemExit(f"{path} ({mutations}): {g.shape} differs from "
                             f"onnxruntime's {w.shape}")
print(f"{args.models} models, mutations {sorted(seen)}: no crash, results match")
