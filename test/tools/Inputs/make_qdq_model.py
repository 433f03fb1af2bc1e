"""A QDQ model with two MatMuls of dequantized int8 values: 'mm_quantized'
(constant scales, zero points of zero: computed on the 8-bit values) and
'mm_runtime_scale', whose activation is dequantized with a scale that is a
model input (stays float: the scale is computed at run time).

    make_qdq_model.py MODEL.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

K, N = 16, 8
rng = np.random.default_rng(0)


def weight(name):
    """An int8 [K, N] weight dequantized per column."""
    return [
        numpy_helper.from_array(
            rng.integers(-127, 128, (K, N), dtype=np.int8), f"{name}_q"),
        numpy_helper.from_array(
            rng.uniform(0.01, 0.02, N).astype(np.float32), f"{name}_scale"),
        numpy_helper.from_array(np.zeros(N, np.int8), f"{name}_zero"),
    ], helper.make_node("DequantizeLinear",
                        [f"{name}_q", f"{name}_scale", f"{name}_zero"],
                        [name], name=f"dq_{name}", axis=1)


w1_inits, dq_w1 = weight("w1")
w2_inits, dq_w2 = weight("w2")
nodes = [
    helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["x_q"],
                     name="q_x"),
    helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero"], ["x_dq"],
                     name="dq_x"),
    dq_w1,
    helper.make_node("MatMul", ["x_dq", "w1"], ["y"], name="mm_quantized"),
    helper.make_node("DequantizeLinear", ["x_q", "run_scale", "x_zero"],
                     ["x_dq_run"], name="dq_x_run"),
    dq_w2,
    helper.make_node("MatMul", ["x_dq_run", "w2"], ["z"],
                     name="mm_runtime_scale"),
]
graph = helper.make_graph(
    nodes, "qdq",
    [helper.make_tensor_value_info("x", T.FLOAT, ["batch", K]),
     helper.make_tensor_value_info("run_scale", T.FLOAT, [])],
    [helper.make_tensor_value_info("y", T.FLOAT, ["batch", N]),
     helper.make_tensor_value_info("z", T.FLOAT, ["batch", N])],
    initializer=[
        numpy_helper.from_array(np.array(0.05, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(0, np.int8), "x_zero"),
    ] + w1_inits + w2_inits,
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.checker.check_model(model, full_check=True)
onnx.save(model, sys.argv[1])
