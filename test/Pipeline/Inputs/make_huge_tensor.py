"""Models whose single op makes a 2^40-element float tensor from tiny
inputs: ConstantOfShape, Tile or Pad. usage: make_huge_tensor.py OP OUT"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

op, path = sys.argv[1:3]
big = 1 << 20
if op == "ConstantOfShape":
    inits = [numpy_helper.from_array(np.array([big, big], np.int64), "shape")]
    node = helper.make_node("ConstantOfShape", ["shape"], ["y"], name="huge_fill",
                            value=numpy_helper.from_array(np.array([1.0], np.float32)))
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])]
    extra = [helper.make_node("Identity", ["x"], ["x_out"], name="keep_x")]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [big, big]),
               helper.make_tensor_value_info("x_out", TensorProto.FLOAT, [1])]
elif op == "Tile":
    inits = [numpy_helper.from_array(np.array([big, big], np.int64), "repeats")]
    node = helper.make_node("Tile", ["x", "repeats"], ["y"], name="huge_tile")
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1])]
    extra = []
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [big, big])]
elif op == "Pad":
    inits = [numpy_helper.from_array(np.array([0, 0, big - 1, big - 1], np.int64), "pads")]
    node = helper.make_node("Pad", ["x", "pads"], ["y"], name="huge_pad")
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1])]
    extra = []
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [big, big])]
else:
    sys.exit(f"unknown op {op}")
graph = helper.make_graph([node] + extra, op.lower(), inputs, outputs, inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, path)
