"""A residual stack in the form of torch's TorchScript export of
nn.MultiheadAttention (ViT): each layer reshapes a transposed copy of the
stream to a target computed from its Shape, and adds it back. At batch 1 the
residual Add broadcasts the stream's 1 against the reshape's not yet known
dim, so the stream's type is known one layer at a time while the shapes
fold; at batch 2 it is known at once. A size of 1 must compile as 2 does.

usage: make_residual_reshapes.py OUT.onnx [LAYERS]"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
layers = int(sys.argv[2]) if len(sys.argv) > 2 else 24
nodes, inits = [], [numpy_helper.from_array(np.array(1, np.int64), "one"),
                    numpy_helper.from_array(np.array([0], np.int64), "axis0"),
                    numpy_helper.from_array(np.array([4, 8], np.int64), "rest")]
stream = "x"
for i in range(layers):
    p = f"layer{i}/"
    inits.append(numpy_helper.from_array(
        np.random.default_rng(i).standard_normal((8, 8)).astype(np.float32) * 0.1,
        p + "w"))
    nodes += [
        helper.make_node("MatMul", [stream, p + "w"], [p + "proj"], name=p + "MatMul"),
        # [batch, 4, 8] -> [4, batch, 8], the sequence-first layout.
        helper.make_node("Transpose", [p + "proj"], [p + "t"], name=p + "Transpose",
                         perm=[1, 0, 2]),
        helper.make_node("Shape", [p + "t"], [p + "shape"], name=p + "Shape"),
        helper.make_node("Gather", [p + "shape", "one"], [p + "batch"], name=p + "Gather",
                         axis=0),
        helper.make_node("Unsqueeze", [p + "batch", "axis0"], [p + "batch1"],
                         name=p + "Unsqueeze"),
        helper.make_node("Concat", [p + "batch1", "rest"], [p + "target"],
                         name=p + "Concat", axis=0),
        helper.make_node("Transpose", [p + "t"], [p + "back"], name=p + "Transpose_1",
                         perm=[1, 0, 2]),
        helper.make_node("Reshape", [p + "back", p + "target"], [p + "reshaped"],
                         name=p + "Reshape_7"),
        helper.make_node("Add", [stream, p + "reshaped"], [p + "out"], name=p + "Add"),
    ]
    stream = p + "out"
graph = helper.make_graph(
    nodes, "residual_reshapes",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 8])],
    [helper.make_tensor_value_info(stream, TensorProto.FLOAT, ["batch", 4, 8])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, out)
