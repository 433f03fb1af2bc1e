"""A chain of MatMul layers of distinct widths, y = x W_1 W_2 ... W_n, for
the compile cache's module units: with --libraries none every layer is a
kernel of its own. `--relu K` puts a Relu after layer K: the same model but
one layer. `--insert K` puts one more square layer after layer K: the same
model with a layer more, every other layer and node name unchanged.

usage: make_layer_chain.py OUT.onnx [--layers N] [--relu K] [--insert K]
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

parser = argparse.ArgumentParser()
parser.add_argument("output")
parser.add_argument("--layers", type=int, default=24)
parser.add_argument("--relu", type=int, default=-1)
parser.add_argument("--insert", type=int, default=-1)
args = parser.parse_args()

widths = [8 + 4 * (i % 7) + i for i in range(args.layers + 1)]
rng = np.random.default_rng(0)
nodes, initializers = [], []
value = "x"
for i in range(args.layers):
    weight = f"w{i}"
    initializers.append(numpy_helper.from_array(
        rng.standard_normal((widths[i], widths[i + 1])).astype(np.float32) / 8,
        weight))
    out = f"h{i}"
    nodes.append(helper.make_node("MatMul", [value, weight], [out], name=f"layer{i}"))
    value = out
    if i == args.relu:
        nodes.append(helper.make_node("Relu", [value], [out + "_relu"], name=f"relu{i}"))
        value = out + "_relu"
    if i == args.insert:
        width = widths[i + 1]
        initializers.append(numpy_helper.from_array(
            np.eye(width, dtype=np.float32) / 2, "w_inserted"))
        nodes.append(helper.make_node("MatMul", [value, "w_inserted"], ["h_inserted"],
                                      name="inserted"))
        value = "h_inserted"
nodes.append(helper.make_node("Identity", [value], ["y"], name="output"))
graph = helper.make_graph(
    nodes, "chain",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, widths[0]])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, widths[-1]])],
    initializers)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, args.output)
