"""ONNX If, Loop and Scan against onnxruntime: small models of what exporters
write (torch.cond's If on a rank or size test, a scripted loop with a trip
count input, a while loop with a data-dependent exit, Scan in both
directions over other axes, outer-scope captures, nesting), loops the run
decides (a trip count input, a data-dependent while, nesting, carried values
that trade places, a trip count past what unrolls, a run past the bound),
an If whose branch could fail if computed speculatively (each branch a
loop of at most one iteration), and the refusals (a trip count or
condition that must be known at compile time, a loop whose carried value
changes shape).

    python control_flow_tests.py --graphc build/bin/graphc \
        [--runtime build/lib/libgraphc_runtime.so] [--target cpu|cuda] \
        [--cuda-emulation DRIVER] [--only REGEX] [--work-dir DIR]

Each model is compiled by graphc (with the case's flags, e.g. --const-input
binding a trip count), run through the Python runtime on seeded random
inputs and compared with onnxruntime (CPU) within 1e-5.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))

RTOL = 1e-5
ATOL = 1e-5
F = TensorProto.FLOAT
I64 = TensorProto.INT64
BOOL = TensorProto.BOOL


class CheckFailed(Exception):
    pass


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, array):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.asarray(array), name))


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "control_flow", inputs, outputs,
                              initializer=list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def rand(rng, *shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


# --- If ---------------------------------------------------------------------

def if_on_rank(rng):
    """torch.cond on x.dim() == 3: the condition folds from the static shape,
    and only the taken branch is imported (the other one would not even
    infer: it reshapes to a size the input does not have)."""
    then_g = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["t"])], "then", [],
        [value("t", F, None)])
    else_g = helper.make_graph(
        [const("bad_shape", np.array([7, 7], np.int64)),
         helper.make_node("Reshape", ["x", "bad_shape"], ["e"])], "else", [],
        [value("e", F, None)])
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Size", ["s"], ["rank"]),
             const("three", np.array(3, np.int64)),
             helper.make_node("Equal", ["rank", "three"], ["c"]),
             helper.make_node("If", ["c"], ["y"], then_branch=then_g,
                              else_branch=else_g)]
    m = model(nodes, [value("x", F, [2, 3, 4])], [value("y", F, [2, 3, 4])],
              [numpy_helper.from_array(np.array(2.0, np.float32), "two")])
    return m, {"x": rand(rng, 2, 3, 4)}, []


def if_runtime_select(rng):
    """A condition computed from data: both branches (with outer-scope
    captures and several outputs) and a select."""
    then_g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["t0"]),
         helper.make_node("Add", ["x", "b"], ["t1"]),
         helper.make_node("Identity", ["b"], ["t2"])], "then", [],
        [value("t0", F, None), value("t1", F, None), value("t2", F, None)])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e0"]),
         helper.make_node("Mul", ["x", "b"], ["e1"]),
         helper.make_node("Sqrt", ["b"], ["e2"])], "else", [],
        [value("e0", F, None), value("e1", F, None), value("e2", F, None)])
    nodes = [helper.make_node("ReduceSum", ["x"], ["total"], keepdims=0),
             const("zero", np.array(0.0, np.float32)),
             helper.make_node("Greater", ["total", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["y0", "y1", "y2"],
                              then_branch=then_g, else_branch=else_g)]
    m = model(nodes, [value("x", F, [3, 5]), value("b", F, [5])],
              [value("y0", F, [3, 5]), value("y1", F, [3, 5]),
               value("y2", F, [5])])
    return m, {"x": rand(rng, 3, 5), "b": np.abs(rand(rng, 5))}, []


def if_runtime_select_negative(rng):
    m, feeds, flags = if_runtime_select(rng)
    feeds["x"] = -np.abs(feeds["x"])  # the else branch this time
    return m, feeds, flags


def if_nested_in_if(rng):
    """An If inside a branch, on a condition given as an input."""
    inner_then = helper.make_graph(
        [helper.make_node("Sigmoid", ["x"], ["it"])], "inner_then", [],
        [value("it", F, None)])
    inner_else = helper.make_graph(
        [helper.make_node("Tanh", ["x"], ["ie"])], "inner_else", [],
        [value("ie", F, None)])
    then_g = helper.make_graph(
        [helper.make_node("If", ["c2"], ["inner"], then_branch=inner_then,
                          else_branch=inner_else),
         helper.make_node("Add", ["inner", "x"], ["t"])], "then", [],
        [value("t", F, None)])
    else_g = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["e"])], "else", [],
        [value("e", F, None)])
    nodes = [helper.make_node("If", ["c1"], ["y"], then_branch=then_g,
                              else_branch=else_g)]
    m = model(nodes, [value("c1", BOOL, []), value("c2", BOOL, [1]),
                      value("x", F, [4, 6])], [value("y", F, [4, 6])])
    return m, {"c1": np.array(True), "c2": np.array([False]),
               "x": rand(rng, 4, 6)}, []


def if_guarded_gather(rng, taken=True):
    """`x[idx] if valid else -x`: a branch that can fail at run time (its
    indices are out of range when the other branch is taken) is not computed
    speculatively: each branch is a loop of at most one iteration (on cuda a
    WHILE conditional node) that only its side of the condition enters."""
    then_g = helper.make_graph(
        [helper.make_node("Gather", ["x", "idx"], ["t"], axis=0)], "then", [],
        [value("t", F, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])],
                               "else", [], [value("e", F, None)])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=then_g,
                              else_branch=else_g)]
    m = model(nodes, [value("c", BOOL, []), value("x", F, [4]),
                      value("idx", I64, [4])], [value("y", F, [4])])
    idx = np.array([3, 0, 2, 2] if taken else [7, -9, 100, 4], np.int64)
    return m, {"c": np.array(taken), "x": rand(rng, 4), "idx": idx}, []


# --- Loop -------------------------------------------------------------------

def loop_body_accumulate():
    """Body: s' = s * 0.5 + x[i] (x captured from outside), scan output s'."""
    return helper.make_graph(
        [helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
         helper.make_node("Mul", ["s", "half"], ["scaled"]),
         helper.make_node("Add", ["scaled", "row"], ["s_next"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Identity", ["s_next"], ["scan"])],
        "body",
        [value("i", I64, []), value("cond_in", BOOL, []), value("s", F, [5])],
        [value("cond_out", BOOL, []), value("s_next", F, [5]),
         value("scan", F, [5])],
        initializer=[numpy_helper.from_array(np.array(0.5, np.float32), "half")])


def loop_static_trip_count(rng):
    """A scripted `for i in range(x.shape[0])`: M from Shape, unrolled; one
    loop-carried value and one scan output."""
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             const("zero_index", np.array(0, np.int64)),
             helper.make_node("Gather", ["shape", "zero_index"], ["m"]),
             helper.make_node("Loop", ["m", "", "s0"], ["s_final", "trace"],
                              body=loop_body_accumulate())]
    m = model(nodes, [value("x", F, [4, 5]), value("s0", F, [5])],
              [value("s_final", F, [5]), value("trace", F, [4, 5])])
    return m, {"x": rand(rng, 4, 5), "s0": rand(rng, 5)}, []


def loop_trip_count_input(rng, work_dir=None):
    """M as a graph input: bound at compile time with --const-input."""
    nodes = [helper.make_node("Loop", ["m", "", "s0"], ["s_final", "trace"],
                              body=loop_body_accumulate())]
    m = model(nodes, [value("m", I64, []), value("x", F, [6, 5]),
                      value("s0", F, [5])],
              [value("s_final", F, [5]), value("trace", F, [3, 5])])
    feeds = {"m": np.array(3, np.int64), "x": rand(rng, 6, 5),
             "s0": rand(rng, 5)}
    return m, feeds, ["--const-input", "m=3"]


def loop_while_data_dependent(rng):
    """`while s.sum() < limit and i < 8`: M bounds the loop, the exit
    depends on data, and the iterations after it are masked."""
    body = helper.make_graph(
        [helper.make_node("Mul", ["s", "growth"], ["s_next"]),
         helper.make_node("ReduceSum", ["s_next"], ["total"], keepdims=0),
         helper.make_node("Less", ["total", "limit"], ["cond_out"]),
         helper.make_node("Cast", ["i"], ["i_f"], to=F),
         helper.make_node("Add", ["count", "one"], ["count_next"])],
        "body",
        [value("i", I64, []), value("cond_in", BOOL, []), value("s", F, [4]),
         value("count", F, [])],
        [value("cond_out", BOOL, []), value("s_next", F, [4]),
         value("count_next", F, [])],
        initializer=[numpy_helper.from_array(np.array(1.5, np.float32), "growth"),
                     numpy_helper.from_array(np.array(1.0, np.float32), "one")])
    nodes = [const("m", np.array(8, np.int64)),
             const("count0", np.array(0.0, np.float32)),
             helper.make_node("Loop", ["m", "c0", "s0", "count0"],
                              ["s_final", "count_final"], body=body)]
    m = model(nodes, [value("c0", BOOL, []), value("s0", F, [4]),
                      value("limit", F, [])],
              [value("s_final", F, [4]), value("count_final", F, [])])
    s0 = np.abs(rand(rng, 4)) + 0.1
    return m, {"c0": np.array(True), "s0": s0,
               "limit": np.array(float(s0.sum()) * 4.0, np.float32)}, []


def loop_condition_folds(rng):
    """No M: `i = 0; while i < 3: ...` where the condition is computed from
    the iteration number, so it folds at every iteration."""
    body = helper.make_graph(
        [helper.make_node("Add", ["i", "one"], ["i_next"]),
         helper.make_node("Less", ["i_next", "three"], ["cond_out"]),
         helper.make_node("Sin", ["s"], ["s_next"]),
         helper.make_node("Identity", ["s_next"], ["scan"])],
        "body",
        [value("i", I64, []), value("cond_in", BOOL, []), value("s", F, [2, 3])],
        [value("cond_out", BOOL, []), value("s_next", F, [2, 3]),
         value("scan", F, [2, 3])],
        initializer=[numpy_helper.from_array(np.array(1, np.int64), "one"),
                     numpy_helper.from_array(np.array(3, np.int64), "three")])
    nodes = [const("go", np.array(True)),
             helper.make_node("Loop", ["", "go", "s0"], ["s_final", "trace"],
                              body=body)]
    m = model(nodes, [value("s0", F, [2, 3])],
              [value("s_final", F, [2, 3]), value("trace", F, [3, 2, 3])])
    return m, {"s0": rand(rng, 2, 3)}, []


def loop_growing_state(rng):
    """A loop-carried value that grows each iteration (Concat), as scripted
    token loops do: fine when unrolled with a known trip count."""
    body = helper.make_graph(
        [helper.make_node("Concat", ["acc", "x"], ["acc_next"], axis=0),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [value("i", I64, []), value("cond_in", BOOL, []), value("acc", F, None)],
        [value("cond_out", BOOL, []), value("acc_next", F, None)])
    nodes = [const("m", np.array(3, np.int64)),
             helper.make_node("Loop", ["m", "", "x"], ["y"], body=body)]
    m = model(nodes, [value("x", F, [2, 3])], [value("y", F, [8, 3])])
    return m, {"x": rand(rng, 2, 3)}, []


# --- Loops the run decides (graph.loop) ----------------------------------------

def runtime_body_accumulate():
    """Body: s' = s * 0.5 + x[i] (x captured), n' = n + i; no scan output."""
    return helper.make_graph(
        [helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
         helper.make_node("Mul", ["s", "half"], ["scaled"]),
         helper.make_node("Add", ["scaled", "row"], ["s_next"]),
         helper.make_node("Add", ["n", "i"], ["n_next"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [value("i", I64, []), value("cond_in", BOOL, []), value("s", F, [5]),
         value("n", I64, [])],
        [value("cond_out", BOOL, []), value("s_next", F, [5]),
         value("n_next", I64, [])],
        initializer=[numpy_helper.from_array(np.array(0.5, np.float32), "half")])


def loop_runtime_trip_count(rng, trip_count=3):
    """A scripted `for i in range(m)` with m an input: one graph.loop whose
    trip count the run reads; a body with a Gather by the iteration number,
    an outer-scope capture and an int64 counter."""
    nodes = [const("n0", np.array(0, np.int64)),
             helper.make_node("Loop", ["m", "", "s0", "n0"],
                              ["s_final", "n_final"],
                              body=runtime_body_accumulate())]
    m = model(nodes, [value("m", I64, []), value("x", F, [6, 5]),
                      value("s0", F, [5])],
              [value("s_final", F, [5]), value("n_final", I64, [])])
    feeds = {"m": np.array(trip_count, np.int64), "x": rand(rng, 6, 5),
             "s0": rand(rng, 5)}
    return m, feeds, []


def loop_runtime_while(rng):
    """`while s.sum() < limit`: no trip count, a condition from data; the
    Loop runs as a loop, however many iterations the data takes."""
    m, feeds, flags = loop_while_data_dependent(rng)
    m.graph.node[-1].input[0] = ""
    feeds["limit"] = np.array(float(feeds["s0"].sum()) * 40.0, np.float32)
    return m, feeds, flags


def loop_runtime_swap(rng):
    """Loop-carried values that trade places (a, b -> b, a + b) and a
    condition that is itself carried: the body's end stages what lies in
    the carried slots before overwriting them."""
    body = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["sum"]),
         helper.make_node("ReduceSum", ["sum"], ["total"], keepdims=0),
         helper.make_node("Less", ["total", "limit"], ["go_next"])],
        "body",
        [value("i", I64, []), value("cond_in", BOOL, []), value("a", F, [3]),
         value("b", F, [3]), value("go", BOOL, [])],
        [value("go", BOOL, []), value("b", F, [3]), value("sum", F, [3]),
         value("go_next", BOOL, [])])
    nodes = [const("go0", np.array(True)),
             helper.make_node("Loop", ["m", "", "a0", "b0", "go0"],
                              ["a_final", "b_final", "go_final"], body=body)]
    m = model(nodes, [value("m", I64, []), value("a0", F, [3]),
                      value("b0", F, [3]), value("limit", F, [])],
              [value("a_final", F, [3]), value("b_final", F, [3]),
               value("go_final", BOOL, [])])
    a0, b0 = np.abs(rand(rng, 3)) + 0.5, np.abs(rand(rng, 3)) + 0.5
    return m, {"m": np.array(50, np.int64), "a0": a0, "b0": b0,
               "limit": np.array(40.0, np.float32)}, []


def loop_runtime_nested(rng):
    """A loop the run decides inside another: `for i in range(m): for j in
    range(k): s = s * 0.9 + i`."""
    inner = helper.make_graph(
        [helper.make_node("Mul", ["t", "decay"], ["scaled"]),
         helper.make_node("Cast", ["i_outer"], ["i_f"], to=F),
         helper.make_node("Add", ["scaled", "i_f"], ["t_next"]),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "inner",
        [value("j", I64, []), value("c_in", BOOL, []), value("t", F, [2, 2])],
        [value("c_out", BOOL, []), value("t_next", F, [2, 2])],
        initializer=[numpy_helper.from_array(np.array(0.9, np.float32), "decay")])
    outer = helper.make_graph(
        [helper.make_node("Identity", ["i"], ["i_outer"]),
         helper.make_node("Loop", ["k", "", "s"], ["s_next"], body=inner),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "outer",
        [value("i", I64, []), value("cond_in", BOOL, []), value("s", F, [2, 2])],
        [value("cond_out", BOOL, []), value("s_next", F, [2, 2])])
    nodes = [helper.make_node("Loop", ["m", "", "s0"], ["s_final"], body=outer)]
    m = model(nodes, [value("m", I64, []), value("k", I64, []),
                      value("s0", F, [2, 2])], [value("s_final", F, [2, 2])])
    return m, {"m": np.array(4, np.int64), "k": np.array(3, np.int64),
               "s0": rand(rng, 2, 2)}, []


def loop_runtime_long(rng):
    """A constant trip count past what unrolls (100000): a loop, not
    100000 copies of the body."""
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "step"], ["s_next"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [value("i", I64, []), value("cond_in", BOOL, []), value("s", F, [4])],
        [value("cond_out", BOOL, []), value("s_next", F, [4])],
        initializer=[numpy_helper.from_array(np.array(0.25, np.float32), "step")])
    nodes = [const("m", np.array(100000, np.int64)),
             helper.make_node("Loop", ["m", "", "s0"], ["s_final"], body=body)]
    m = model(nodes, [value("s0", F, [4])], [value("s_final", F, [4])])
    return m, {"s0": np.zeros(4, np.float32)}, []


# --- Scan -------------------------------------------------------------------

def scan_cumulative(rng, reverse_input=0, reverse_output=0, input_axis=0,
                    output_axis=0):
    """Running sum over the scan axis, with a state and two scan inputs."""
    body = helper.make_graph(
        [helper.make_node("Add", ["state", "a"], ["state_next"]),
         helper.make_node("Mul", ["state_next", "b"], ["out"])],
        "body",
        [value("state", F, [3]), value("a", F, [3]), value("b", F, [3])],
        [value("state_next", F, [3]), value("out", F, [3])])
    nodes = [helper.make_node(
        "Scan", ["init", "xa", "xb"], ["final", "ys"], body=body,
        num_scan_inputs=2, scan_input_axes=[input_axis, input_axis],
        scan_input_directions=[reverse_input, 0],
        scan_output_axes=[output_axis],
        scan_output_directions=[reverse_output])]
    seq_shape = [4, 3] if input_axis in (0, -2) else [3, 4]
    out_shape = [4, 3] if output_axis in (0, -2) else [3, 4]
    m = model(nodes, [value("init", F, [3]), value("xa", F, seq_shape),
                      value("xb", F, seq_shape)],
              [value("final", F, [3]), value("ys", F, out_shape)])
    return m, {"init": rand(rng, 3), "xa": rand(rng, *seq_shape),
               "xb": rand(rng, *seq_shape)}, []


CASES = {
    "if_on_rank": if_on_rank,
    "if_runtime_select": if_runtime_select,
    "if_runtime_select_negative": if_runtime_select_negative,
    "if_nested_in_if": if_nested_in_if,
    "if_guarded_gather_taken": if_guarded_gather,
    "if_guarded_gather_not_taken": lambda rng: if_guarded_gather(rng, False),
    "loop_static_trip_count": loop_static_trip_count,
    "loop_trip_count_input": loop_trip_count_input,
    "loop_while_data_dependent": loop_while_data_dependent,
    "loop_condition_folds": loop_condition_folds,
    "loop_growing_state": loop_growing_state,
    "loop_runtime_trip_count": loop_runtime_trip_count,
    "loop_runtime_trip_count_zero": lambda rng: loop_runtime_trip_count(rng, 0),
    "loop_runtime_trip_count_six": lambda rng: loop_runtime_trip_count(rng, 6),
    "loop_runtime_while": loop_runtime_while,
    "loop_runtime_swap": loop_runtime_swap,
    "loop_runtime_nested": loop_runtime_nested,
    "loop_runtime_long": loop_runtime_long,
    "scan_forward": scan_cumulative,
    "scan_reverse_input_axis1": lambda rng: scan_cumulative(
        rng, reverse_input=1, input_axis=1),
    "scan_reverse_output_axis_minus1": lambda rng: scan_cumulative(
        rng, reverse_output=1, output_axis=-1),
}


# --- Refusals -----------------------------------------------------------------

def refuse_branch_types(rng):
    """A data-dependent condition whose branches give different shapes."""
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])],
                               "then", [], [value("t", F, None)])
    else_g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["e"], keepdims=0)], "else", [],
        [value("e", F, None)])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=then_g,
                              else_branch=else_g)]
    return model(nodes, [value("c", BOOL, []), value("x", F, [2, 2])],
                 [value("y", F, [2, 2])])


def refuse_trip_count_input(rng):
    m, _, _ = loop_trip_count_input(rng)
    return m


def refuse_scan_without_bound(rng):
    """Scan outputs of a loop without a trip count: their length would be
    the run's."""
    m, _, _ = loop_condition_folds(rng)
    m.graph.node[0].attribute[0].t.CopyFrom(
        numpy_helper.from_array(np.array(True), "go"))
    m.graph.input.append(value("go_in", BOOL, []))
    m.graph.node[-1].input[1] = "go_in"
    return m


