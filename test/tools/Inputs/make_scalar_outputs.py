"""A model of x float32[2,3] with rank-0 outputs and two outputs whose names
map to one file name: loss = ReduceSum(x) (keepdims 0), n = Size(x),
'y:0' = Relu(x) and 'y_0' = Neg(x)."""
import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph(
    [
        helper.make_node("ReduceSum", ["x"], ["loss"], name="sum",
                         keepdims=0),
        helper.make_node("Size", ["x"], ["n"], name="size"),
        helper.make_node("Relu", ["x"], ["y:0"], name="relu"),
        helper.make_node("Neg", ["x"], ["y_0"], name="neg"),
    ],
    "scalars",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
    [
        helper.make_tensor_value_info("loss", TensorProto.FLOAT, []),
        helper.make_tensor_value_info("n", TensorProto.INT64, []),
        helper.make_tensor_value_info("y:0", TensorProto.FLOAT, [2, 3]),
        helper.make_tensor_value_info("y_0", TensorProto.FLOAT, [2, 3]),
    ],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
