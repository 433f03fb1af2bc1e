"""A two-layer MLP classifier with a dynamic batch dim named "batch".

    python make_mlp.py OUT.onnx [--external-data]
"""
from onnx import TensorProto, helper

from model_common import Weights, main, make_model


def make_mlp(in_features=784, hidden=128, classes=10, seed=0):
    w = Weights(seed)
    nodes = [
        helper.make_node("Gemm", ["x", w.add("fc1.weight", [hidden, in_features]),
                                  w.add("fc1.bias", [hidden])], ["h"],
                         name="fc1", transB=1),
        helper.make_node("Relu", ["h"], ["h_relu"], name="relu1"),
        helper.make_node("Gemm", ["h_relu", w.add("fc2.weight", [classes, hidden]),
                                  w.add("fc2.bias", [classes])], ["logits"],
                         name="fc2", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", in_features])]
    outputs = [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", classes])]
    return make_model(nodes, "mlp", inputs, outputs, w.initializers, opset=13)


if __name__ == "__main__":
    main(make_mlp, __doc__)
