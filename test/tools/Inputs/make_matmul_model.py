"""y = x @ W for x float32[1,512] and a 512x512 float32 initializer W
(1 MiB of weights, appended to the compiled .so)."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

weights = np.random.default_rng(0).standard_normal((512, 512)).astype(
    np.float32)
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")],
    "matmul",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 512])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 512])],
    initializer=[numpy_helper.from_array(weights, "w")],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
