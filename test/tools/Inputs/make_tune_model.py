"""A model whose generated kernels depend on their block size, for
`graphc tune`: y = Relu(x * x + x) (a grid-stride pointwise kernel) and
z = Softmax(x) along rows of 2048 (a per-row kernel), x float32[batch, 2048].
"""
import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph(
    [
        helper.make_node("Mul", ["x", "x"], ["square"], name="square"),
        helper.make_node("Add", ["square", "x"], ["sum"], name="add"),
        helper.make_node("Relu", ["sum"], ["y"], name="relu"),
        helper.make_node("Softmax", ["x"], ["z"], name="softmax", axis=-1),
    ],
    "tune",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2048])],
    [
        helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2048]),
        helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 2048]),
    ],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
