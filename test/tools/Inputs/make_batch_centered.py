"""x float32[batch, 4] minus its mean over the batch: every output row
depends on every input row, so padding the batch is not exact.

usage: make_batch_centered.py OUT.onnx"""
import sys

import onnx
from onnx import TensorProto, helper

nodes = [
    helper.make_node("ReduceMean", ["x"], ["mean"], name="batch_mean", axes=[0], keepdims=1),
    helper.make_node("Sub", ["x", "mean"], ["centered"], name="center"),
]
graph = helper.make_graph(
    nodes,
    "batch_centered",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
    [helper.make_tensor_value_info("centered", TensorProto.FLOAT, ["batch", 4])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, sys.argv[-1])
