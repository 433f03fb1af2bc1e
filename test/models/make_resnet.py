"""A small ResNet: conv/batch-norm/relu stem, max pool, two residual blocks
(the second downsamples with a projection), global average pool and a Gemm
classifier. Input [batch, 3, 32, 32] with a dynamic dim named "batch".

    python make_resnet.py OUT.onnx [--external-data]
"""
from onnx import TensorProto, helper

from model_common import Weights, main, make_model


class ResNetBuilder:
    def __init__(self, seed):
        self.w = Weights(seed)
        self.nodes = []

    def conv_bn(self, x, name, cin, cout, kernel, stride, relu):
        pad = kernel // 2
        self.nodes.append(helper.make_node(
            "Conv", [x, self.w.add(f"{name}.weight", [cout, cin, kernel, kernel])],
            [f"{name}.conv"], name=f"{name}.conv", kernel_shape=[kernel, kernel],
            strides=[stride, stride], pads=[pad] * 4))
        bn = [self.w.add(f"{name}.bn.scale", [cout], 0.1),
              self.w.add(f"{name}.bn.bias", [cout], 0.1),
              self.w.add(f"{name}.bn.mean", [cout], 0.1)]
        self.w.const(f"{name}.bn.var", (self.w.rng.random(cout) + 0.5).astype("float32"))
        self.nodes.append(helper.make_node(
            "BatchNormalization", [f"{name}.conv", *bn, f"{name}.bn.var"],
            [f"{name}.bn"], name=f"{name}.bn", epsilon=1e-5))
        if not relu:
            return f"{name}.bn"
        self.nodes.append(helper.make_node("Relu", [f"{name}.bn"], [f"{name}.relu"],
                                           name=f"{name}.relu"))
        return f"{name}.relu"

    def block(self, x, name, cin, cout, stride):
        h = self.conv_bn(x, f"{name}.a", cin, cout, 3, stride, relu=True)
        h = self.conv_bn(h, f"{name}.b", cout, cout, 3, 1, relu=False)
        shortcut = x
        if stride != 1 or cin != cout:
            shortcut = self.conv_bn(x, f"{name}.proj", cin, cout, 1, stride, relu=False)
        self.nodes.append(helper.make_node("Add", [h, shortcut], [f"{name}.add"],
                                           name=f"{name}.add"))
        self.nodes.append(helper.make_node("Relu", [f"{name}.add"], [f"{name}.out"],
                                           name=f"{name}.out"))
        return f"{name}.out"


def make_resnet(classes=10, seed=0):
    b = ResNetBuilder(seed)
    x = b.conv_bn("input", "stem", 3, 16, 3, 1, relu=True)
    b.nodes.append(helper.make_node("MaxPool", [x], ["pool"], name="maxpool",
                                    kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    x = b.block("pool", "layer1", 16, 16, 1)
    x = b.block(x, "layer2", 16, 32, 2)
    b.nodes += [
        helper.make_node("GlobalAveragePool", [x], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["features"], name="flatten", axis=1),
        helper.make_node("Gemm", ["features", b.w.add("fc.weight", [classes, 32]),
                                  b.w.add("fc.bias", [classes])], ["logits"],
                         name="fc", transB=1),
    ]
    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 32, 32])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", classes])]
    return make_model(b.nodes, "resnet", inputs, outputs, b.w.initializers, opset=17)


if __name__ == "__main__":
    main(make_resnet, __doc__)
