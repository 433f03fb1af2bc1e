"""Models whose positions depend on the sequence length, compiled with
batch and seq buckets and run at padded sizes against onnxruntime.

Positions that hold the unpadded run's values in their leading places
(Range(0, seq, 1), table[:seq], a gather from a table by them) keep seq
pad-safe, and padded runs match; a reversed range, table[-seq:], a gather at
indices computed from the size, positions times the size, a reversing
slice of a range, a concatenation after positions of varying length and a
GatherND at a negative position make seq exact-size only, with the node
named, and a padded run is refused. transformers' packed-sequence check
(positions concatenated along seq, read by GatherND at (row, position)
pairs built from Range(0, batch) and Range(0, seq)) and a causal table
sliced [k - q:k] keep both pad-safe. batch stays pad-safe in every model and
splittable in all but one, whose positions count rows (Range(0, batch)):
a run split into parts is refused there.

usage: check_size_uses.py GRAPHC WORK_DIR"""
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import graphc

# onnxruntime warns about the initializers a model leaves unused.
QUIET = ort.SessionOptions()
QUIET.log_severity_level = 3

GRAPHC, WORK = sys.argv[1], sys.argv[2]
TABLE = np.linspace(-3, 5, 16, dtype=np.float32)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def ints(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def seq_nodes():
    """seq as a scalar ('seq') and a [1] vector ('seq1'), from Shape(x)."""
    return [helper.make_node("Shape", ["x"], ["shape"], name="shape"),
            helper.make_node("Gather", ["shape", "one"], ["seq"], name="seq", axis=0),
            helper.make_node("Unsqueeze", ["seq", "zero1"], ["seq1"], name="seq1")]


def positions(start, limit, step, name="positions"):
    return helper.make_node("Range", [start, limit, step], [name], name=name)


def add_positions(values, name="add"):
    """y = x + float(values), values an int64 [seq] tensor."""
    return [helper.make_node("Cast", [values], ["values_f"], name=f"{name}_cast",
                             to=TensorProto.FLOAT),
            helper.make_node("Add", ["x", "values_f"], ["y"], name=name)]


MODELS = {
    # y = x + Range(seq - 1, -1, -1): the start is the size.
    "reversed_range": (
        [helper.make_node("Sub", ["seq", "one"], ["last"], name="last"),
         positions("last", "minus_one", "minus_one", "reversed"),
         *add_positions("reversed")], "reversed"),
    # y = x + table[-seq:]: the start counts back from the end by the size.
    "table_tail": (
        [helper.make_node("Neg", ["seq1"], ["minus_seq"], name="minus_seq"),
         helper.make_node("Slice", ["table", "minus_seq", "end_max", "zero1"],
                          ["tail"], name="tail"),
         helper.make_node("Add", ["x", "tail"], ["y"], name="add")], "tail"),
    # y = x + table[seq - 1 - Range(0, seq)]: gather indices from the size.
    "gather_indices": (
        [positions("zero", "seq", "one"),
         helper.make_node("Sub", ["seq", "one"], ["last"], name="last"),
         helper.make_node("Sub", ["last", "positions"], ["indices"], name="indices"),
         helper.make_node("Gather", ["table", "indices"], ["picked"], name="picked",
                          axis=0),
         helper.make_node("Add", ["x", "picked"], ["y"], name="add")], "picked"),
    # y = x + Range(0, seq) * seq: arithmetic on Shape's output reaches data.
    "scaled_positions": (
        [positions("zero", "seq", "one"),
         helper.make_node("Mul", ["positions", "seq"], ["scaled"], name="scaled"),
         *add_positions("scaled")], "add_cast"),
    # y = x + Range(0, seq)[::-1]: a reversing slice of positions.
    "flipped_range": (
        [positions("zero", "seq", "one"),
         helper.make_node("Slice", ["positions", "minus_one1", "end_min", "zero1",
                                    "minus_one1"], ["flipped"], name="flipped"),
         *add_positions("flipped")], "flipped"),
    # y = x + Range(0, seq) + table[:seq] + table[Range(0, seq)]: exact padded.
    "leading_positions": (
        [positions("zero", "seq", "one"),
         helper.make_node("Slice", ["table", "zero1", "seq1", "zero1"], ["head"],
                          name="head"),
         helper.make_node("Gather", ["table", "positions"], ["looked_up"],
                          name="looked_up", axis=0),
         *add_positions("positions", "add_positions"),
         helper.make_node("Add", ["y", "head"], ["y_head"], name="add_head"),
         helper.make_node("Add", ["y_head", "looked_up"], ["y_looked_up"],
                          name="add_looked_up")], None),
}


def packed_nodes(column):
    """transformers' packed-sequence check (GPT-2, torch.export): position ids
    [batch, seq] with one position before them concatenated along seq, their
    steps compared, and per-row running sums read by GatherND at (row,
    column) pairs; `column` gives the position of each pair. y = x +
    the values read + x summed under the causal, same-segment mask."""
    return [
        positions("zero", "seq", "one"),
        helper.make_node("Unsqueeze", ["positions", "zero1"], ["pos_row"], name="pos_row"),
        helper.make_node("Shape", ["x"], ["batch1"], name="batch1", end=1),
        helper.make_node("Concat", ["batch1", "one1"], ["ids_shape"], name="ids_shape",
                         axis=0),
        helper.make_node("Expand", ["pos_row", "ids_shape"], ["ids"], name="ids"),
        helper.make_node("Slice", ["ids", "zero1", "one1", "one1", "one1"], ["first"],
                         name="first"),
        helper.make_node("Sub", ["first", "one"], ["before"], name="before"),
        helper.make_node("Concat", ["before", "ids"], ["cat"], name="cat", axis=-1),
        helper.make_node("Add", ["seq1", "one1"], ["seq_plus1"], name="seq_plus1"),
        helper.make_node("Slice", ["cat", "zero1", "seq1", "minus_one1", "one1"], ["lo"],
                         name="lo"),
        helper.make_node("Slice", ["cat", "one1", "seq_plus1", "minus_one1", "one1"],
                         ["hi"], name="hi"),
        helper.make_node("Sub", ["hi", "lo"], ["steps"], name="steps"),
        helper.make_node("Equal", ["steps", "one"], ["stepped"], name="stepped"),
        helper.make_node("Not", ["stepped"], ["jumped"], name="jumped"),
        helper.make_node("Cast", ["jumped"], ["jumps"], name="jumps", to=TensorProto.INT64),
        helper.make_node("CumSum", ["jumps", "one"], ["segment"], name="segment"),
        helper.make_node("Mul", ["hi", "hi"], ["hi2"], name="hi2"),
        helper.make_node("Sub", ["hi2", "lo"], ["values"], name="values"),
        helper.make_node("CumSum", ["values", "one"], ["running"], name="running"),
        # (row, column) pairs: Range(0, batch) down, `column` across.
        helper.make_node("Gather", ["shape", "zero"], ["batch"], name="batch", axis=0),
        positions("zero", "batch", "one", "rows"),
        helper.make_node("Reshape", ["rows", "column"], ["rows_col"], name="rows_col"),
        helper.make_node("Max", ["rows_col", "positions"], ["grid"], name="grid"),
        helper.make_node("Shape", ["grid"], ["grid_shape"], name="grid_shape"),
        helper.make_node("Expand", ["rows_col", "grid_shape"], ["row_index"],
                         name="row_index"),
        helper.make_node("Unsqueeze", ["row_index", "minus_one1"], ["row_index1"],
                         name="row_index1"),
        helper.make_node("Expand", [column, "grid_shape"], ["col_index"], name="col_index"),
        helper.make_node("Unsqueeze", ["col_index", "minus_one1"], ["col_index1"],
                         name="col_index1"),
        helper.make_node("Concat", ["row_index1", "col_index1"], ["pairs"], name="pairs",
                         axis=-1),
        helper.make_node("GatherND", ["running", "pairs"], ["packed"], name="packed"),
        helper.make_node("GatherND", ["segment", "pairs"], ["segments"], name="segments"),
        # The causal mask within a segment, as GPT-2 builds it.
        helper.make_node("Concat", ["batch1", "seq1", "one1"], ["q_shape"], name="q_shape",
                         axis=0),
        helper.make_node("Concat", ["batch1", "one1", "seq1"], ["k_shape"], name="k_shape",
                         axis=0),
        helper.make_node("Reshape", ["segments", "q_shape"], ["seg_q"], name="seg_q"),
        helper.make_node("Reshape", ["segments", "k_shape"], ["seg_k"], name="seg_k"),
        helper.make_node("Equal", ["seg_q", "seg_k"], ["same"], name="same"),
        helper.make_node("Reshape", ["positions", "column"], ["pos_col"], name="pos_col"),
        helper.make_node("LessOrEqual", ["positions", "pos_col"], ["causal"], name="causal"),
        helper.make_node("And", ["causal", "same"], ["mask"], name="mask"),
        helper.make_node("Unsqueeze", ["x", "one1"], ["x_rows"], name="x_rows"),
        helper.make_node("Where", ["mask", "x_rows", "zero_f"], ["masked"], name="masked"),
        helper.make_node("ReduceSum", ["masked", "minus_one1"], ["mixed"], name="mixed",
                         keepdims=0),
        helper.make_node("Cast", ["packed"], ["packed_f"], name="packed_f",
                         to=TensorProto.FLOAT),
        helper.make_node("Add", ["x", "packed_f"], ["y0"], name="add_packed"),
        helper.make_node("Add", ["y0", "mixed"], ["y"], name="add")]


# y = x + x @ bias[0, 0, k - q:k, :k], k and q both the sequence length (as
# older TorchScript exports of GPT-2 slice its causal bias).
BIAS = np.tril(np.ones((16, 16), np.float32)).reshape(1, 1, 16, 16)
KQ_NODES = [
    helper.make_node("Shape", ["x"], ["k_len"], name="k_len", start=1, end=2),
    helper.make_node("Sub", ["k_len", "seq1"], ["offset"], name="offset"),
    helper.make_node("Slice", ["bias", "offset", "k_len", "two1"], ["bias_rows"],
                     name="bias_rows"),
    helper.make_node("Slice", ["bias_rows", "zero1", "k_len", "three1"], ["bias_kq"],
                     name="bias_kq"),
    helper.make_node("Squeeze", ["bias_kq", "zero_one"], ["causal"], name="causal"),
    helper.make_node("MatMul", ["x", "causal"], ["mixed"], name="mixed"),
    helper.make_node("Add", ["x", "mixed"], ["y"], name="add")]

MODELS.update({
    # GPT-2's packed-sequence check: seq and batch both pad, batch splits.
    "packed_sequences": (packed_nodes("positions"), None),
    # The same read at position - 1: -1 counts from the end along seq.
    "packed_negative": (
        packed_nodes("before_positions")[:1] +
        [helper.make_node("Sub", ["positions", "one"], ["before_positions"],
                          name="before_positions")] + packed_nodes("before_positions")[1:],
        "packed"),
    # bias[k - q:k]: k - q folds to 0, a slice from the front.
    "kq_slice": (KQ_NODES, None),
    # y = x + Range(0, seq) ++ Range(0, seq) [1:seq + 1]: the second copy
    # starts where the first ends, which padding moves.
    "concat_tail": (
        [positions("zero", "seq", "one"),
         helper.make_node("Concat", ["positions", "positions"], ["twice"], name="twice",
                          axis=0),
         helper.make_node("Add", ["seq1", "one1"], ["seq_plus1"], name="seq_plus1"),
         helper.make_node("Slice", ["twice", "one1", "seq_plus1"], ["shifted"],
                          name="shifted"),
         *add_positions("shifted")], "twice"),
    # y = x + Range(0, batch)[:, None]: pads along batch, but each part of a
    # split run would count its rows from 0.
    "row_positions": (
        [helper.make_node("Gather", ["shape", "zero"], ["batch"], name="batch", axis=0),
         positions("zero", "batch", "one", "rows"),
         helper.make_node("Unsqueeze", ["rows", "one1"], ["rows_col"], name="rows_col"),
         *add_positions("rows_col")], None, "add"),
})


def build(name, nodes):
    out = {"leading_positions": "y_looked_up"}.get(name, "y")
    graph = helper.make_graph(
        seq_nodes() + nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq"])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, ["batch", "seq"])],
        [ints("zero", 0), ints("one", 1), ints("minus_one", -1), ints("zero1", [0]),
         ints("minus_one1", [-1]), ints("end_max", [INT64_MAX]),
         ints("end_min", [INT64_MIN]), numpy_helper.from_array(TABLE, "table"),
         ints("one1", [1]), ints("two1", [2]), ints("three1", [3]), ints("zero_one", [0, 1]),
         ints("column", [-1, 1]), numpy_helper.from_array(np.float32(0), "zero_f"),
         numpy_helper.from_array(BIAS, "bias")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    path = os.path.join(WORK, f"{name}.onnx")
    onnx.save(model, path)
    return path


def compare(onnx_path, model, batch, seq, seed):
    x = np.random.default_rng(seed).standard_normal((batch, seq)).astype(np.float32)
    want = ort.InferenceSession(onnx_path, QUIET, providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    got = model.run({"x": x})[0].numpy()
    error = float(np.max(np.abs(got - want)))
    assert got.shape == want.shape and error < 1e-5, (onnx_path, batch, seq, error)
    return error


def refused(model, shape, dim, node):
    try:
        model.run({"x": np.zeros(shape, np.float32)})
    except graphc.InvalidArgumentError as error:
        assert f"'{dim}'" in str(error) and node in str(error), str(error)
    else:
        raise AssertionError(f"{shape} ran")


for name, (nodes, node, *unsplit) in MODELS.items():
    path = build(name, nodes)
    so = os.path.join(WORK, f"{name}.so")
    subprocess.run([GRAPHC, "compile", path, "--target", "cpu", "--buckets", "batch=1,4",
                    "--buckets", "seq=4,8", "-o", so, "--quiet"], check=True)
    with graphc.load(so) as model:
        dims = {dim.name: dim for dim in model.bucket_dims}
        batch, seq = dims["batch"], dims["seq"]
        # batch 2 and 3 pad to 4; 5 splits into 4 and 1 where it may.
        assert batch.pad_safe, (name, batch.node, batch.reason)
        batches = [1, 4, 2, 3, 5]
        if unsplit:
            assert not batch.splittable and batch.node == unsplit[0], (name, batch.node)
            refused(model, (5, 4), "batch", unsplit[0])
            batches.remove(5)
        else:
            assert batch.splittable, (name, batch.node, batch.reason)
        if node is None:
            assert seq.pad_safe, (name, seq.node, seq.reason)
            seqs = [4, 8, 5, 7, 3]
        else:
            assert not seq.pad_safe and seq.node == node, (name, seq.node, seq.reason)
            refused(model, (1, 5), "seq", node)
            seqs = [4, 8, 4, 8, 4]
        runs = list(zip(batches, seqs))
        errors = [compare(path, model, b, s, seed) for seed, (b, s) in enumerate(runs)]
        verdict = "pad-safe" if seq.pad_safe else f"exact ({seq.node}: {seq.reason})"
        split = ("splits" if batch.splittable
                 else f"pads, no split ({batch.node}: {batch.reason})")
        print(f"{name}: seq {verdict}; batch {split}; runs {runs} "
              f"max |error| {max(errors):.3g}")
