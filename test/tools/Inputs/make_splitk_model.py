"""A GEMM whose output is a few tiles and whose K is deep, the shape split-K
helps (BERT's FFN2 at batch 1): y = x W + b, x float32[batch, 512],
W [512, 16] with values that are small multiples of 1/8, so that every
order of summation gives the same float32 result.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
w = (rng.integers(-8, 9, size=(512, 16)) / 8).astype(np.float32)
b = (rng.integers(-8, 9, size=(16,)) / 8).astype(np.float32)
graph = helper.make_graph(
    [helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="ffn2")],
    "splitk",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 512])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 16])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
