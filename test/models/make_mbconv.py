"""An EfficientNet MBConv block as torch.onnx writes it: a 1x1 expansion
convolution, a depthwise 3x3 one, each with batch norm and SiLU (Sigmoid
then Mul), squeeze-and-excitation (a global average pool, two 1x1
convolutions with SiLU and Sigmoid, a Mul scaling the channels), a 1x1
projection with batch norm, and the residual add. Input [batch, 8, 12, 12],
output [batch, 8, 12, 12], with a dynamic dim named "batch".

    python make_mbconv.py OUT.onnx [--external-data]
"""
from onnx import TensorProto, helper

from model_common import Weights, main, make_model


class Builder:
    def __init__(self, seed):
        self.w = Weights(seed)
        self.nodes = []

    def node(self, op, inputs, name, **attributes):
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attributes))
        return name

    def silu(self, x, name):
        sigmoid = self.node("Sigmoid", [x], f"{name}.sigmoid")
        return self.node("Mul", [x, sigmoid], f"{name}.silu")

    def conv_bn(self, x, name, cin, cout, kernel, groups=1):
        weight = self.w.add(f"{name}.weight", [cout, cin // groups, kernel, kernel], 0.3)
        conv = self.node("Conv", [x, weight], f"{name}.conv", kernel_shape=[kernel, kernel],
                         pads=[kernel // 2] * 4, group=groups)
        bn = [self.w.add(f"{name}.bn.scale", [cout], 0.1),
              self.w.add(f"{name}.bn.bias", [cout], 0.1),
              self.w.add(f"{name}.bn.mean", [cout], 0.1)]
        self.w.const(f"{name}.bn.var", (self.w.rng.random(cout) + 0.5).astype("float32"))
        return self.node("BatchNormalization", [conv, *bn, f"{name}.bn.var"], f"{name}.bn",
                         epsilon=1e-5)


def make_mbconv(channels=8, expand=4, squeeze=2, seed=0):
    b = Builder(seed)
    wide = channels * expand
    h = b.silu(b.conv_bn("x", "expand", channels, wide, 1), "expand")
    h = b.silu(b.conv_bn(h, "depthwise", wide, wide, 3, groups=wide), "depthwise")
    pooled = b.node("GlobalAveragePool", [h], "se.pool")
    reduce_w = b.w.add("se.reduce.weight", [squeeze, wide, 1, 1], 0.3)
    reduce_b = b.w.add("se.reduce.bias", [squeeze])
    s = b.silu(b.node("Conv", [pooled, reduce_w, reduce_b], "se.reduce",
                      kernel_shape=[1, 1]), "se.reduce")
    expand_w = b.w.add("se.expand.weight", [wide, squeeze, 1, 1], 0.3)
    expand_b = b.w.add("se.expand.bias", [wide])
    gate = b.node("Sigmoid", [b.node("Conv", [s, expand_w, expand_b], "se.expand",
                                     kernel_shape=[1, 1])], "se.gate")
    h = b.node("Mul", [h, gate], "se.scale")
    h = b.conv_bn(h, "project", wide, channels, 1)
    b.node("Add", [h, "x"], "y")
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", channels, 12, 12])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", channels, 12, 12])]
    return make_model(b.nodes, "mbconv", inputs, outputs, b.w.initializers, opset=17)


if __name__ == "__main__":
    main(make_mbconv, __doc__)
