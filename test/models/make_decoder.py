"""A causal decoder block written the way torch.export writes Llama-style
models with grouped-query attention: RMSNorm as Pow, ReduceMean, Add, Sqrt,
Reciprocal, Mul, Mul; a SwiGLU feed-forward network with SiLU as
x * Sigmoid(x); one projection whose output Split gives Q, K and V; 4
query heads sharing 2 K/V heads, repeated by repeat_kv (Unsqueeze, Expand,
Reshape); Q and K^T each
scaled by sqrt(1/sqrt(head_dim)); K^T as Reshape -> 3-d Transpose ->
Reshape; a causal mask of -inf above the diagonal built from Range; and
the NaN guard Where(IsNaN(p), 0, p) after the Softmax. The head size (48)
spans two warps' worth of lanes. Input [batch, seq, 96] with dynamic dims
"batch" and "seq".

    python make_decoder.py OUT.onnx [--external-data]
"""
import math

import numpy as np
from onnx import TensorProto, helper

from model_common import Weights, main, make_model


def make_decoder(d_model=96, heads=4, kv_heads=2, head_dim=48, ffn=128, seed=0):
    w = Weights(seed)
    nodes = []

    def node(op, inputs, outputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0]

    def ints(name, values):
        return w.const(name, np.array(values, np.int64))

    def linear(x, name, cin, cout):
        y = node("MatMul", [x, w.add(f"{name}.weight", [cin, cout])], [f"{name}.mm"],
                 f"{name}.matmul")
        return node("Add", [y, w.add(f"{name}.bias", [cout])], [name], f"{name}.add")

    shape = node("Shape", ["x"], ["x_shape"], "shape")
    batch = node("Gather", [shape, ints("idx0", [0])], ["batch_dim"], "gather_batch", axis=0)
    seq = node("Gather", [shape, ints("idx1", [1])], ["seq_dim"], "gather_seq", axis=0)

    def rms_norm(x, name):
        square = node("Pow", [x, w.const(f"{name}.two", np.array(2.0, np.float32))],
                      [f"{name}.square"], f"{name}.pow")
        mean = node("ReduceMean", [square], [f"{name}.mean"], f"{name}.mean",
                    axes=[-1], keepdims=1)
        shifted = node("Add", [mean, w.const(f"{name}.eps", np.array(1e-6, np.float32))],
                       [f"{name}.shifted"], f"{name}.add_eps")
        root = node("Sqrt", [shifted], [f"{name}.root"], f"{name}.sqrt")
        inverse = node("Reciprocal", [root], [f"{name}.inverse"], f"{name}.reciprocal")
        normed = node("Mul", [x, inverse], [f"{name}.normed"], f"{name}.normalize")
        gamma = w.const(f"{name}.weight",
                        (1 + 0.1 * w.rng.standard_normal(d_model)).astype(np.float32))
        return node("Mul", [gamma, normed], [name], f"{name}.scale")

    h = rms_norm("x", "attn_norm")
    kv = kv_heads * head_dim
    qkv = linear(h, "qkv", d_model, heads * head_dim + 2 * kv)
    q, k, v = (f"{p}.flat" for p in "qkv")
    node("Split", [qkv, ints("split_sizes", [heads * head_dim, kv, kv])], [q, k, v],
         "split", axis=2)

    def heads_of(x, count, name):
        y = node("Reshape", [x, ints(f"{name}.shape", [0, 0, count, head_dim])],
                 [f"{name}.heads"], f"{name}.split_heads")
        return node("Transpose", [y], [f"{name}.t"], f"{name}.transpose", perm=[0, 2, 1, 3])

    def repeat_kv(x, name):
        # [B, Hkv, S, D] -> [B, Hkv, 1, S, D] -> [B, Hkv, r, S, D] -> [B, H, S, D]
        y = node("Unsqueeze", [x, ints(f"{name}.axis2", [2])], [f"{name}.one"],
                 f"{name}.unsqueeze")
        target = node("Concat", [batch, ints(f"{name}.groups", [kv_heads, heads // kv_heads]),
                                 seq, ints(f"{name}.depth", [head_dim])],
                      [f"{name}.expand_shape"], f"{name}.expand_shape", axis=0)
        y = node("Expand", [y, target], [f"{name}.expanded"], f"{name}.expand")
        return node("Reshape", [y, ints(f"{name}.repeated_shape", [0, heads, -1, head_dim])],
                    [f"{name}.repeated"], f"{name}.repeat")

    q = heads_of(q, heads, "q")
    k = repeat_kv(heads_of(k, kv_heads, "k"), "k")
    v = repeat_kv(heads_of(v, kv_heads, "v"), "v")
    root_scale = w.const("root_scale",
                         np.array(math.sqrt(1.0 / math.sqrt(head_dim)), np.float32))
    q = node("Mul", [q, root_scale], ["q.scaled"], "q.scale")
    # K^T: [B, H, S, D] -> [B*H, S, D] -> [B*H, D, S] -> [B, H, D, S].
    merged = node("Concat", [ints("minus_one", [-1]), seq, ints("head_dim", [head_dim])],
                  ["k.merged_shape"], "k.merged_shape", axis=0)
    k = node("Reshape", [k, merged], ["k.merged"], "k.merge")
    k = node("Transpose", [k], ["k.merged_t"], "k.transpose_last", perm=[0, 2, 1])
    split = node("Concat", [batch, ints("heads_depth", [heads, head_dim]), seq],
                 ["kt.shape"], "kt.shape", axis=0)
    kt = node("Reshape", [k, split], ["kt"], "kt.split")
    kt = node("Mul", [kt, root_scale], ["kt.scaled"], "kt.scale")
    scores = node("MatMul", [q, kt], ["scores"], "qk")

    # Causal mask: -inf where the key comes after the query.
    positions = node("Range", [w.const("zero_i", np.array(0, np.int64)),
                               node("Squeeze", [seq], ["seq_scalar"], "seq_scalar"),
                               w.const("one_i", np.array(1, np.int64))],
                     ["positions"], "positions")
    rows = node("Unsqueeze", [positions, ints("axis1", [1])], ["rows"], "rows")
    cols = node("Unsqueeze", [positions, ints("axis0", [0])], ["cols"], "cols")
    future = node("Greater", [cols, rows], ["future"], "future")
    mask = node("Where", [future, w.const("minus_inf", np.array(-np.inf, np.float32)),
                          w.const("zero_f", np.array(0.0, np.float32))],
                ["causal_mask"], "causal_mask")
    masked = node("Add", [scores, mask], ["masked"], "mask")
    probs = node("Softmax", [masked], ["probs"], "softmax", axis=-1)
    nan = node("IsNaN", [probs], ["probs.nan"], "probs.isnan")
    probs = node("Where", [nan, w.const("zero_p", np.array(0.0, np.float32)), probs],
                 ["probs.guarded"], "probs.guard")
    ctx = node("MatMul", [probs, v], ["ctx"], "pv")
    ctx = node("Transpose", [ctx], ["ctx.t"], "merge_transpose", perm=[0, 2, 1, 3])
    ctx = node("Reshape", [ctx, ints("merged_dims", [0, 0, heads * head_dim])],
               ["ctx.merged"], "merge_heads")
    attn = linear(ctx, "out_proj", heads * head_dim, d_model)
    x1 = node("Add", ["x", attn], ["x1"], "residual1")
    h = rms_norm(x1, "ffn_norm")
    gate = linear(h, "gate", d_model, ffn)
    silu = node("Mul", [gate, node("Sigmoid", [gate], ["gate.sigmoid"], "gate.sigmoid")],
                ["gate.silu"], "gate.silu")
    up = linear(h, "up", d_model, ffn)
    y = linear(node("Mul", [silu, up], ["ffn.glu"], "ffn.glu"), "down", ffn, d_model)
    node("Add", [x1, y], ["y"], "residual2")

    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", d_model])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", d_model])]
    return make_model(nodes, "decoder_block", inputs, outputs, w.initializers, opset=17)


if __name__ == "__main__":
    main(make_decoder, __doc__)
