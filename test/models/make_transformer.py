"""A transformer encoder block: pre-LayerNorm multi-head self-attention and an
Erf-GELU feed-forward network, both with residual adds. Input
[batch, seq, d_model] with dynamic dims named "batch" and "seq"; the heads
are split by a dynamic-shape sub-graph Shape -> Gather -> Concat -> Reshape.
make_transformer(mask=True) adds a float input attention_mask [batch, seq]
(1 keeps a key, 0 drops it) added to the scores as (1 - mask) * -10000, as
BERT's exports do.

    python make_transformer.py OUT.onnx [--external-data]
"""
import math

import numpy as np
from onnx import TensorProto, helper

from model_common import Weights, main, make_model


def make_transformer(d_model=64, heads=4, ffn=256, seed=0, mask=False):
    head_dim = d_model // heads
    w = Weights(seed)
    nodes = []

    def node(op, inputs, outputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0]

    def layer_norm(x, name):
        return node("LayerNormalization",
                    [x, w.const(f"{name}.scale", np.ones(d_model, np.float32)),
                     w.const(f"{name}.bias", np.zeros(d_model, np.float32))],
                    [name], name, axis=-1, epsilon=1e-5)

    def linear(x, name, cin, cout):
        y = node("MatMul", [x, w.add(f"{name}.weight", [cin, cout])], [f"{name}.mm"],
                 f"{name}.matmul")
        return node("Add", [y, w.add(f"{name}.bias", [cout])], [name], f"{name}.add")

    # Dynamic [batch, seq] from the input's shape.
    shape = node("Shape", ["x"], ["x_shape"], "shape")
    batch = node("Gather", [shape, w.const("idx0", np.array([0], np.int64))],
                 ["batch_dim"], "gather_batch", axis=0)
    seq = node("Gather", [shape, w.const("idx1", np.array([1], np.int64))],
               ["seq_dim"], "gather_seq", axis=0)
    heads_shape = node("Concat", [batch, seq, w.const("heads_dims",
                                                      np.array([heads, head_dim], np.int64))],
                       ["heads_shape"], "concat_heads_shape", axis=0)
    merged_shape = node("Concat", [batch, seq, w.const("model_dim",
                                                       np.array([d_model], np.int64))],
                        ["merged_shape"], "concat_merged_shape", axis=0)

    h = layer_norm("x", "ln1")
    per_head = {}
    for proj in ("q", "k", "v"):
        y = linear(h, proj, d_model, d_model)
        y = node("Reshape", [y, heads_shape], [f"{proj}.heads"], f"{proj}.split_heads")
        perm = [0, 2, 3, 1] if proj == "k" else [0, 2, 1, 3]
        per_head[proj] = node("Transpose", [y], [f"{proj}.t"], f"{proj}.transpose", perm=perm)
    scores = node("MatMul", [per_head["q"], per_head["k"]], ["scores"], "qk")
    scaled = node("Div", [scores, w.const("sqrt_dk", np.array(math.sqrt(head_dim), np.float32))],
                  ["scaled"], "scale")
    if mask:
        keys = node("Unsqueeze", ["attention_mask", w.const("mask_axes",
                                                            np.array([1, 2], np.int64))],
                    ["mask4"], "mask.unsqueeze")
        dropped = node("Sub", [w.const("mask_one", np.array(1.0, np.float32)), keys],
                       ["mask.dropped"], "mask.sub")
        bias = node("Mul", [dropped, w.const("mask_neg", np.array(-10000.0, np.float32))],
                    ["mask.bias"], "mask.mul")
        scaled = node("Add", [scaled, bias], ["masked"], "mask.add")
    probs = node("Softmax", [scaled], ["probs"], "softmax", axis=-1)
    ctx = node("MatMul", [probs, per_head["v"]], ["ctx"], "attn_v")
    ctx = node("Transpose", [ctx], ["ctx.t"], "merge_transpose", perm=[0, 2, 1, 3])
    ctx = node("Reshape", [ctx, merged_shape], ["ctx.merged"], "merge_heads")
    attn = linear(ctx, "out_proj", d_model, d_model)
    x1 = node("Add", ["x", attn], ["x1"], "residual1")

    h = layer_norm(x1, "ln2")
    h = linear(h, "ffn1", d_model, ffn)
    # GELU(h) = 0.5 * h * (1 + erf(h / sqrt(2)))
    e = node("Div", [h, w.const("sqrt2", np.array(math.sqrt(2.0), np.float32))], ["g.div"],
             "gelu.div")
    e = node("Erf", [e], ["g.erf"], "gelu.erf")
    e = node("Add", [e, w.const("one", np.array(1.0, np.float32))], ["g.add"], "gelu.add")
    e = node("Mul", [h, e], ["g.mul"], "gelu.mul")
    g = node("Mul", [e, w.const("half", np.array(0.5, np.float32))], ["g.out"], "gelu.half")
    y = linear(g, "ffn2", ffn, d_model)
    node("Add", [x1, y], ["y"], "residual2")

    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", d_model])]
    if mask:
        inputs.append(helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT,
                                                    ["batch", "seq"]))
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", d_model])]
    return make_model(nodes, "transformer_block", inputs, outputs, w.initializers, opset=17)


if __name__ == "__main__":
    main(make_transformer, __doc__)
