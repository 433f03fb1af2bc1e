"""The exporter patterns that graph rewrites remove: Conv + BatchNormalization,
a LayerNorm written as ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add, a
MatMul + bias Add and an erf GELU written with a Mul by 1/sqrt(2) (output y,
[batch, 4, 32]); a grouped ConvTranspose + BatchNormalization and a Gemm
followed by a per-column Mul and Add (output z, [batch, 5]); attention
scores with Q and K^T each scaled by 1/sqrt(sqrt(d)) as torch.export writes
them (output s, [batch, 4, 4]). Input [batch, 3, 8, 8] with a dynamic dim
named "batch".

    python make_rewrites.py OUT.onnx [--external-data]
"""
import math

import numpy as np
from onnx import TensorProto, helper

from model_common import Weights, main, make_model


def make_rewrites(seed=0):
    w = Weights(seed)
    nodes = []

    def node(op, inputs, output, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [output], name=name, **attrs))
        return output

    def scalar(name, value):
        return w.const(name, np.array(value, np.float32))

    h = node("Conv", ["x", w.add("conv.weight", [4, 3, 3, 3], 0.3), w.add("conv.bias", [4])],
             "conv", "conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    w.const("bn.var", (w.rng.random(4) + 0.5).astype(np.float32))
    h = node("BatchNormalization", [h, w.add("bn.scale", [4], 1.0), w.add("bn.bias", [4]),
                                    w.add("bn.mean", [4]), "bn.var"], "bn", "bn", epsilon=1e-5)
    h = node("Relu", [h], "relu", "relu")
    h = node("Reshape", [h, w.const("rows.shape", np.array([0, 4, 64], np.int64))], "rows", "rows")

    # LayerNorm over the last axis, as torch.onnx writes it below opset 17.
    mean = node("ReduceMean", [h], "ln.mean", "ln.mean", axes=[-1])
    d = node("Sub", [h, mean], "ln.sub", "ln.sub")
    sq = node("Pow", [d, scalar("ln.two", 2.0)], "ln.pow", "ln.pow")
    var = node("ReduceMean", [sq], "ln.var", "ln.var", axes=[-1])
    var = node("Add", [var, scalar("ln.eps", 1e-5)], "ln.add_eps", "ln.add_eps")
    sd = node("Sqrt", [var], "ln.sqrt", "ln.sqrt")
    n = node("Div", [d, sd], "ln.div", "ln.div")
    n = node("Mul", [n, w.add("ln.weight", [64], 1.0)], "ln.mul", "ln.mul")
    n = node("Add", [n, w.add("ln.bias", [64])], "ln.out", "ln.out")

    h = node("MatMul", [n, w.add("fc.weight", [64, 32])], "fc", "fc")
    h = node("Add", [h, w.add("fc.bias", [32])], "fc.out", "fc.bias")
    # GELU(h) = h * 0.5 * (1 + erf(h * (1 / sqrt(2))))
    half = node("Mul", [h, scalar("half", 0.5)], "g.half", "gelu.half")
    e = node("Mul", [h, scalar("rsqrt2", 1 / math.sqrt(2.0))], "g.scaled", "gelu.scaled")
    e = node("Erf", [e], "g.erf", "gelu.erf")
    e = node("Add", [e, scalar("one", 1.0)], "g.add", "gelu.add")
    node("Mul", [half, e], "y", "gelu.mul")

    # A grouped ConvTranspose + BatchNormalization, then a Gemm scaled and
    # shifted per output column.
    h = node("ConvTranspose", ["x", w.add("up.weight", [3, 2, 2, 2], 0.3)], "up", "up",
             group=3, strides=[2, 2])
    w.const("up.bn.var", (w.rng.random(6) + 0.5).astype(np.float32))
    h = node("BatchNormalization", [h, w.add("up.bn.scale", [6], 1.0), w.add("up.bn.bias", [6]),
                                    w.add("up.bn.mean", [6]), "up.bn.var"], "up.bn", "up.bn")
    h = node("GlobalAveragePool", [h], "gap", "gap")
    h = node("Flatten", [h], "features", "flatten", axis=1)
    h = node("Gemm", [h, w.add("head.weight", [5, 6], 1.0), w.add("head.bias", [5])],
             "head", "head", transB=1)
    h = node("Mul", [h, w.add("head.scale", [5], 1.0)], "head.scaled", "head.scale")
    node("Add", [h, w.add("head.shift", [1, 5])], "z", "head.shift")

    # Scores of the LayerNorm rows against each other, scaled on both sides.
    root_scale = scalar("attn.root_scale", 1 / math.sqrt(math.sqrt(64.0)))
    q = node("Mul", [n, root_scale], "attn.q", "attn.scale_q")
    kt = node("Transpose", [n], "attn.kt", "attn.kt", perm=[0, 2, 1])
    kt = node("Mul", [kt, root_scale], "attn.kt_scaled", "attn.scale_k")
    node("MatMul", [q, kt], "s", "attn.qk")

    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, 32]),
               helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 5]),
               helper.make_tensor_value_info("s", TensorProto.FLOAT, ["batch", 4, 4])]
    return make_model(nodes, "rewrites", inputs, outputs, w.initializers, opset=13)


if __name__ == "__main__":
    main(make_rewrites, __doc__)
