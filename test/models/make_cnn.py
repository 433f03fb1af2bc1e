"""A small CNN classifier whose image size is dynamic: two conv/relu layers
(the second strided), global average pool and a Gemm. Input
[batch, 3, size, size], output [batch, 10]. Padding "batch" is safe; padding
"size" is not (convolutions and the pool read along it), so it compiles to
exact sizes.

    python make_cnn.py OUT.onnx [--external-data]
"""
from onnx import TensorProto, helper

from model_common import Weights, main, make_model


def make_cnn(channels=16, classes=10, seed=0):
    w = Weights(seed)
    nodes = [
        helper.make_node("Conv", ["image", w.add("conv1.weight", [channels, 3, 3, 3]),
                                  w.add("conv1.bias", [channels])], ["c1"],
                         name="conv1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", w.add("conv2.weight", [channels, channels, 3, 3]),
                                  w.add("conv2.bias", [channels])], ["c2"],
                         name="conv2", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["pooled"], name="pool"),
        helper.make_node("Flatten", ["pooled"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", w.add("fc.weight", [classes, channels]),
                                  w.add("fc.bias", [classes])], ["logits"],
                         name="fc", transB=1),
    ]
    inputs = [helper.make_tensor_value_info("image", TensorProto.FLOAT,
                                            ["batch", 3, "size", "size"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", classes])]
    return make_model(nodes, "cnn", inputs, outputs, w.initializers, opset=17)


if __name__ == "__main__":
    main(make_cnn, __doc__)
