"""Models whose positions depend on the sequence length, compiled with seq
buckets and run at padded sizes against onnxruntime.

Positions that hold the unpadded run's values in their leading places
(Range(0, seq, 1), table[:seq], a gather from a table by them) keep seq
pad-safe, and padded runs match; a reversed range, table[-seq:], a gather at
indices computed from the size, positions times the size and a reversing
slice of a range make seq exact-size only, with the node named, and a padded
run is refused. batch stays pad-safe and splittable in every model.

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


def build(name, nodes):
    out = {"leading_positions": "y_looked_up"}.get(name, "y")
    graph = helper.make_graph(
        seq_nodes() + nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq"])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, ["batch", "seq"])],
        [ints("zero", 0), ints("one", 1), ints("minus_one", -1), ints("zero1", [0]),
         ints("minus_one1", [-1]), ints("end_max", [INT64_MAX]),
         ints("end_min", [INT64_MIN]), numpy_helper.from_array(TABLE, "table")])
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


for name, (nodes, node) in MODELS.items():
    path = build(name, nodes)
    so = os.path.join(WORK, f"{name}.so")
    subprocess.run([GRAPHC, "compile", path, "--target", "cpu", "--buckets", "batch=1,2",
                    "--buckets", "seq=4,8", "-o", so, "--quiet"], check=True)
    with graphc.load(so) as model:
        dims = {dim.name: dim for dim in model.bucket_dims}
        assert dims["batch"].pad_safe and dims["batch"].splittable, dims["batch"].reason
        seq = dims["seq"]
        if node is None:
            assert seq.pad_safe, (name, seq.node, seq.reason)
            runs = [(1, 4), (2, 8), (2, 5), (1, 7), (3, 3)]
        else:
            assert not seq.pad_safe and seq.node == node, (name, seq.node, seq.reason)
            runs = [(1, 4), (2, 8), (3, 4)]
            try:
                model.run({"x": np.zeros((1, 5), np.float32)})
            except graphc.InvalidArgumentError as error:
                assert "'seq'" in str(error) and node in str(error), str(error)
            else:
                raise AssertionError(f"{name}: seq 5 ran padded")
        errors = [compare(path, model, b, s, seed) for seed, (b, s) in enumerate(runs)]
        verdict = "pad-safe" if seq.pad_safe else f"exact ({seq.node}: {seq.reason})"
        print(f"{name}: seq {verdict}; runs {runs} max |error| {max(errors):.3g}")
