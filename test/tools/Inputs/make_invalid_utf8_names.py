"""A model whose input and output names hold bytes that are not UTF-8
(ONNX stores names as proto2 strings, which do not enforce it): written with
placeholder names, then patched byte for byte in the serialized model."""
import sys

import onnx
from onnx import TensorProto, helper

nodes = [helper.make_node("Relu", ["inQQQ"], ["outQQQ"], name="node")]
graph = helper.make_graph(
    nodes,
    "invalid_utf8",
    [helper.make_tensor_value_info("inQQQ", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("outQQQ", TensorProto.FLOAT, [2, 3])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
data = model.SerializeToString()
data = data.replace(b"inQQQ", b"in\xff\xfe\x80").replace(b"outQQQ", b"out\xc3\x28\xa0")
open(sys.argv[1], "wb").write(data)
