"""Attention at the head sizes and forms the cuda attention templates handle,
side by side on inputs x [batch, seq, 96] and mem [batch, mem_seq, 96]
(dynamic dims "batch", "seq" and "mem_seq"), one output per form, each the
heads merged back to [batch, seq, heads * head_dim]:
  y32:  3 heads of 32, no mask;
  y64:  2 heads of 64, causal (a -inf mask above the diagonal built from
        Range) with the NaN guard Where(IsNaN(p), 0, p);
  y80:  3 query heads of 80 sharing one K/V head (K and V broadcast);
  y128: 1 head of 128, causal;
  b48:  2 heads of 48 with a band mask (-inf beyond 40 positions either
        way): an additive [seq, seq] mask read per query row;
  c64:  2 heads of 64 attending to mem (cross attention: seq queries
        against mem_seq keys, e.g. one decode step against a long context);
  c32:  4 query heads of 32 sharing one K/V head, attending to mem.
Q, K and V are projections of x (K and V of mem for the cross forms; one
GEMM per input after graphc-merge-projections); K^T is a Transpose of the
head split.

    python make_attention_heads.py OUT.onnx [--external-data]
"""
import math

import numpy as np
from onnx import TensorProto, helper

from model_common import Weights, main, make_model

D_MODEL = 96


def make_attention_heads(seed=0):
    w = Weights(seed)
    nodes = []

    def node(op, inputs, outputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0]

    def ints(name, values):
        return w.const(name, np.array(values, np.int64))

    shape = node("Shape", ["x"], ["x_shape"], "shape")
    seq = node("Gather", [shape, ints("idx1", [1])], ["seq_dim"], "gather_seq", axis=0)
    positions = node("Range", [w.const("zero_i", np.array(0, np.int64)),
                               node("Squeeze", [seq], ["seq_scalar"], "seq_scalar"),
                               w.const("one_i", np.array(1, np.int64))],
                     ["positions"], "positions")
    rows = node("Unsqueeze", [positions, ints("axis1", [1])], ["rows"], "rows")
    cols = node("Unsqueeze", [positions, ints("axis0", [0])], ["cols"], "cols")
    future = node("Greater", [cols, rows], ["future"], "future")
    causal_mask = node("Where", [future, w.const("minus_inf", np.array(-np.inf, np.float32)),
                                 w.const("zero_f", np.array(0.0, np.float32))],
                       ["causal_mask"], "causal_mask")
    distance = node("Abs", [node("Sub", [cols, rows], ["offsets"], "offsets")],
                    ["distance"], "distance")
    band_mask = node("Where", [node("Greater", [distance, w.const("band", np.array(40, np.int64))],
                                    ["far"], "far"),
                               "minus_inf", "zero_f"], ["band_mask"], "band_mask")

    outputs = []
    for name, heads, kv_heads, head_dim, causal, source in (
            ("y32", 3, 3, 32, False, "x"),
            ("y64", 2, 2, 64, True, "x"),
            ("y80", 3, 1, 80, False, "x"),
            ("y128", 1, 1, 128, True, "x"),
            ("b48", 2, 2, 48, "band", "x"),
            ("c64", 2, 2, 64, False, "mem"),
            ("c32", 4, 1, 32, False, "mem")):
        def project(part, count):
            x = "x" if part == "q" else source
            y = node("MatMul", [x, w.add(f"{name}.{part}.weight", [D_MODEL, count * head_dim])],
                     [f"{name}.{part}.mm"], f"{name}.{part}.matmul")
            y = node("Add", [y, w.add(f"{name}.{part}.bias", [count * head_dim])],
                     [f"{name}.{part}.proj"], f"{name}.{part}.add")
            return node("Reshape", [y, ints(f"{name}.{part}.shape", [0, 0, count, head_dim])],
                        [f"{name}.{part}.heads"], f"{name}.{part}.split_heads")

        q = node("Transpose", [project("q", heads)], [f"{name}.q.t"], f"{name}.q.transpose",
                 perm=[0, 2, 1, 3])
        kt = node("Transpose", [project("k", kv_heads)], [f"{name}.kt"],
                  f"{name}.k.transpose", perm=[0, 2, 3, 1])
        v = node("Transpose", [project("v", kv_heads)], [f"{name}.v.t"], f"{name}.v.transpose",
                 perm=[0, 2, 1, 3])
        scores = node("MatMul", [q, kt], [f"{name}.scores"], f"{name}.qk")
        scores = node("Mul", [scores, w.const(f"{name}.scale",
                                              np.array(1 / math.sqrt(head_dim), np.float32))],
                      [f"{name}.scaled"], f"{name}.scale")
        if causal:
            mask = band_mask if causal == "band" else causal_mask
            scores = node("Add", [scores, mask], [f"{name}.masked"], f"{name}.mask")
        probs = node("Softmax", [scores], [f"{name}.probs"], f"{name}.softmax", axis=-1)
        if causal is True:
            nan = node("IsNaN", [probs], [f"{name}.nan"], f"{name}.isnan")
            probs = node("Where", [nan, w.const(f"{name}.zero_p", np.array(0.0, np.float32)),
                                   probs], [f"{name}.guarded"], f"{name}.guard")
        ctx = node("MatMul", [probs, v], [f"{name}.ctx"], f"{name}.pv")
        ctx = node("Transpose", [ctx], [f"{name}.ctx.t"], f"{name}.merge_transpose",
                   perm=[0, 2, 1, 3])
        node("Reshape", [ctx, ints(f"{name}.merged_dims", [0, 0, heads * head_dim])],
             [name], f"{name}.merge_heads")
        outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT,
                                                     ["batch", "seq", heads * head_dim]))

    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", D_MODEL]),
              helper.make_tensor_value_info("mem", TensorProto.FLOAT,
                                            ["batch", "mem_seq", D_MODEL])]
    return make_model(nodes, "attention_heads", inputs, outputs, w.initializers, opset=17)


if __name__ == "__main__":
    main(make_attention_heads, __doc__)
