"""A model with named dims shared by two inputs and an unnamed one:
ids int64[batch, seq] and image float32[batch, 3, ?]. With --static every
dim is fixed and none is named.

usage: make_open_dims.py [--static] OUT.onnx"""
import sys

import onnx
from onnx import TensorProto, helper

static = "--static" in sys.argv
ids_dims = [2, 5] if static else ["batch", "seq"]
image_dims = [2, 3, 8] if static else ["batch", 3, None]
nodes = [
    helper.make_node("Add", ["ids", "ids"], ["twice"], name="double"),
    helper.make_node("Relu", ["image"], ["positive"], name="relu"),
]
graph = helper.make_graph(
    nodes,
    "open_dims",
    [helper.make_tensor_value_info("ids", TensorProto.INT64, ids_dims),
     helper.make_tensor_value_info("image", TensorProto.FLOAT, image_dims)],
    [helper.make_tensor_value_info("twice", TensorProto.INT64, ids_dims),
     helper.make_tensor_value_info("positive", TensorProto.FLOAT, image_dims)],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, sys.argv[-1])
