"""Models that fail in known places when narrowed, for graphc verify.

usage: make_verify_models.py KIND OUT.onnx [DIR]

KIND:
  overflow  y = MatMul(Exp(14 * x), W) for x float32[4,64]: node 'exp_big'
            exceeds float16's 65504 where x > 0.79 (e^14 = 1.2e6).
  fits      the same with Exp(4 * x) (at most 55): correct in float16.
  dynamic   overflow with x float32[batch,64], y float32[batch,8].
  log       y = Log(3 * x - 3.00099) for x float32[1,4]: with DIR/x.npy
            (1.0004) the difference is 2.1e-4 in float32, but float16
            rounds x to 1.0 and the offset up to 3.00195, so node 'log_gap'
            takes the log of a negative number: NaN.
  cancel    y = Gemm(x, A, 100) - Gemm(z, B, 100) for x, z float32[4,16]:
            each product is 100 plus a few hundredths, which bfloat16 (8
            bits of mantissa) rounds to steps of 0.5, so node 'diff'
            cancels to an error several times its result.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

kind, path = sys.argv[1:3]
directory = sys.argv[3] if len(sys.argv) > 3 else None
nodes, inits = [], []
rng = np.random.default_rng(0)


def const(name, array):
    inits.append(numpy_helper.from_array(np.asarray(array), name))
    return name


def value(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


if kind in ("overflow", "fits", "dynamic"):
    scale = 4.0 if kind == "fits" else 14.0
    nodes += [
        helper.make_node("Mul", ["x", const("scale", np.float32(scale))],
                         ["scaled"], name="scale_x"),
        helper.make_node("Exp", ["scaled"], ["big"], name="exp_big"),
        helper.make_node(
            "MatMul",
            ["big", const("w", (rng.standard_normal((64, 8)) * 1e-4)
                          .astype(np.float32))],
            ["y"], name="project"),
    ]
    rows = "batch" if kind == "dynamic" else 4
    inputs, outputs = [value("x", [rows, 64])], [value("y", [rows, 8])]
elif kind == "log":
    nodes += [
        helper.make_node("Mul", ["x", const("three", np.float32(3))],
                         ["tripled"], name="triple"),
        helper.make_node("Sub", ["tripled", const("offset",
                                                  np.float32(3.00099))],
                         ["gap"], name="sub_gap"),
        helper.make_node("Log", ["gap"], ["y"], name="log_gap"),
    ]
    inputs, outputs = [value("x", [1, 4])], [value("y", [1, 4])]
    if directory:
        os.makedirs(directory, exist_ok=True)
        np.save(os.path.join(directory, "x.npy"),
                np.full((1, 4), 1.0004, np.float32))
elif kind == "cancel":
    nodes += [
        helper.make_node(
            "Gemm",
            ["x", const("a", (rng.standard_normal((16, 8)) * 0.02)
                        .astype(np.float32)),
             const("bias_a", np.full(8, 100, np.float32))],
            ["pa"], name="proj_a"),
        helper.make_node(
            "Gemm",
            ["z", const("b", (rng.standard_normal((16, 8)) * 0.02)
                        .astype(np.float32)),
             const("bias_b", np.full(8, 100, np.float32))],
            ["pb"], name="proj_b"),
        helper.make_node("Sub", ["pa", "pb"], ["y"], name="diff"),
    ]
    inputs = [value("x", [4, 16]), value("z", [4, 16])]
    outputs = [value("y", [4, 8])]
else:
    sys.exit("unknown kind " + kind)

graph = helper.make_graph(nodes, kind, inputs, outputs, inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, path)