def refuse_growing_state_in_loop(rng):
    m, _, _ = loop_growing_state(rng)
    m.graph.node[0].attribute[0].t.CopyFrom(
        numpy_helper.from_array(np.array(100000, np.int64), "m"))
    del m.graph.output[:]
    m.graph.output.append(value("y", F, [200002, 3]))
    return m




REFUSALS = {
    "branch_types_differ": (
        refuse_branch_types,
        "node 'If_0' (If): the condition is not known at compile time, and its "
        "branches give output 0 different types"),
    "trip_count_input": (
        refuse_trip_count_input,
        "node 'Loop_0' (Loop): the trip count M is not known at compile time"),
    "scan_without_bound": (
        refuse_scan_without_bound,
        "the loop condition is not known at compile time, and the Loop has no "
        "trip count M to bound it"),
    "growing_state_in_loop": (
        refuse_growing_state_in_loop,
        "node 'Loop_1' (Loop): loop-carried value 0 is tensor<2x3xf32> but the "
        "body gives tensor<4x3xf32>; a loop the run decides keeps each value's "
        "type"),
}


# --- Runs past a loop's bound ----------------------------------------------------

def check_loop_bound(args, name, work_dir):
    """A loop whose condition stays true fails at its bound
    (--max-loop-iterations) with a status naming the Loop node, and the
    session runs again afterwards."""
    import graphc
    m, feeds, _ = loop_runtime_trip_count(np.random.default_rng(0), 5)
    model_path = os.path.join(work_dir, "bound.onnx")
    so_path = os.path.join(work_dir, "bound.so")
    onnx.save(m, model_path)
    proc = graphc_compile(args, model_path, so_path,
                          ["--max-loop-iterations", "4"])
    if proc.returncode != 0:
        raise CheckFailed(f"graphc compile failed:\n{proc.stderr.strip()}")
    with graphc.load(so_path) as compiled:
        try:
            compiled.run(feeds)
        except graphc.GraphcError as error:
            text = str(error)
            if "loop iteration 4 is out of range [0, 4)" not in text or \
                    "'Loop_1'" not in text:
                raise CheckFailed(f"unexpected error: {text}")
        else:
            raise CheckFailed("a run of 5 iterations passed a bound of 4")
        feeds["m"] = np.array(4, np.int64)
        compiled.run(feeds)
    return "refused at run time: " + text[:160]


