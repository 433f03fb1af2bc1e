"""An embedding lookup: Gather along axis 0 of a [50, 64] table by [2, 8]
indices (rows of 16 vectors of 4 floats: the whole-row template), and of a
[7, 3] table by the same indices modulo 7 (rows of 3: the per-element
template). Writes the model, the inputs and the expected outputs.

usage: make_embedding.py OUT.onnx DIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out, directory = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(5)
nodes = [
    helper.make_node("Gather", ["table", "ids"], ["rows"], name="embed", axis=0),
    helper.make_node("Gather", ["small", "small_ids"], ["small_rows"],
                     name="embed_small", axis=0),
]
graph = helper.make_graph(
    nodes, "embedding",
    [helper.make_tensor_value_info("table", TensorProto.FLOAT, [50, 64]),
     helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 8]),
     helper.make_tensor_value_info("small", TensorProto.FLOAT, [7, 3]),
     helper.make_tensor_value_info("small_ids", TensorProto.INT64, [2, 8])],
    [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [2, 8, 64]),
     helper.make_tensor_value_info("small_rows", TensorProto.FLOAT, [2, 8, 3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, out)

os.makedirs(directory, exist_ok=True)
table = rng.standard_normal((50, 64)).astype(np.float32)
small = rng.standard_normal((7, 3)).astype(np.float32)
# Negative indices count from the end.
ids = rng.integers(-50, 50, (2, 8)).astype(np.int64)
ids[0, 0], ids[1, 7] = 49, -50
small_ids = ids % 7
np.save(os.path.join(directory, "table.npy"), table)
np.save(os.path.join(directory, "small.npy"), small)
np.save(os.path.join(directory, "ids.npy"), ids)
np.save(os.path.join(directory, "small_ids.npy"), small_ids)
np.save(os.path.join(directory, "expected_rows.npy"), table[ids])
np.save(os.path.join(directory, "expected_small_rows.npy"), small[small_ids])
bad = ids.copy()
bad[1, 3] = 50
np.save(os.path.join(directory, "bad_ids.npy"), bad)
