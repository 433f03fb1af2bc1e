"""A transformer encoder block: pre-LayerNorm multi-head self-attention and an
Erf-GELU feed-forward network, both with residual adds. Input
[batch, seq, d_model] with dynamic dims named "batch" and "seq"; the heads
are split by a dynamic-shape sub-graph Shape -> Gather -> Concat -> Reshape.
make_transformer(mask=True) adds a float input attention_mask [batch, seq]
(1 keeps a key, 0 drops it) added to the scores as (1 - mask) * -10000, as
BERT's exports do. make_transformer(mask="hf", layers=2) takes an int64
attention_mask as Hugging Face's BERT export does: unsqueezed to
[batch, 1, 1, seq], expanded to [batch, 1, seq, seq], cast to float, 1 - mask,
and the dropped keys set to float32's lowest value (Cast to bool, Where),
computed once and added to the scores of every layer.

    python make_transformer.py OUT.onnx [--external-data]
"""
import math

import numpy as np
from onnx import TensorProto, helper

from model_common import Weights, main, make_model


def make_transformer(d_model=64, heads=4, ffn=256, seed=0, mask=False, layers=1):
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

    def block(x_in, p, bias, out):
        """One encoder layer reading x_in; names prefixed by p."""
        h = layer_norm(x_in, p + "ln1")
        per_head = {}
        for proj in ("q", "k", "v"):
            y = linear(h, p + proj, d_model, d_model)
            y = node("Reshape", [y, heads_shape], [f"{p}{proj}.heads"],
                     f"{p}{proj}.split_heads")
            perm = [0, 2, 3, 1] if proj == "k" else [0, 2, 1, 3]
            per_head[proj] = node("Transpose", [y], [f"{p}{proj}.t"], f"{p}{proj}.transpose",
                                  perm=perm)
        scores = node("MatMul", [per_head["q"], per_head["k"]], [p + "scores"], p + "qk")
        sqrt_dk = w.const(p + "sqrt_dk", np.array(math.sqrt(head_dim), np.float32))
        scaled = node("Div", [scores, sqrt_dk], [p + "scaled"], p + "scale")
        if bias is not None:
            scaled = node("Add", [scaled, bias], [p + "masked"], p + "mask.add")
        elif mask:
            keys = node("Unsqueeze", ["attention_mask", w.const(p + "mask_axes",
                                                                np.array([1, 2], np.int64))],
                        [p + "mask4"], p + "mask.unsqueeze")
            dropped = node("Sub", [w.const(p + "mask_one", np.array(1.0, np.float32)), keys],
                           [p + "mask.dropped"], p + "mask.sub")
            bias = node("Mul", [dropped, w.const(p + "mask_neg", np.array(-10000.0, np.float32))],
                        [p + "mask.bias"], p + "mask.mul")
            scaled = node("Add", [scaled, bias], [p + "masked"], p + "mask.add")
        probs = node("Softmax", [scaled], [p + "probs"], p + "softmax", axis=-1)
        ctx = node("MatMul", [probs, per_head["v"]], [p + "ctx"], p + "attn_v")
        ctx = node("Transpose", [ctx], [p + "ctx.t"], p + "merge_transpose", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, merged_shape], [p + "ctx.merged"], p + "merge_heads")
        attn = linear(ctx, p + "out_proj", d_model, d_model)
        x1 = node("Add", [x_in, attn], [p + "x1"], p + "residual1")

        h = layer_norm(x1, p + "ln2")
        h = linear(h, p + "ffn1", d_model, ffn)
        # GELU(h) = 0.5 * h * (1 + erf(h / sqrt(2)))
        sqrt2 = w.const(p + "sqrt2", np.array(math.sqrt(2.0), np.float32))
        e = node("Div", [h, sqrt2], [p + "g.div"], p + "gelu.div")
        e = node("Erf", [e], [p + "g.erf"], p + "gelu.erf")
        one = w.const(p + "one", np.array(1.0, np.float32))
        e = node("Add", [e, one], [p + "g.add"], p + "gelu.add")
        e = node("Mul", [h, e], [p + "g.mul"], p + "gelu.mul")
        half = w.const(p + "half", np.array(0.5, np.float32))
        g = node("Mul", [e, half], [p + "g.out"], p + "gelu.half")
        y = linear(g, p + "ffn2", ffn, d_model)
        return node("Add", [x1, y], [out], p + "residual2")

    bias = None
    if mask == "hf":
        m = node("Unsqueeze", ["attention_mask", w.const("mask_axis1", np.array([1], np.int64))],
                 ["mask3"], "mask.unsqueeze1")
        m = node("Unsqueeze", [m, w.const("mask_axis2", np.array([2], np.int64))],
                 ["mask4"], "mask.unsqueeze2")
        square = node("Concat", [batch, w.const("mask_one_dim", np.array([1], np.int64)), seq,
                                 seq], ["mask_shape"], "mask.shape", axis=0)
        m = node("Expand", [m, square], ["mask.expanded"], "mask.expand")
        m = node("Cast", [m], ["mask.float"], "mask.cast", to=TensorProto.FLOAT)
        dropped = node("Sub", [w.const("mask_one", np.array(1.0, np.float32)), m],
                       ["mask.dropped"], "mask.sub")
        flags = node("Cast", [dropped], ["mask.bool"], "mask.to_bool", to=TensorProto.BOOL)
        bias = node("Where", [flags, w.const("mask_lowest",
                                             np.array(np.finfo(np.float32).min, np.float32)),
                              dropped], ["mask.bias"], "mask.where")

    x = "x"
    for layer in range(layers):
        # One layer keeps the names the tests know; more are prefixed.
        prefix = f"l{layer}." if layers > 1 else ""
        x = block(x, prefix, bias, "y" if layer == layers - 1 else prefix + "y")

    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", d_model])]
    if mask:
        inputs.append(helper.make_tensor_value_info(
            "attention_mask", TensorProto.INT64 if mask == "hf" else TensorProto.FLOAT,
            ["batch", "seq"]))
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", d_model])]
    return make_model(nodes, "transformer_block", inputs, outputs, w.initializers, opset=17)


if __name__ == "__main__":
    main(make_transformer, __doc__)