RUN_FAILURES = {"loop_past_bound": check_loop_bound}


def graphc_compile(args, model_path, so_path, extra):
    command = [args.graphc, "compile", model_path, "-o", so_path,
               "--target", args.target, *extra]
    if args.cuda_emulation:
        command.append("--cuda-emulation")
    return subprocess.run(command, capture_output=True, text=True)


def check_case(args, name, work_dir):
    import graphc
    import onnxruntime as ort
    m, feeds, flags = CASES[name](np.random.default_rng(0))
    model_path = os.path.join(work_dir, f"{name}.onnx")
    so_path = os.path.join(work_dir, f"{name}.so")
    onnx.save(m, model_path)
    proc = graphc_compile(args, model_path, so_path, flags)
    if proc.returncode != 0:
        raise CheckFailed(f"graphc compile failed:\n{proc.stderr.strip()}")
    session = ort.InferenceSession(m.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    expected = session.run(None, feeds)
    bound = {flags[i + 1].split("=")[0] for i, f in enumerate(flags)
             if f == "--const-input"}
    with graphc.load(so_path) as compiled:
        got_names = [o.name for o in compiled.outputs]
        if got_names != names:
            raise CheckFailed(f"outputs {got_names}, onnxruntime has {names}")
        actual = [t.numpy() for t in compiled.run(
            {k: v for k, v in feeds.items() if k not in bound})]
        if args.cuda_emulation and name.startswith(("loop_runtime",
                                                     "if_guarded")):
            check_conditional_node(args, compiled, feeds, bound)
    lines = []
    for out, got, want in zip(names, actual, expected):
        if got.shape != want.shape or got.dtype != want.dtype:
            raise CheckFailed(f"output '{out}': {got.dtype}{list(got.shape)}, "
                              f"onnxruntime gives {want.dtype}{list(want.shape)}")
        error = float(np.max(np.abs(got.astype(np.float64) - want))) if got.size else 0.0
        if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
            raise CheckFailed(f"output '{out}' differs from onnxruntime: "
                              f"max |error| {error:.3g}")
        lines.append(f"{out} {list(got.shape)} max |error| {error:.3g}")
    return "; ".join(lines)


def check_conditional_node(args, compiled, feeds, bound):
    """On the emulator, a run of a loop the run decides is one CUDA graph
    launch whose loop is a WHILE conditional node: the fake driver's trace
    of a second run (the session replays the graph it captured) shows the
    graph launch, the node and its body's replays, and no other launch."""
    import ctypes
    driver = ctypes.CDLL(os.path.abspath(args.cuda_emulation))
    driver.fakecu_trace.restype = ctypes.c_char_p
    compiled.run({k: v for k, v in feeds.items() if k not in bound})
    driver.fakecu_reset()
    compiled.run({k: v for k, v in feeds.items() if k not in bound})
    trace = driver.fakecu_trace().decode().splitlines()
    launches = [line for line in trace if line.startswith("graphLaunch")]
    eager = [line for line in trace if line.startswith("launch")]
    if len(launches) != 1 or eager or \
            not any(line.startswith("replay: while") for line in trace):
        raise CheckFailed("the run is not one CUDA graph with a conditional "
                          "node; the driver's trace:\n" + "\n".join(trace))


def check_refusal(args, name, work_dir):
    make, text = REFUSALS[name]
    model_path = os.path.join(work_dir, f"{name}.onnx")
    onnx.save(make(np.random.default_rng(0)), model_path)
    proc = graphc_compile(args, model_path, os.path.join(work_dir, f"{name}.so"), [])
    lines = proc.stderr.strip().splitlines()
    if proc.returncode != 1 or len(lines) != 1 or \
            not lines[0].startswith("graphc: error: ") or text not in lines[0]:
        raise CheckFailed(f"expected exit 1 and one line with '{text}', got "
                          f"exit {proc.returncode}: {proc.stderr.strip()}")
    return "refused: " + lines[0][:160]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--runtime", help="path of libgraphc_runtime.so")
    parser.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--cuda-emulation", metavar="DRIVER",
                        help="compile with --cuda-emulation and run on this "
                        "fake CUDA driver (libgraphc_fake_cuda.so)")
    parser.add_argument("--only", help="run the cases whose name matches REGEX")
    parser.add_argument("--work-dir")
    args = parser.parse_args()
    args.graphc = os.path.abspath(args.graphc)
    if args.runtime:
        os.environ["GRAPHC_RUNTIME_LIBRARY"] = os.path.abspath(args.runtime)
    if args.cuda_emulation:
        if args.target != "cuda":
            parser.error("--cuda-emulation needs --target cuda")
        driver = os.path.abspath(args.cuda_emulation)
        for variable in ("GRAPHC_CUDA_DRIVER_LIBRARY", "GRAPHC_CUBLASLT_LIBRARY",
                         "GRAPHC_CUDNN_LIBRARY"):
            os.environ[variable] = driver
    import graphc
    checks = ([(n, check_case) for n in CASES] +
              [(n, check_refusal) for n in REFUSALS] +
              list(RUN_FAILURES.items()))
    if args.only:
        checks = [(n, f) for n, f in checks if re.search(args.only, n)]
        if not checks:
            parser.error(f"no case matches '{args.only}'")
    failed = 0
    for name, check in checks:
        with tempfile.TemporaryDirectory(prefix=f"graphc-control-flow-{name}-",
                                         dir=args.work_dir) as work_dir:
            try:
                print(f"ok: {name}: {check(args, name, work_dir)}", flush=True)
            except (CheckFailed, graphc.GraphcError) as error:
                print(f"FAILED: {name}: {error}", flush=True)
                failed += 1
    print(f"{len(checks) - failed} of {len(checks)} checks pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
