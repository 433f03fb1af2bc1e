"""The small models of triton-backend-test (BackendTest.cpp).

    python make_backend_models.py OUT_DIR

Writes OUT_DIR/heads.onnx: x [batch, 8] -> logits [batch, 4] and probs
(their softmax) [batch, 4], two outputs with the batch dim on axis 0; and
OUT_DIR/fixed.onnx: the same with x [2, 8], no batch dim; and
OUT_DIR/lookup.onnx: idx [batch] int64 -> rows [batch, 4], row r of a table
of 10 being (r, r + 0.5, r + 1, r + 1.5) (an index out of range is a run's
error).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "models"))
import numpy as np  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

from model_common import Weights, make_model, save  # noqa: E402

FEATURES, HIDDEN, CLASSES = 8, 16, 4


def make_heads(batch):
    w = Weights(seed=7)
    nodes = [
        helper.make_node("Gemm", ["x", w.add("fc1.weight", [HIDDEN, FEATURES]),
                                  w.add("fc1.bias", [HIDDEN])], ["h"], name="fc1",
                         transB=1),
        helper.make_node("Relu", ["h"], ["h_relu"], name="relu1"),
        helper.make_node("Gemm", ["h_relu", w.add("fc2.weight", [CLASSES, HIDDEN]),
                                  w.add("fc2.bias", [CLASSES])], ["logits"],
                         name="fc2", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, FEATURES])]
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [batch, CLASSES])
               for name in ("logits", "probs")]
    return make_model(nodes, "heads", inputs, outputs, w.initializers, opset=13)


def make_lookup():
    w = Weights()
    table = np.arange(10, dtype=np.float32)[:, None] + 0.5 * np.arange(CLASSES, dtype=np.float32)
    nodes = [helper.make_node("Gather", [w.const("table", table), "idx"], ["rows"],
                              name="lookup", axis=0)]
    inputs = [helper.make_tensor_value_info("idx", TensorProto.INT64, ["batch"])]
    outputs = [helper.make_tensor_value_info("rows", TensorProto.FLOAT, ["batch", CLASSES])]
    return make_model(nodes, "lookup", inputs, outputs, w.initializers, opset=13)


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    save(make_heads("batch"), os.path.join(out, "heads.onnx"))
    save(make_heads(2), os.path.join(out, "fixed.onnx"))
    save(make_lookup(), os.path.join(out, "lookup.onnx"))
