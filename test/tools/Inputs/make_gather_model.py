"""y = Gather(table, i) for a float32[3,4] table initializer and i int64[2]:
an index of the run's data out of range is the caller's error."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

table = np.arange(12, dtype=np.float32).reshape(3, 4)
graph = helper.make_graph(
    [helper.make_node("Gather", ["table", "i"], ["y"], name="lookup")],
    "gather",
    [helper.make_tensor_value_info("i", TensorProto.INT64, [2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
    initializer=[numpy_helper.from_array(table, "table")],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
