"""Writes the bundled example model: a small MLP classifier with a dynamic
batch dim named "batch" (MatMul, Add, Relu, Gemm, Softmax)."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def make_model() -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((64, 128)).astype(np.float32) * 0.1
    b1 = rng.standard_normal((128,)).astype(np.float32) * 0.1
    w2 = rng.standard_normal((128, 10)).astype(np.float32) * 0.1
    b2 = rng.standard_normal((10,)).astype(np.float32) * 0.1
    nodes = [
        helper.make_node("MatMul", ["features", "w1"], ["h0"], name="fc1"),
        helper.make_node("Add", ["h0", "b1"], ["h1"], name="fc1_bias"),
        helper.make_node("Relu", ["h1"], ["h2"], name="relu1"),
        helper.make_node("Gemm", ["h2", "w2", "b2"], ["logits"], name="fc2"),
        helper.make_node("Softmax", ["logits"], ["probabilities"], axis=-1, name="softmax"),
    ]
    graph = helper.make_graph(
        nodes,
        "example_mlp",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 64])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", 10])],
        initializer=[
            numpy_helper.from_array(w1, "w1"),
            numpy_helper.from_array(b1, "b1"),
            numpy_helper.from_array(w2, "w2"),
            numpy_helper.from_array(b2, "b2"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_example.py OUT.onnx")
    onnx.save(make_model(), sys.argv[1])
