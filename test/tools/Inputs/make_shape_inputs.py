"""sum = ReduceSum(x, axes, keepdims=0) and flat = Reshape(x, shape) for
x float32[2,3,4]: axes int64[1] and shape int64[2] are model inputs whose
values, not shapes, determine the outputs' shapes. With --resize:
y = Resize(x, scales) (nearest) for x float32[1,1,2,2] and scales float32[4]."""
import sys

import onnx
from onnx import TensorProto, helper

resize = sys.argv[1] == "--resize"
path = sys.argv[-1]
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
if resize:
    graph = helper.make_graph(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="up",
                          mode="nearest")],
        "resize_scales",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 2, 2]),
         helper.make_tensor_value_info("scales", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
model.ir_version = 8
onnx.save(model, path)
