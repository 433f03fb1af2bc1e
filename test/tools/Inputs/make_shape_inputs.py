"""sum = ReduceSum(x, axes, keepdims=0) and flat = Reshape(x, shape) for
x float32[2,3,4]: axes int64[1] and shape int64[2] are model inputs whose
values, not shapes, determine the outputs' shapes."""
import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph(
    [helper.make_node("ReduceSum", ["x", "axes"], ["sum"], name="total",
                      keepdims=0),
     helper.make_node("Reshape", ["x", "shape"], ["flat"], name="flatten")],
    "shape_inputs",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4]),
     helper.make_tensor_value_info("axes", TensorProto.INT64, [1]),
     helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
    [helper.make_tensor_value_info("sum", TensorProto.FLOAT, None),
     helper.make_tensor_value_info("flat", TensorProto.FLOAT, None)],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
