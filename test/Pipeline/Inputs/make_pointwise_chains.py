"""Pointwise chains that fuse into generated cpu loops, and inputs for them.

  y_chain   float32[2,3,4,5]: ((x + s) * b), ReLU, then Where(x > 0, .., -x),
            through a float16 round trip (Cast, Mul by a half constant, Cast
            back); s is [3,1,1] and b is [5], so the loop reads them at
            strides that no two dims share.
  y_int     int64[2,3,4,5]: (k + 7) * k, with k broadcast from [4,1].
  y_linear  float32[6,8]: Sigmoid(h @ W + c) + h @ R, a mat_mul epilogue.

usage: make_pointwise_chains.py OUT.onnx INPUT_DIR (writes x.npy, k.npy, h.npy)"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out, input_dir = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


inits = [
    const("s", rng.standard_normal((3, 1, 1)).astype(np.float32)),
    const("b", rng.standard_normal((5,)).astype(np.float32)),
    const("zero", np.zeros((), np.float32)),
    const("third", np.full((), 1 / 3, np.float16)),
    const("seven", np.array(7, np.int64)),
    const("W", rng.standard_normal((8, 8)).astype(np.float32)),
    const("c", rng.standard_normal((8,)).astype(np.float32)),
]
nodes = [
    helper.make_node("Add", ["x", "s"], ["xs"], name="add_s"),
    helper.make_node("Mul", ["xs", "b"], ["xsb"], name="mul_b"),
    helper.make_node("Relu", ["xsb"], ["r"], name="relu"),
    helper.make_node("Greater", ["x", "zero"], ["pos"], name="positive"),
    helper.make_node("Neg", ["x"], ["nx"], name="neg"),
    helper.make_node("Where", ["pos", "r", "nx"], ["w"], name="where"),
    helper.make_node("Cast", ["w"], ["w16"], to=TensorProto.FLOAT16,
                     name="to_half"),
    helper.make_node("Mul", ["w16", "third"], ["t16"], name="mul_third"),
    helper.make_node("Cast", ["t16"], ["y_chain"], to=TensorProto.FLOAT,
                     name="to_float"),
    helper.make_node("Add", ["k", "seven"], ["k7"], name="add_seven"),
    helper.make_node("Mul", ["k7", "k"], ["y_int0"], name="mul_k"),
    helper.make_node("Expand", ["y_int0", "int_shape"], ["y_int"],
                     name="expand"),
    helper.make_node("MatMul", ["h", "W"], ["hw"], name="matmul"),
    helper.make_node("Add", ["hw", "c"], ["hwc"], name="bias"),
    helper.make_node("Sigmoid", ["hwc"], ["sig"], name="sigmoid"),
    helper.make_node("Add", ["sig", "h"], ["y_linear"], name="residual"),
]
inits.append(const("int_shape", np.array([2, 3, 4, 5], np.int64)))
graph = helper.make_graph(
    nodes, "pointwise_chains",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 5]),
     helper.make_tensor_value_info("k", TensorProto.INT64, [4, 1]),
     helper.make_tensor_value_info("h", TensorProto.FLOAT, [6, 8])],
    [helper.make_tensor_value_info("y_chain", TensorProto.FLOAT, [2, 3, 4, 5]),
     helper.make_tensor_value_info("y_int", TensorProto.INT64, [2, 3, 4, 5]),
     helper.make_tensor_value_info("y_linear", TensorProto.FLOAT, [6, 8])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, out)

os.makedirs(input_dir, exist_ok=True)
np.save(os.path.join(input_dir, "x.npy"),
        rng.standard_normal((2, 3, 4, 5)).astype(np.float32))
np.save(os.path.join(input_dir, "k.npy"),
        rng.integers(-50, 50, (4, 1)).astype(np.int64))
np.save(os.path.join(input_dir, "h.npy"),
        rng.standard_normal((6, 8)).astype(np.float32))
