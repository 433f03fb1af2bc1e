"""A model whose input, output and node names hold non-ASCII and control
characters, to check that they reach the artifact byte for byte."""
import sys

import onnx
from onnx import TensorProto, helper

nodes = [helper.make_node("Relu", ["x\u00e9"], ["r\u00e9s"], name="\u00e9_node\n?")]
graph = helper.make_graph(
    nodes,
    "unicode",
    [helper.make_tensor_value_info("x\u00e9", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("r\u00e9s", TensorProto.FLOAT, [2, 3])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
