"""A ViT encoder block as torch's nn.MultiheadAttention (batch_first) exports
it: pre-LayerNorm, the input turned sequence-first, one packed in-projection
(MatMul + Add to 3 * d_model), unflattened to [seq, batch, 3, d_model],
unsqueezed, transposed to put the 3 first, squeezed, and unbound by three
Gathers into Q, K and V; each viewed as [seq, batch * heads, head_dim],
transposed and viewed as [batch, heads, seq, head_dim] for the attention;
the context permuted back to [seq * batch, d_model] for the out-projection
(Gemm), then an Erf-GELU feed-forward network; residual adds around both.
Input [batch, seq, d_model] with dynamic dims "batch" and "seq"; the views
take their dims from a Shape sub-graph, as the exporter writes them.

    python make_vit_attention.py OUT.onnx [--external-data]
"""
import math

import numpy as np
from onnx import TensorProto, helper

from model_common import Weights, main, make_model


def make_vit_attention(d_model=64, heads=4, ffn=128, seed=0):
    head_dim = d_model // heads
    w = Weights(seed)
    nodes = []

    def node(op, inputs, outputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0]

    def ints(name, values):
        return w.const(name, np.array(values, np.int64))

    def layer_norm(x, name):
        return node("LayerNormalization",
                    [x, w.const(f"{name}.scale", np.ones(d_model, np.float32)),
                     w.const(f"{name}.bias", np.zeros(d_model, np.float32))],
                    [name], name, axis=-1, epsilon=1e-6)

    def linear(x, name, cin, cout):
        y = node("MatMul", [x, w.add(f"{name}.weight", [cin, cout])], [f"{name}.mm"],
                 f"{name}.matmul")
        return node("Add", [y, w.add(f"{name}.bias", [cout])], [name], f"{name}.add")

    shape = node("Shape", ["x"], ["x_shape"], "shape")
    batch = node("Gather", [shape, ints("idx0", [0])], ["batch_dim"], "gather_batch", axis=0)
    seq = node("Gather", [shape, ints("idx1", [1])], ["seq_dim"], "gather_seq", axis=0)
    batch_heads = node("Mul", [batch, ints("heads", [heads])], ["batch_heads"], "mul_heads")
    rows = node("Mul", [seq, batch], ["rows"], "mul_rows")

    def concat(name, parts):
        return node("Concat", parts, [name], f"concat_{name}", axis=0)

    unflat = concat("unflat_shape", [seq, batch, ints("three_model", [3, d_model])])
    per_head = concat("per_head_shape", [seq, batch_heads, ints("head_dim", [head_dim])])
    four_d = concat("four_d_shape", [batch, ints("heads4", [heads]), seq,
                                     ints("head_dim4", [head_dim])])
    flat = concat("flat_shape", [rows, ints("model_dim", [d_model])])
    seq_first = concat("seq_first_shape", [seq, batch, ints("model_dim3", [d_model])])

    h = layer_norm("x", "ln1")
    h = node("Transpose", [h], ["h.seq_first"], "attn.transpose_in", perm=[1, 0, 2])
    proj = linear(h, "in_proj", d_model, 3 * d_model)
    p = node("Reshape", [proj, unflat], ["p.unflat"], "attn.unflatten")
    p = node("Unsqueeze", [p, ints("axes0", [0])], ["p.unsq"], "attn.unsqueeze")
    p = node("Transpose", [p], ["p.t"], "attn.transpose_qkv", perm=[3, 1, 2, 0, 4])
    p = node("Squeeze", [p, ints("axes3", [3])], ["p.sq"], "attn.squeeze")
    parts = {}
    for i, name in enumerate(("q", "k", "v")):
        x = node("Gather", [p, w.const(f"{name}.index", np.array(i, np.int64))],
                 [f"{name}.unbind"], f"attn.gather_{name}", axis=0)
        x = node("Reshape", [x, per_head], [f"{name}.view"], f"attn.view_{name}")
        x = node("Transpose", [x], [f"{name}.bh"], f"attn.transpose_{name}", perm=[1, 0, 2])
        parts[name] = node("Reshape", [x, four_d], [f"{name}.4d"], f"attn.view4_{name}")
    kt = node("Transpose", [parts["k"]], ["kt"], "attn.transpose_kt", perm=[0, 1, 3, 2])
    scores = node("MatMul", [parts["q"], kt], ["scores"], "attn.qk")
    scores = node("Div", [scores, w.const("sqrt_dk", np.array(math.sqrt(head_dim),
                                                              np.float32))],
                  ["scaled"], "attn.scale")
    probs = node("Softmax", [scores], ["probs"], "attn.softmax", axis=-1)
    ctx = node("MatMul", [probs, parts["v"]], ["ctx"], "attn.pv")
    ctx = node("Transpose", [ctx], ["ctx.t"], "attn.permute_out", perm=[2, 0, 1, 3])
    ctx = node("Reshape", [ctx, flat], ["ctx.flat"], "attn.flatten_out")
    out = node("Gemm", [ctx, w.add("out_proj.weight", [d_model, d_model]),
                        w.add("out_proj.bias", [d_model])],
               ["out.flat"], "attn.out_proj", transB=1)
    out = node("Reshape", [out, seq_first], ["out.seq_first"], "attn.view_out")
    out = node("Transpose", [out], ["out"], "attn.transpose_out", perm=[1, 0, 2])
    x1 = node("Add", ["x", out], ["x1"], "residual1")

    h = layer_norm(x1, "ln2")
    h = linear(h, "mlp1", d_model, ffn)
    e = node("Div", [h, w.const("sqrt2", np.array(math.sqrt(2.0), np.float32))], ["g.div"],
             "gelu.div")
    e = node("Erf", [e], ["g.erf"], "gelu.erf")
    e = node("Add", [e, w.const("one", np.array(1.0, np.float32))], ["g.add"], "gelu.add")
    e = node("Mul", [h, e], ["g.mul"], "gelu.mul")
    g = node("Mul", [e, w.const("half", np.array(0.5, np.float32))], ["g.out"], "gelu.half")
    y = linear(g, "mlp2", ffn, d_model)
    node("Add", [x1, y], ["y"], "residual2")

    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", d_model])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", d_model])]
    return make_model(nodes, "vit_attention_block", inputs, outputs, w.initializers, opset=17)


if __name__ == "__main__":
    main(make_vit_attention, __doc__)
