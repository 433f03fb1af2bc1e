"""ONNX LSTM, GRU and RNN against onnxruntime: one-node models covering what
the ONNX node tests do not (both directions, layout 1, unequal
sequence_lens, peepholes, clip, input_forget, linear_before_reset,
non-default activations with alpha and beta, initial states, a subset of
the outputs, weights as graph inputs, a dynamic batch), and the refusals
(dynamic or too long sequence, unknown activation).

    python recurrent_tests.py --graphc build/bin/graphc \
        [--runtime build/lib/libgraphc_runtime.so] [--target cpu|cuda] \
        [--cuda-emulation DRIVER] [--only REGEX] [--work-dir DIR]

Each model is compiled by graphc, run through the Python runtime on seeded
random inputs and compared with onnxruntime (CPU) within 1e-5 (relative and
absolute).
"""
import argparse
import json
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
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


class CheckFailed(Exception):
    pass


def recurrent_model(op, *, steps=5, batch=3, inputs=4, hidden=6,
                    direction="forward", layout=0, bias=True, seq_lens=None,
                    initial_h=False, initial_c=False, peepholes=False,
                    outputs=("Y", "Y_h", "Y_c"), weights_as_inputs=False,
                    batch_dim=None, steps_dim=None, seed=0, **attributes):
    """A one-node model; returns (model, feeds). seq_lens, when given, is a
    graph input fed with those lengths."""
    rng = np.random.default_rng(seed)
    dirs = 2 if direction == "bidirectional" else 1
    gates = GATES[op]
    batch_shape = batch_dim or batch
    steps_shape = steps_dim or steps
    x_shape = [steps_shape, batch_shape, inputs] if layout == 0 else \
        [batch_shape, steps_shape, inputs]
    state_shape = [dirs, batch, hidden] if layout == 0 else [batch, dirs, hidden]
    declared_state = [dirs, batch_shape, hidden] if layout == 0 else \
        [batch_shape, dirs, hidden]
    value = lambda *shape: rng.uniform(-1, 1, shape).astype(np.float32)
    tensors = {
        "W": value(dirs, gates * hidden, inputs),
        "R": value(dirs, gates * hidden, hidden),
    }
    if bias:
        tensors["B"] = value(dirs, 2 * gates * hidden)
    feeds = {"X": value(steps, batch, inputs) if layout == 0 else
             value(batch, steps, inputs)}
    graph_inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, x_shape)]
    if seq_lens is not None:
        feeds["sequence_lens"] = np.array(seq_lens, dtype=np.int32)
        graph_inputs.append(helper.make_tensor_value_info(
            "sequence_lens", TensorProto.INT32, [batch_shape]))
    if initial_h:
        feeds["initial_h"] = value(*state_shape)
        graph_inputs.append(helper.make_tensor_value_info(
            "initial_h", TensorProto.FLOAT, declared_state))
    if initial_c:
        feeds["initial_c"] = value(*state_shape)
        graph_inputs.append(helper.make_tensor_value_info(
            "initial_c", TensorProto.FLOAT, declared_state))
    if peepholes:
        tensors["P"] = value(dirs, 3 * hidden)
    initializers = []
    for name, array in tensors.items():
        if weights_as_inputs:
            feeds[name] = array
            graph_inputs.append(helper.make_tensor_value_info(
                name, TensorProto.FLOAT, list(array.shape)))
        else:
            initializers.append(numpy_helper.from_array(array, name))
    slots = ["X", "W", "R", "B", "sequence_lens", "initial_h"]
    if op == "LSTM":
        slots += ["initial_c", "P"]
    node_inputs = [s if s in tensors or s in feeds else "" for s in slots]
    while node_inputs and not node_inputs[-1]:
        node_inputs.pop()
    names = ["Y", "Y_h", "Y_c"][:2 if op != "LSTM" else 3]
    node_outputs = [n if n in outputs else "" for n in names]
    while node_outputs and not node_outputs[-1]:
        node_outputs.pop()
    if layout:
        attributes["layout"] = layout
    node = helper.make_node(op, node_inputs, node_outputs, name=f"{op.lower()}_node",
                            hidden_size=hidden, direction=direction, **attributes)
    output_shapes = {
        "Y": [steps_shape, dirs, batch_shape, hidden] if layout == 0 else
             [batch_shape, steps_shape, dirs, hidden],
        "Y_h": declared_state, "Y_c": declared_state}
    graph_outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, output_shapes[n])
                     for n in node_outputs if n]
    graph = helper.make_graph([node], f"{op.lower()}_test", graph_inputs,
                              graph_outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, feeds


# name -> (op, keyword arguments of recurrent_model, graphc compile flags)
CASES = {
    "lstm_bidirectional_peepholes_states": (
        "LSTM", dict(direction="bidirectional", initial_h=True, initial_c=True,
                     peepholes=True), []),
    "lstm_layout1_seq_lens": (
        "LSTM", dict(layout=1, seq_lens=[5, 2, 4], initial_h=True,
                     initial_c=True, peepholes=True), []),
    "lstm_bidirectional_seq_lens_empty_row": (
        "LSTM", dict(direction="bidirectional", seq_lens=[3, 0, 5],
                     initial_h=True, initial_c=True), []),
    "lstm_reverse_clip_activations_input_forget": (
        "LSTM", dict(direction="reverse", clip=0.7, input_forget=1,
                     activations=["HardSigmoid", "LeakyRelu", "ScaledTanh"],
                     activation_alpha=[0.3, 0.05, 1.2],
                     activation_beta=[0.4, 0.8]), []),
    "lstm_bidirectional_activations_both_sets": (
        "LSTM", dict(direction="bidirectional",
                     activations=["Sigmoid", "Softsign", "Tanh",
                                  "HardSigmoid", "Elu", "Softplus"],
                     activation_alpha=[0.25, 0.9], activation_beta=[0.45]), []),
    "lstm_only_y_h_reverse_seq_lens": (
        "LSTM", dict(direction="reverse", seq_lens=[1, 5, 3],
                     outputs=("Y_h",)), []),
    "lstm_only_y_c_no_bias": (
        "LSTM", dict(bias=False, initial_c=True, outputs=("Y_c",)), []),
    "lstm_weights_as_inputs": (
        "LSTM", dict(direction="bidirectional", weights_as_inputs=True,
                     peepholes=True, initial_h=True), []),
    "lstm_dynamic_batch": (
        "LSTM", dict(batch_dim="batch", layout=1, seq_lens=[4, 5, 1],
                     initial_h=True, initial_c=True), ["--dim=batch=3"]),
    # 512 steps in both directions: the most graphc unrolls.
    "lstm_bidirectional_1024_steps": (
        "LSTM", dict(direction="bidirectional", steps=512, batch=2, inputs=8,
                     hidden=16, seq_lens=[512, 300], initial_h=True,
                     initial_c=True), []),
    "gru_bidirectional_seq_lens_states": (
        "GRU", dict(direction="bidirectional", seq_lens=[5, 3, 1],
                    initial_h=True), []),
    "gru_linear_before_reset_layout1_bidirectional": (
        "GRU", dict(direction="bidirectional", layout=1, linear_before_reset=1,
                    initial_h=True, seq_lens=[2, 5, 4]), []),
    "gru_linear_before_reset_no_initial": (
        "GRU", dict(linear_before_reset=1, direction="reverse"), []),
    "gru_clip_activations": (
        "GRU", dict(clip=0.6, activations=["HardSigmoid", "Softsign"],
                    activation_alpha=[0.3], activation_beta=[0.55],
                    initial_h=True), []),
    "gru_only_y_h_no_bias": (
        "GRU", dict(bias=False, outputs=("Y_h",), direction="bidirectional"), []),
    "gru_weights_as_inputs_linear_before_reset": (
        "GRU", dict(weights_as_inputs=True, linear_before_reset=1,
                    initial_h=True), []),
    "rnn_bidirectional_layout1_seq_lens": (
        "RNN", dict(direction="bidirectional", layout=1, seq_lens=[5, 1, 3],
                    initial_h=True), []),
    # onnxruntime's RNN reads activation_alpha/beta by direction (its LSTM
    # and GRU, and graphc, in the order of the functions that take them):
    # the same values where every function takes both.
    "rnn_activations": (
        "RNN", dict(direction="bidirectional",
                    activations=["Affine", "ScaledTanh"],
                    activation_alpha=[0.6, 0.9], activation_beta=[0.2, 0.7]), []),
    "rnn_thresholded_relu_two_default_activations": (
        "RNN", dict(activations=["ThresholdedRelu", "Tanh"],
                    activation_alpha=[0.1], initial_h=True), []),
    "rnn_relu_clip_reverse": (
        "RNN", dict(direction="reverse", activations=["Relu"], clip=0.8,
                    initial_h=True), []),
    "rnn_leaky_relu_only_y": (
        "RNN", dict(activations=["LeakyRelu"], activation_alpha=[0.05],
                    outputs=("Y",), steps=9), []),
}

# name -> (op, keyword arguments, text graphc's one-line error must contain)
REFUSALS = {
    "dynamic_sequence_length": (
        "LSTM", dict(steps_dim="time"),
        "node 'lstm_node' (LSTM): unsupported: the sequence length (dim 0 of X)"
        " is dynamic"),
    "too_many_steps": (
        "GRU", dict(steps=600, direction="bidirectional", batch=1, inputs=2,
                    hidden=2),
        "node 'gru_node' (GRU): unsupported: 600 time steps x 2 direction(s) "
        "exceed the 1024 steps"),
    "wrong_activation_count": (
        "LSTM", dict(activations=["Sigmoid", "Tanh"]),
        "node 'lstm_node' (LSTM): attribute 'activations' has 2 entries; LSTM "
        "with 1 direction(s) takes 3"),
    "unknown_activation": (
        "RNN", dict(activations=["Swish"]),
        "node 'rnn_node' (RNN): unsupported activation 'swish'"),
}


def graphc_compile(args, model_path, so_path, extra):
    command = [args.graphc, "compile", model_path, "-o", so_path,
               "--target", args.target, *extra]
    if args.cuda_emulation:
        command.append("--cuda-emulation")
    return subprocess.run(command, capture_output=True, text=True)


def run_onnxruntime(op, kwargs, model, feeds):
    """onnxruntime's outputs and their names. onnxruntime has no layout 1:
    it runs the layout-0 model on the same weights, with the inputs and
    outputs transposed."""
    import onnxruntime as ort
    if kwargs.get("layout", 0) == 1:
        reference, _ = recurrent_model(op, **{**kwargs, "layout": 0})
        del reference.graph.initializer[:]
        reference.graph.initializer.extend(model.graph.initializer)
        feeds = {name: value.transpose(1, 0, 2) if name in ("X", "initial_h", "initial_c")
                 else value for name, value in feeds.items()}
        model = reference
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    outputs = session.run(None, feeds)
    if kwargs.get("layout", 0) == 1:
        outputs = [value.transpose(2, 0, 1, 3) if value.ndim == 4 else
                   value.transpose(1, 0, 2) for value in outputs]
    return outputs, names


def check_case(args, name, work_dir):
    op, kwargs, extra = CASES[name]
    import graphc
    model, feeds = recurrent_model(op, **kwargs)
    model_path = os.path.join(work_dir, f"{name}.onnx")
    so_path = os.path.join(work_dir, f"{name}.so")
    onnx.save(model, model_path)
    proc = graphc_compile(args, model_path, so_path, extra)
    if proc.returncode != 0:
        raise CheckFailed(f"graphc compile failed:\n{proc.stderr.strip()}")
    # The generated ops carry the node's name, so inspect names each step.
    inspect = subprocess.run([args.graphc, "inspect", "--json", so_path],
                             capture_output=True, text=True, check=True)
    direction = "reverse" if kwargs.get("direction") == "reverse" else "forward"
    step = f"{op.lower()}_node/{direction}/t0"
    nodes = [k["onnx_nodes"] or "" for k in json.loads(inspect.stdout)["kernels"]]
    if not any(step in n.split(",") for n in nodes):
        raise CheckFailed(f"no kernel names '{step}': {nodes}")
    expected, names = run_onnxruntime(op, kwargs, model, feeds)
    with graphc.load(so_path) as compiled:
        got_names = [o.name for o in compiled.outputs]
        if got_names != names:
            raise CheckFailed(f"outputs {got_names}, onnxruntime has {names}")
        actual = [t.numpy() for t in compiled.run(feeds)]
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


def check_refusal(args, name, work_dir):
    op, kwargs, text = REFUSALS[name]
    model, _ = recurrent_model(op, **kwargs)
    model_path = os.path.join(work_dir, f"{name}.onnx")
    onnx.save(model, model_path)
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
        # The fake driver is the fake cuBLASLt and cuDNN too.
        for variable in ("GRAPHC_CUDA_DRIVER_LIBRARY", "GRAPHC_CUBLASLT_LIBRARY",
                         "GRAPHC_CUDNN_LIBRARY"):
            os.environ[variable] = driver
    import graphc
    checks = [(n, check_case) for n in CASES] + [(n, check_refusal) for n in REFUSALS]
    if args.only:
        checks = [(n, f) for n, f in checks if re.search(args.only, n)]
        if not checks:
            parser.error(f"no case matches '{args.only}'")
    failed = 0
    for name, check in checks:
        with tempfile.TemporaryDirectory(prefix=f"graphc-recurrent-{name}-",
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
