"""A model of row kernels (softmax, normalisations, reductions, pools, TopK,
ArgMax), for checking rows_per_block: rows of 40 elements (more than a
warp), and reductions over a middle axis (rows that are not contiguous).

usage: make_row_ops.py OUT.onnx INPUTS_DIR (writes x.npy and y.npy)"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out, inputs = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(3)
f32 = TensorProto.FLOAT


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


nodes = [
    helper.make_node("Softmax", ["x"], ["softmax"], axis=-1),
    helper.make_node("LogSoftmax", ["x"], ["log_softmax"], axis=-1),
    helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["layer_norm"],
                     axis=-1, epsilon=1e-5),
    helper.make_node("LpNormalization", ["x"], ["lp_norm"], axis=-1, p=2),
    helper.make_node("ReduceSum", ["x", "last"], ["sum"], keepdims=0),
    helper.make_node("ReduceLogSumExp", ["x", "last"], ["log_sum_exp"], keepdims=1),
    helper.make_node("ReduceMax", ["y", "middle"], ["max_middle"], keepdims=0),
    helper.make_node("ReduceMean", ["y", "middle"], ["mean_middle"], keepdims=1),
    helper.make_node("Unsqueeze", ["y", "unsqueeze_axes"], ["y4"]),
    helper.make_node("GlobalAveragePool", ["y4"], ["pool"]),
    helper.make_node("TopK", ["x", "k"], ["top_values", "top_indices"], axis=-1),
    helper.make_node("ArgMax", ["x"], ["arg_max"], axis=-1, keepdims=0),
]
inits = [const("scale", rng.standard_normal(40).astype(np.float32)),
         const("bias", rng.standard_normal(40).astype(np.float32)),
         const("last", np.array([-1], np.int64)),
         const("middle", np.array([1], np.int64)),
         const("k", np.array([3], np.int64)),
         const("unsqueeze_axes", np.array([3], np.int64))]
outputs = [("softmax", f32, [6, 40]), ("log_softmax", f32, [6, 40]),
           ("layer_norm", f32, [6, 40]), ("lp_norm", f32, [6, 40]),
           ("sum", f32, [6]), ("log_sum_exp", f32, [6, 1]),
           ("max_middle", f32, [5, 7]), ("mean_middle", f32, [5, 1, 7]),
           ("pool", f32, [5, 3, 1, 1]), ("top_values", f32, [6, 3]),
           ("top_indices", TensorProto.INT64, [6, 3]),
           ("arg_max", TensorProto.INT64, [6])]
graph = helper.make_graph(
    nodes, "row_ops",
    [helper.make_tensor_value_info("x", f32, [6, 40]),
     helper.make_tensor_value_info("y", f32, [5, 3, 7])],
    [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, out)
os.makedirs(inputs, exist_ok=True)
np.save(os.path.join(inputs, "x.npy"), rng.standard_normal((6, 40)).astype(np.float32))
np.save(os.path.join(inputs, "y.npy"), rng.standard_normal((5, 3, 7)).astype(np.float32))
