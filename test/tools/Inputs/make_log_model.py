"""y = Log(x) for x float32[6]: negative inputs give NaN, zero gives -Inf,
so that `graphc run` has non-finite values to count."""
import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph(
    [helper.make_node("Log", ["x"], ["y"], name="log")],
    "log",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
