"""Results whose extents the run decides (NonZero, Compress,
NonMaxSuppression, Unique) against onnxruntime: small models of what
exporters write (torch's `nonzero()` as NonZero then Transpose,
`boxes[scores > t]` as NonZero, Squeeze and Gather, `x.shape` of such a
value and the arithmetic on it, a YOLO head's NMS and the gather of the
boxes it keeps, torchvision's empty-boxes guard), empty results and full
ones, the refusals (a consumer that would read the padding past the extent
as data), and a bucketed input reaching NonZero (exact bucket sizes only).

    python data_dependent_tests.py --graphc build/bin/graphc \
        [--runtime build/lib/libgraphc_runtime.so] [--target cpu|cuda] \
        [--cuda-emulation DRIVER] [--only REGEX] [--work-dir DIR]

Each model is compiled by graphc, run through the Python runtime on its
inputs and compared with onnxruntime (CPU): same dims (the extents the run
found), same values. Each case runs twice on one session with inputs that
keep different counts, so an extent left from an earlier run shows.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
sys.path.insert(0, HERE)

from e2e_driver import CheckFailed, run_checks  # noqa: E402

F = TensorProto.FLOAT
I64 = TensorProto.INT64
BOOL = TensorProto.BOOL




def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, array):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.asarray(array), name))


def model(nodes, inputs, outputs, opset=17):
    graph = helper.make_graph(nodes, "data_dependent", inputs, outputs)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def sparse(rng, shape, keep):
    """Random floats with about `keep` of them nonzero."""
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    x[rng.uniform(0, 1, shape) >= keep] = 0
    return x


# --- NonZero ------------------------------------------------------------------

def nonzero_coordinates(rng):
    """torch.nonzero(x): NonZero then Transpose, [n, rank]."""
    nodes = [helper.make_node("NonZero", ["x"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["y"], perm=[1, 0])]
    m = model(nodes, [value("x", F, [3, 5, 4])], [value("y", I64, ["n", 3])])
    return m, [{"x": sparse(rng, (3, 5, 4), 0.3)},
               {"x": sparse(rng, (3, 5, 4), 0.8)}]


def nonzero_empty_and_full(rng):
    """No element kept, then every one: extents 0 and the bound."""
    nodes = [helper.make_node("NonZero", ["x"], ["y"])]
    m = model(nodes, [value("x", I64, [2, 6])], [value("y", I64, [2, "n"])])
    return m, [{"x": np.zeros((2, 6), np.int64)},
               {"x": np.arange(1, 13, dtype=np.int64).reshape(2, 6)}]


def select_boxes(rng):
    """boxes[scores > t] * scale + shift: NonZero of a 1-d mask, Squeeze,
    Gather of the rows, pointwise ops on the rows."""
    nodes = [const("t", np.array(0.25, np.float32)),
             helper.make_node("Greater", ["scores", "t"], ["mask"]),
             helper.make_node("NonZero", ["mask"], ["nz"]),
             const("axis0", np.array([0], np.int64)),
             helper.make_node("Squeeze", ["nz", "axis0"], ["keep"]),
             helper.make_node("Gather", ["boxes", "keep"], ["picked"], axis=0),
             helper.make_node("Mul", ["picked", "scale"], ["scaled"]),
             helper.make_node("Add", ["scaled", "shift"], ["out"]),
             helper.make_node("Gather", ["scores", "keep"], ["kept_scores"],
                              axis=0)]
    m = model(nodes, [value("scores", F, [40]), value("boxes", F, [40, 4]),
                      value("scale", F, [4]), value("shift", F, [])],
              [value("out", F, ["n", 4]), value("kept_scores", F, ["n"])])
    feeds = []
    for keep in (0.2, 0.7):
        feeds.append({"scores": rng.uniform(0, 1, 40).astype(np.float32)
                      * (keep + 0.3),
                      "boxes": rng.uniform(0, 100, (40, 4)).astype(np.float32),
                      "scale": np.array([1, 2, 1, 2], np.float32),
                      "shift": np.array(0.5, np.float32)})
    return m, feeds


def nonzero_shape(rng):
    """The shape of a NonZero result, computed at run time, and the count
    alone (Shape then Gather): what exporters write to size later ops; the
    coordinates flattened row by row (the extent times 2)."""
    nodes = [helper.make_node("NonZero", ["x"], ["nz"]),
             helper.make_node("Shape", ["nz"], ["shape"]),
             const("one", np.array(1, np.int64)),
             helper.make_node("Gather", ["shape", "one"], ["count"], axis=0),
             helper.make_node("Transpose", ["nz"], ["rows"], perm=[1, 0]),
             helper.make_node("Flatten", ["rows"], ["flat"], axis=0)]
    m = model(nodes, [value("x", F, [4, 4])],
              [value("shape", I64, [2]), value("count", I64, []),
               value("flat", I64, [1, "m"])])
    return m, [{"x": sparse(rng, (4, 4), 0.5)}, {"x": sparse(rng, (4, 4), 0.1)}]


# --- Compress -------------------------------------------------------------------

def compress_axis(rng):
    """Columns a mask keeps, the mask shorter than the axis."""
    nodes = [helper.make_node("Compress", ["x", "c"], ["y"], axis=1)]
    m = model(nodes, [value("x", F, [3, 7]), value("c", BOOL, [5])],
              [value("y", F, [3, "n"])])
    return m, [{"x": rng.uniform(-1, 1, (3, 7)).astype(np.float32),
                "c": np.array([1, 0, 1, 1, 0], bool)},
               {"x": rng.uniform(-1, 1, (3, 7)).astype(np.float32),
                "c": np.array([0, 0, 0, 0, 1], bool)}]


def compress_flat(rng):
    """Without axis: elements of the flattened input, then a pointwise op."""
    nodes = [helper.make_node("Compress", ["x", "c"], ["picked"]),
             helper.make_node("Relu", ["picked"], ["y"])]
    m = model(nodes, [value("x", F, [2, 3, 2]), value("c", BOOL, [12])],
              [value("y", F, ["n"])])
    return m, [{"x": rng.uniform(-1, 1, (2, 3, 2)).astype(np.float32),
                "c": rng.uniform(0, 1, 12) > 0.5},
               {"x": rng.uniform(-1, 1, (2, 3, 2)).astype(np.float32),
                "c": np.zeros(12, bool)}]


def compress_rows_int(rng):
    """Rows of an int64 tensor along axis 0 of three dims."""
    nodes = [helper.make_node("Compress", ["x", "c"], ["y"], axis=0)]
    m = model(nodes, [value("x", I64, [6, 2, 3]), value("c", BOOL, [6])],
              [value("y", I64, ["n", 2, 3])])
    x = np.arange(36, dtype=np.int64).reshape(6, 2, 3)
    return m, [{"x": x, "c": np.array([0, 1, 1, 0, 0, 1], bool)},
               {"x": -x, "c": np.ones(6, bool)}]


def score_rows(rng):
    """Per kept row: its best class and score (ReduceMax, ArgMax over the
    classes), its softmax, and a projection (MatMul): consumers off the
    dim the run sizes."""
    nodes = [helper.make_node("Compress", ["x", "c"], ["rows"], axis=0),
             helper.make_node("ReduceMax", ["rows"], ["best"], axes=[1],
                              keepdims=0),
             helper.make_node("ArgMax", ["rows"], ["label"], axis=1,
                              keepdims=1),
             helper.make_node("Softmax", ["rows"], ["p"], axis=-1),
             helper.make_node("MatMul", ["rows", "w"], ["proj"])]
    m = model(nodes, [value("x", F, [8, 5]), value("c", BOOL, [8]),
                      value("w", F, [5, 3])],
              [value("best", F, ["n"]), value("label", I64, ["n", 1]),
               value("p", F, ["n", 5]), value("proj", F, ["n", 3])],
              opset=17)
    runs = []
    for keep in (0.3, 0.9):
        runs.append({"x": rng.uniform(-2, 2, (8, 5)).astype(np.float32),
                     "c": rng.uniform(0, 1, 8) < keep,
                     "w": rng.uniform(-1, 1, (5, 3)).astype(np.float32)})
    return m, runs


def shape_arithmetic(rng):
    """What exporters compute from such a shape at run time: arange(n), a
    fill of [n, 4], an expand to it, a view as [n, 2, 2], the labels of
    each kept row (arange(n) expanded)."""
    nodes = [helper.make_node("Compress", ["x", "c"], ["rows"], axis=0),
             helper.make_node("Shape", ["rows"], ["shape"]),
             const("i0", np.array(0, np.int64)),
             helper.make_node("Gather", ["shape", "i0"], ["n"], axis=0),
             const("zero", np.array(0, np.int64)),
             const("one", np.array(1, np.int64)),
             helper.make_node("Range", ["zero", "n", "one"], ["arange"]),
             helper.make_node("ConstantOfShape", ["shape"], ["fill"],
                              value=numpy_helper.from_array(
                                  np.array([0.5], np.float32))),
             helper.make_node("Expand", ["row", "shape"], ["expanded"]),
             const("axes0", np.array([0], np.int64)),
             helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
             const("two_two", np.array([2, 2], np.int64)),
             helper.make_node("Concat", ["n1", "two_two"], ["shape3"], axis=0),
             helper.make_node("Reshape", ["rows", "shape3"], ["view"])]
    m = model(nodes, [value("x", F, [7, 4]), value("c", BOOL, [7]),
                      value("row", F, [4])],
              [value("arange", I64, ["n"]), value("fill", F, ["n", 4]),
               value("expanded", F, ["n", 4]), value("view", F, ["n", 2, 2])])
    runs = []
    for keep in (0.4, 1.0):
        runs.append({"x": rng.uniform(-1, 1, (7, 4)).astype(np.float32),
                     "c": rng.uniform(0, 1, 7) < keep,
                     "row": rng.uniform(-1, 1, 4).astype(np.float32)})
    return m, runs


def slice_rows(rng):
    """keep[:3] (torch's post-NMS top-n), rows[1:-1], and a Gemm of the
    kept rows (a box head's Linear)."""
    nodes = [helper.make_node("Compress", ["x", "c"], ["rows"], axis=0),
             const("s0", np.array([0], np.int64)),
             const("e3", np.array([3], np.int64)),
             const("ax0", np.array([0], np.int64)),
             helper.make_node("Slice", ["rows", "s0", "e3", "ax0"], ["top"]),
             const("s1", np.array([1], np.int64)),
             const("em1", np.array([-1], np.int64)),
             helper.make_node("Slice", ["rows", "s1", "em1", "ax0"], ["inner"]),
             helper.make_node("Gemm", ["rows", "w", "b"], ["head"], transB=1)]
    m = model(nodes, [value("x", F, [9, 4]), value("c", BOOL, [9]),
                      value("w", F, [6, 4]), value("b", F, [6])],
              [value("top", F, ["t", 4]), value("inner", F, ["i", 4]),
               value("head", F, ["n", 6])])
    runs = []
    for keep in (0.6, 0.9, 0.0):
        runs.append({"x": rng.uniform(-1, 1, (9, 4)).astype(np.float32),
                     "c": rng.uniform(0, 1, 9) < keep,
                     "w": rng.uniform(-1, 1, (6, 4)).astype(np.float32),
                     "b": rng.uniform(-1, 1, 6).astype(np.float32)})
    return m, runs


def reduce_over_rows(rng):
    """Reductions along the dim the run sizes read the corner only:
    boxes.max() (torchvision's batched_nms offset), a column sum, the
    best row, the lowest, a softmax over the rows; also when no row is
    kept (max of nothing is -inf, a sum 0)."""
    nodes = [helper.make_node("Compress", ["x", "c"], ["rows"], axis=0),
             helper.make_node("ReduceMax", ["rows"], ["top"], keepdims=0),
             helper.make_node("ReduceSum", ["rows", "ax0"], ["sums"],
                              keepdims=0),
             helper.make_node("ArgMax", ["rows"], ["best"], axis=0,
                              keepdims=0),
             helper.make_node("ReduceMin", ["rows"], ["low"], axes=[0],
                              keepdims=1),
             helper.make_node("Softmax", ["rows"], ["p"], axis=0),
             const("ax0", np.array([0], np.int64))]
    nodes = nodes[-1:] + nodes[:-1]
    m = model(nodes, [value("x", F, [6, 3]), value("c", BOOL, [6])],
              [value("top", F, []), value("sums", F, [3]),
               value("best", I64, [3]), value("low", F, [1, 3]),
               value("p", F, ["n", 3])])
    runs = []
    for keep in (0.5, 1.0):
        runs.append({"x": rng.uniform(-4, -1, (6, 3)).astype(np.float32),
                     "c": rng.uniform(0, 1, 6) < keep})
    return m, runs


def filter_twice(rng):
    """A detector's chained filters: rows a mask keeps, then those of them
    whose best score passes a threshold, by NonZero and a Gather of the
    kept rows (boxes[keep]) and by Compress with a mask computed from the
    kept rows (each reads only the corner of what the first filter found)."""
    nodes = [helper.make_node("Compress", ["x", "c"], ["rows"], axis=0),
             helper.make_node("ReduceMax", ["rows"], ["best"], axes=[1],
                              keepdims=0),
             const("t", np.array(0.3, np.float32)),
             helper.make_node("Greater", ["best", "t"], ["pass"]),
             helper.make_node("NonZero", ["pass"], ["nz"]),
             const("a0", np.array([0], np.int64)),
             helper.make_node("Squeeze", ["nz", "a0"], ["keep"]),
             helper.make_node("Gather", ["rows", "keep"], ["gathered"], axis=0),
             helper.make_node("Compress", ["rows", "pass"], ["compressed"],
                              axis=0)]
    m = model(nodes, [value("x", F, [10, 3]), value("c", BOOL, [10])],
              [value("keep", I64, ["k"]), value("gathered", F, ["k", 3]),
               value("compressed", F, ["k", 3])])
    runs = []
    for keep in (0.5, 1.0, 0.0):
        runs.append({"x": rng.uniform(-1, 1, (10, 3)).astype(np.float32),
                     "c": rng.uniform(0, 1, 10) < keep})
    return m, runs


def if_empty_branch(rng):
    """torchvision's batched_nms guard: `if boxes.numel() == 0: return
    empty else: ...`, an If on a condition the run computes from an extent,
    whose then branch is a static empty tensor: the else branch's value,
    emptied where the condition holds."""
    then_g = helper.make_graph(
        [const("empty", np.zeros((0,), np.int64))], "then", [],
        [value("empty", I64, [0])])
    else_g = helper.make_graph(
        [helper.make_node("ReduceMax", ["rows"], ["top"], keepdims=0),
         helper.make_node("Sub", ["rows", "top"], ["shifted"]),
         helper.make_node("ReduceMin", ["shifted"], ["low"], axes=[1],
                          keepdims=0),
         const("t", np.array(-1.5, np.float32)),
         helper.make_node("Greater", ["low", "t"], ["m"]),
         helper.make_node("NonZero", ["m"], ["nz"]),
         const("a0", np.array([0], np.int64)),
         helper.make_node("Squeeze", ["nz", "a0"], ["kept"])],
        "else", [], [value("kept", I64, None)])
    nodes = [helper.make_node("Compress", ["x", "c"], ["rows"], axis=0),
             helper.make_node("Shape", ["rows"], ["shape"]),
             helper.make_node("ReduceProd", ["shape"], ["numel"], keepdims=0),
             const("zero", np.array(0, np.int64)),
             helper.make_node("Equal", ["numel", "zero"], ["is_empty"]),
             helper.make_node("If", ["is_empty"], ["keep"], then_branch=then_g,
                              else_branch=else_g)]
    m = model(nodes, [value("x", F, [6, 3]), value("c", BOOL, [6])],
              [value("keep", I64, ["k"])])
    runs = []
    for keep in (0.7, 0.0, 1.0):
        runs.append({"x": rng.uniform(-1, 1, (6, 3)).astype(np.float32),
                     "c": rng.uniform(0, 1, 6) < keep})
    return m, runs


# --- NonMaxSuppression ------------------------------------------------------------

def nms_yolo(rng):
    """A YOLO head: boxes [cx, cy, w, h] scaled from the predictions, class
    scores through a sigmoid, NMS with a constant limit (which narrows the
    bound to batches * classes * limit) and thresholds, then the kept boxes
    gathered by column 2 of the selection (Gather of a column), their
    classes by column 1 (Slice and Squeeze) and the boxes scaled again."""
    n, classes = 30, 3
    nodes = [const("s0", np.array([0, 0, 0], np.int64)),
             const("s1", np.array([1, n, 4], np.int64)),
             const("s2", np.array([1, n, 4 + classes], np.int64)),
             helper.make_node("Slice", ["pred", "s0", "s1"], ["raw"]),
             const("scale", np.array([640, 640, 64, 64], np.float32)),
             helper.make_node("Mul", ["raw", "scale"], ["boxes"]),
             const("s1_start", np.array([0, 0, 4], np.int64)),
             helper.make_node("Slice", ["pred", "s1_start", "s2"], ["logits"]),
             helper.make_node("Transpose", ["logits"], ["logits_t"],
                              perm=[0, 2, 1]),
             helper.make_node("Sigmoid", ["logits_t"], ["scores"]),
             const("limit", np.array([5], np.int64)),
             const("iou", np.array([0.3], np.float32)),
             const("floor", np.array([0.6], np.float32)),
             helper.make_node("NonMaxSuppression",
                              ["boxes", "scores", "limit", "iou", "floor"],
                              ["selected"], center_point_box=1),
             const("two", np.array(2, np.int64)),
             helper.make_node("Gather", ["selected", "two"], ["box_index"],
                              axis=1),
             const("axis0", np.array([0], np.int64)),
             helper.make_node("Squeeze", ["boxes", "axis0"], ["boxes2d"]),
             helper.make_node("Gather", ["boxes2d", "box_index"], ["kept"],
                              axis=0),
             const("half", np.array(0.5, np.float32)),
             helper.make_node("Mul", ["kept", "half"], ["kept_half"]),
             const("c0", np.array([1], np.int64)),
             const("c1", np.array([2], np.int64)),
             const("axis1", np.array([1], np.int64)),
             helper.make_node("Slice", ["selected", "c0", "c1", "axis1"],
                              ["class_column"]),
             helper.make_node("Squeeze", ["class_column", "axis1"],
                              ["class_id"])]
    m = model(nodes, [value("pred", F, [1, n, 4 + classes])],
              [value("selected", I64, ["k", 3]), value("kept_half", F, ["k", 4]),
               value("class_id", I64, ["k"])])

    def pred(spread):
        p = np.empty((1, n, 4 + classes), np.float32)
        centres = rng.uniform(0, 1, (n, 2)) * spread + 0.5 * (1 - spread)
        p[0, :, 0:2] = centres
        p[0, :, 2:4] = rng.uniform(0.5, 2, (n, 2))
        p[0, :, 4:] = rng.normal(0, 2, (n, classes))
        return p
    return m, [{"pred": pred(0.1)}, {"pred": pred(1.0)}]


def nms_corners_inputs(rng):
    """Corner boxes, some with their corners flipped, and the limit and both
    thresholds as model inputs: two batches, three classes."""
    nodes = [helper.make_node("NonMaxSuppression",
                              ["boxes", "scores", "limit", "iou", "floor"],
                              ["selected"])]
    m = model(nodes, [value("boxes", F, [2, 12, 4]), value("scores", F, [2, 3, 12]),
                      value("limit", I64, [1]), value("iou", F, [1]),
                      value("floor", F, [1])],
              [value("selected", I64, ["k", 3])])

    def boxes():
        low = rng.uniform(0, 4, (2, 12, 2))
        high = low + rng.uniform(0.5, 3, (2, 12, 2))
        b = np.concatenate([low, high], axis=2).astype(np.float32)
        flip = rng.uniform(0, 1, (2, 12)) < 0.5
        b[flip] = b[flip][:, [2, 3, 0, 1]]
        return b
    return m, [{"boxes": boxes(),
                "scores": rng.uniform(0, 1, (2, 3, 12)).astype(np.float32),
                "limit": np.array([4], np.int64), "iou": np.array([0.2], np.float32),
                "floor": np.array([0.3], np.float32)},
               # Scores of a few levels: ties, taken by ascending index.
               {"boxes": boxes(),
                "scores": rng.integers(0, 3, (2, 3, 12)).astype(np.float32) / 2,
                "limit": np.array([100], np.int64),
                "iou": np.array([0.5], np.float32),
                "floor": np.array([-1], np.float32)},
               {"boxes": boxes(),
                "scores": rng.uniform(0, 1, (2, 3, 12)).astype(np.float32),
                "limit": np.array([0], np.int64), "iou": np.array([0.2], np.float32),
                "floor": np.array([0.3], np.float32)}]


def nms_centers_no_floor(rng):
    """Centre boxes, the limit and the IOU threshold as inputs and no score
    threshold (every box is a candidate)."""
    nodes = [helper.make_node("NonMaxSuppression",
                              ["boxes", "scores", "limit", "iou"], ["selected"],
                              center_point_box=1)]
    m = model(nodes, [value("boxes", F, [1, 16, 4]), value("scores", F, [1, 2, 16]),
                      value("limit", I64, [1]), value("iou", F, [1])],
              [value("selected", I64, ["k", 3])])

    def boxes():
        b = np.empty((1, 16, 4), np.float32)
        b[0, :, 0:2] = rng.uniform(0, 3, (16, 2))
        b[0, :, 2:4] = rng.uniform(0.5, 2, (16, 2))
        return b
    return m, [{"boxes": boxes(),
                "scores": rng.uniform(0, 1, (1, 2, 16)).astype(np.float32),
                "limit": np.array([3], np.int64), "iou": np.array([0.4], np.float32)},
               {"boxes": boxes(),
                "scores": rng.uniform(0, 1, (1, 2, 16)).astype(np.float32),
                "limit": np.array([16], np.int64), "iou": np.array([0.7], np.float32)}]


# --- Unique -------------------------------------------------------------------------

def unique_model(x_type, x_shape, y_shape, rows, **attrs):
    nodes = [helper.make_node("Unique", ["x"], ["y", "indices", "inverse", "counts"],
                              **attrs)]
    return model(nodes, [value("x", x_type, x_shape)],
                 [value("y", x_type, y_shape), value("indices", I64, ["k"]),
                  value("inverse", I64, [rows]), value("counts", I64, ["k"])])


def unique_sorted_flat(rng):
    """Without axis, sorted: the distinct elements of a float matrix."""
    m = unique_model(F, [3, 4], ["k"], 12)
    return m, [{"x": rng.integers(-3, 3, (3, 4)).astype(np.float32) / 4},
               {"x": np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::-1].copy()}]


def unique_unsorted_flat(rng):
    """Without axis, in the order of first occurrence, then the values
    shifted (a pointwise op on y)."""
    nodes = [helper.make_node("Unique", ["x"], ["u", "indices", "inverse", "counts"],
                              sorted=0),
             const("one", np.array(1, np.int64)),
             helper.make_node("Add", ["u", "one"], ["y"])]
    m = model(nodes, [value("x", I64, [10])],
              [value("y", I64, ["k"]), value("indices", I64, ["k"]),
               value("inverse", I64, [10]), value("counts", I64, ["k"])])
    return m, [{"x": rng.integers(0, 4, 10).astype(np.int64)},
               {"x": np.full(10, 7, np.int64)}]


def unique_sorted_axis(rng):
    """Distinct slices along the middle axis, sorted lexicographically."""
    m = unique_model(F, [2, 6, 2], [2, "k", 2], 6, axis=1)
    x = rng.integers(0, 2, (2, 6, 2)).astype(np.float32)
    y = x.copy()
    y[:, 3] = y[:, 1]
    y[:, 5] = y[:, 0]
    return m, [{"x": x}, {"x": y}]


def unique_unsorted_axis(rng):
    """Distinct rows (negative axis), in the order of first occurrence."""
    m = unique_model(I64, [7, 3], ["k", 3], 7, axis=-2, sorted=0)
    x = rng.integers(0, 2, (7, 3)).astype(np.int64)
    return m, [{"x": x}, {"x": np.repeat(x[:2], [3, 4], axis=0)}]


def unique_counts_total(rng):
    """ReduceSum and ReduceMax of Unique's counts read the counts found:
    their total is the element count, their max the most repeated value's."""
    nodes = [helper.make_node("Unique", ["x"],
                              ["y", "indices", "inverse", "counts"]),
             helper.make_node("ReduceSum", ["counts"], ["total"], keepdims=0),
             helper.make_node("ReduceMax", ["counts"], ["most"], keepdims=0)]
    m = model(nodes, [value("x", F, [6])],
              [value("total", I64, []), value("most", I64, [])])
    return m, [{"x": np.array([3, 1, 3, 2, 3, 1], np.float32)},
               {"x": np.arange(6, dtype=np.float32)}]


def gather_nd_scores(rng):
    """The scores of the kept boxes as exporters gather them: GatherND of
    the scores by the selection (its padding rows index [0, 0, 0])."""
    nodes = [const("limit", np.array([3], np.int64)),
             const("iou", np.array([0.4], np.float32)),
             helper.make_node("NonMaxSuppression",
                              ["boxes", "scores", "limit", "iou"], ["selected"]),
             helper.make_node("GatherND", ["scores", "selected"], ["kept"])]
    m = model(nodes, [value("boxes", F, [1, 8, 4]),
                      value("scores", F, [1, 2, 8])], [value("kept", F, ["k"])])
    corner = rng.uniform(0, 10, (1, 8, 2)).astype(np.float32)
    boxes = np.concatenate([corner, corner + 3], 2)
    return m, [{"boxes": boxes,
                "scores": rng.uniform(0, 1, (1, 2, 8)).astype(np.float32)}]


def nms_of_filtered(rng):
    """NonMaxSuppression of the boxes and scores a first filter kept (a
    two-stage detector's proposals): the padding past the kept boxes is
    never a candidate."""
    nodes = [helper.make_node("NonZero", ["keep"], ["nz"]),
             const("a0", np.array([0], np.int64)),
             helper.make_node("Squeeze", ["nz", "a0"], ["index"]),
             helper.make_node("Gather", ["boxes", "index"], ["kept"], axis=0),
             helper.make_node("Gather", ["scores", "index"], ["kept_scores"],
                              axis=0),
             helper.make_node("Unsqueeze", ["kept", "a0"], ["b3"]),
             const("a01", np.array([0, 1], np.int64)),
             helper.make_node("Unsqueeze", ["kept_scores", "a01"], ["s3"]),
             const("limit", np.array([4], np.int64)),
             const("iou", np.array([0.3], np.float32)),
             helper.make_node("NonMaxSuppression",
                              ["b3", "s3", "limit", "iou"], ["selected"])]
    m = model(nodes, [value("boxes", F, [12, 4]), value("scores", F, [12]),
                      value("keep", BOOL, [12])],
              [value("selected", I64, ["k", 3])])
    runs = []
    for keep in (0.6, 1.0, 0.0):
        corner = rng.uniform(0, 10, (12, 2)).astype(np.float32)
        size = rng.uniform(1, 5, (12, 2)).astype(np.float32)
        runs.append({"boxes": np.concatenate([corner, corner + size], 1),
                     "scores": rng.uniform(0, 1, 12).astype(np.float32),
                     "keep": rng.uniform(0, 1, 12) < keep})
    return m, runs


CASES = {f.__name__: f for f in (
    nonzero_coordinates, nonzero_empty_and_full, select_boxes, nonzero_shape,
    compress_axis, compress_flat, compress_rows_int, score_rows,
    shape_arithmetic, slice_rows, reduce_over_rows, filter_twice,
    if_empty_branch, nms_yolo, nms_corners_inputs, nms_centers_no_floor,
    unique_sorted_flat, unique_unsorted_flat, unique_sorted_axis,
    unique_unsorted_axis, unique_counts_total, gather_nd_scores,
    nms_of_filtered)}


# --- Refusals ---------------------------------------------------------------------

def refuse_mean_over_extent(rng):
    nodes = [helper.make_node("Compress", ["x", "c"], ["rows"], axis=0),
             helper.make_node("ReduceMean", ["rows"], ["y"], axes=[0],
                              keepdims=0)]
    return model(nodes, [value("x", F, [5, 2]), value("c", BOOL, [5])],
                 [value("y", F, [2])])


def refuse_concat_along_extent(rng):
    nodes = [helper.make_node("Compress", ["x", "c"], ["p"], axis=0),
             helper.make_node("Concat", ["p", "x"], ["y"], axis=0)]
    return model(nodes, [value("x", F, [4, 2]), value("c", BOOL, [4])],
                 [value("y", F, ["n", 2])])


def refuse_interleaving_view(rng):
    nodes = [helper.make_node("NonZero", ["x"], ["nz"]),
             helper.make_node("Flatten", ["nz"], ["y"], axis=0)]
    return model(nodes, [value("x", F, [3, 3])], [value("y", I64, [1, "n"])])


def refuse_static_partner(rng):
    nodes = [helper.make_node("Compress", ["x", "c"], ["p"], axis=0),
             helper.make_node("Add", ["p", "x"], ["y"])]
    return model(nodes, [value("x", F, [4, 2]), value("c", BOOL, [4])],
                 [value("y", F, ["n", 2])])


REFUSALS = {
    "mean_over_extent": (
        refuse_mean_over_extent,
        "node 'ReduceMean_1': graph.reduce_mean reads a value of type "
        "tensor<5x2xf32> whose extent node 'Compress_0' decides at run time: "
        "graphc cannot yet compute this op over a dim the run sizes"),
    "concat_along_extent": (
        refuse_concat_along_extent,
        "concatenating along its dim that the run sizes would leave padding "
        "between the parts"),
    "interleaving_view": (
        refuse_interleaving_view,
        "merging dim 1, which the run sizes, into static dims before it would "
        "interleave the padding with the data"),
    "static_partner": (
        refuse_static_partner,
        "its dim 0 is combined with a static dim of 4 elements"),
}


def graphc_compile(args, model_path, so_path):
    command = [args.graphc, "compile", model_path, "-o", so_path,
               "--target", args.target]
    if args.cuda_emulation:
        command.append("--cuda-emulation")
    return subprocess.run(command, capture_output=True, text=True)


def check_case(args, name, work_dir):
    import graphc
    import onnxruntime as ort
    m, runs = CASES[name](np.random.default_rng(0))
    model_path = os.path.join(work_dir, f"{name}.onnx")
    so_path = os.path.join(work_dir, f"{name}.so")
    onnx.save(m, model_path)
    proc = graphc_compile(args, model_path, so_path)
    if proc.returncode != 0:
        raise CheckFailed(f"graphc compile failed:\n{proc.stderr.strip()}")
    session = ort.InferenceSession(m.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    lines = []
    with graphc.load(so_path) as compiled:
        for feeds in runs:
            expected = session.run(None, feeds)
            actual = [t.numpy() for t in compiled.run(feeds)]
            for out, got, want in zip(names, actual, expected):
                if got.shape != want.shape or got.dtype != want.dtype:
                    raise CheckFailed(
                        f"output '{out}': {got.dtype}{list(got.shape)}, "
                        f"onnxruntime gives {want.dtype}{list(want.shape)}")
                exact = got.dtype.kind in "biu"
                if not (np.array_equal(got, want) if exact else
                        np.allclose(got, want, rtol=1e-5, atol=1e-6)):
                    raise CheckFailed(f"output '{out}' differs from "
                                      f"onnxruntime:\n{got}\n{want}")
            lines.append(",".join(f"{list(a.shape)}" for a in actual))
    return " then ".join(lines)


def check_buckets(args, name, work_dir):
    """A bucketed input reaching NonZero: every bucket plans its own bound,
    runs at a bucket's size match onnxruntime, and a size between buckets is
    refused (padding would change what NonZero counts) naming the output."""
    import graphc
    import onnxruntime as ort
    nodes = [helper.make_node("NonZero", ["x"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["y"], perm=[1, 0])]
    m = model(nodes, [value("x", F, ["batch", 4])], [value("y", I64, ["n", 2])])
    model_path = os.path.join(work_dir, "buckets.onnx")
    so_path = os.path.join(work_dir, "buckets.so")
    onnx.save(m, model_path)
    proc = subprocess.run([args.graphc, "compile", model_path, "-o", so_path,
                           "--target", args.target, "--buckets", "batch=2,4,8"]
                          + (["--cuda-emulation"] if args.cuda_emulation else []),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise CheckFailed(f"graphc compile failed:\n{proc.stderr.strip()}")
    if "exact sizes only: node 'NonZero_0': non_zero sizes its result by " \
            "the values it reads" not in proc.stdout:
        raise CheckFailed(f"the compile does not say why: {proc.stdout}")
    session = ort.InferenceSession(m.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    shapes = []
    with graphc.load(so_path) as compiled:
        for batch in (8, 2, 4):
            x = sparse(rng, (batch, 4), 0.5)
            got = compiled.run({"x": x})[0].numpy()
            want = session.run(None, {"x": x})[0]
            if got.shape != want.shape or not np.array_equal(got, want):
                raise CheckFailed(f"batch {batch}: {got} but onnxruntime "
                                  f"gives {want}")
            shapes.append(list(got.shape))
        try:
            compiled.run({"x": sparse(rng, (3, 4), 0.5)})
        except graphc.GraphcError as error:
            if "output 'y' has data-dependent dim 0, so runs are neither " \
                    "padded nor split" not in str(error):
                raise CheckFailed(f"unexpected error: {error}")
        else:
            raise CheckFailed("a run between buckets was padded")
    return f"{shapes}; batch 3 refused"


def check_gather_indices(args, name, work_dir):
    """A Gather along a dim the run sizes takes indices relative to the
    extent (-1 is the last kept row, not the bound's) and refuses one
    outside it, naming the node, though the bound would hold it."""
    import graphc
    nodes = [helper.make_node("Compress", ["x", "c"], ["rows"], axis=0),
             helper.make_node("Gather", ["rows", "i"], ["y"], axis=0)]
    m = model(nodes, [value("x", F, [6, 2]), value("c", BOOL, [6]),
                      value("i", I64, [2])], [value("y", F, [2, 2])])
    model_path = os.path.join(work_dir, "gather.onnx")
    so_path = os.path.join(work_dir, "gather.so")
    onnx.save(m, model_path)
    proc = graphc_compile(args, model_path, so_path)
    if proc.returncode != 0:
        raise CheckFailed(f"graphc compile failed:\n{proc.stderr.strip()}")
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    c = np.array([1, 0, 1, 1, 0, 0], bool)
    with graphc.load(so_path) as compiled:
        got = compiled.run({"x": x, "c": c, "i": np.array([-1, 0])})[0].numpy()
        want = x[c][[-1, 0]]
        if not np.array_equal(got, want):
            raise CheckFailed(f"{got}, expected {want}")
        try:
            compiled.run({"x": x, "c": c, "i": np.array([0, 4])})
        except graphc.GraphcError as error:
            if "Gather_1" not in str(error):
                raise CheckFailed(f"unexpected error: {error}")
            text = str(error)
        else:
            raise CheckFailed("index 4 of 3 kept rows was read from the bound")
    return "rows[-1], rows[0] right; index 4 of 3 refused: " + text[:120]


RUN_CHECKS = {"buckets": check_buckets, "gather_indices": check_gather_indices}


def check_refusal(args, name, work_dir):
    make, text = REFUSALS[name]
    model_path = os.path.join(work_dir, f"{name}.onnx")
    onnx.save(make(np.random.default_rng(0)), model_path)
    proc = graphc_compile(args, model_path, os.path.join(work_dir, f"{name}.so"))
    lines = proc.stderr.strip().splitlines()
    if proc.returncode != 1 or not lines or \
            not lines[0].startswith("graphc: error: ") or text not in lines[0]:
        raise CheckFailed(f"expected exit 1 and an error with '{text}', got "
                          f"exit {proc.returncode}: {proc.stderr.strip()}")
    return "refused: " + lines[0][:200]


def main():
    return run_checks(__doc__, lambda: ([(n, check_case) for n in CASES] +
                      [(n, check_refusal) for n in REFUSALS] +
                      list(RUN_CHECKS.items())),
                      "graphc-data-dependent")


if __name__ == "__main__":
    sys.exit(main())
