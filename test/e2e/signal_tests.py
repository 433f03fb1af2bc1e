"""ONNX DFT, STFT and MelWeightMatrix against onnx's reference evaluator:
one-node models covering what the ONNX node tests do not (float16 and
float64, dft_length padding and truncation, the inverse of a truncated
complex signal, onesided, an axis counted from the back or the batch axis,
STFT with frame_length longer than the window and complex two-sided
frames, MelWeightMatrix as float16), and the refusals.

    python signal_tests.py --graphc build/bin/graphc \\
        [--runtime build/lib/libgraphc_runtime.so] [--target cpu|cuda] \\
        [--cuda-emulation DRIVER] [--only REGEX] [--work-dir DIR]

Each model is compiled by graphc, run through the Python runtime on seeded
random inputs and compared with onnx.reference, relative to the largest
expected magnitude (float16 2e-2, float32 1e-5, float64 1e-9).
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
from onnx.reference import ReferenceEvaluator

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))

TOLERANCE = {np.float16: 2e-2, np.float32: 1e-5, np.float64: 1e-9}
ELEMENT = {np.float16: TensorProto.FLOAT16, np.float32: TensorProto.FLOAT,
           np.float64: TensorProto.DOUBLE}


class CheckFailed(Exception):
    pass


def scalar(name, value, dtype=np.int64):
    return numpy_helper.from_array(np.array(value, dtype), name)


def one_node(node, feeds, initializers=(), opset=20):
    inputs = [helper.make_tensor_value_info(name, ELEMENT[value.dtype.type], value.shape)
              for name, value in feeds.items()]
    output = helper.make_tensor_value_info(node.output[0], TensorProto.UNDEFINED, None)
    graph = helper.make_graph([node], "signal", inputs, [output], list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 9
    return model, feeds


def dft_cases(rng):
    cases = {}
    for dtype in (np.float16, np.float32, np.float64):
        suffix = dtype.__name__
        x = rng.standard_normal((2, 7, 3, 2)).astype(dtype)
        cases[f"dft_pad_onesided_{suffix}"] = one_node(
            helper.make_node("DFT", ["x", "n", "axis"], ["y"], onesided=1), {"x": x},
            [scalar("n", 9), scalar("axis", 1)])
        cases[f"dft17_truncate_inverse_{suffix}"] = one_node(
            helper.make_node("DFT", ["x", "n"], ["y"], inverse=1, axis=2), {"x": x},
            [scalar("n", 4, np.int32)], opset=17)
        real = rng.standard_normal((3, 11, 1)).astype(dtype)
        cases[f"dft_batch_axis_real_{suffix}"] = one_node(
            helper.make_node("DFT", ["x", "", "axis"], ["y"]), {"x": real},
            [scalar("axis", -3)])
    # Large samples: the small bins must not drown in the rounding of the sum.
    ramp = np.arange(64, dtype=np.float32).reshape(1, 64, 1) * 100
    cases["dft_long_ramp"] = one_node(helper.make_node("DFT", ["x"], ["y"]), {"x": ramp})
    return cases


def stft_cases(rng):
    signal = rng.standard_normal((2, 50, 1)).astype(np.float32)
    complex_signal = rng.standard_normal((1, 40, 2)).astype(np.float32)
    window = np.hanning(10).astype(np.float32)
    return {
        "stft_frame_length_over_window": one_node(
            helper.make_node("STFT", ["s", "step", "w", "length"], ["y"]), {"s": signal},
            [scalar("step", 4), numpy_helper.from_array(window, "w"), scalar("length", 12)],
            opset=17),
        "stft_complex_two_sided": one_node(
            helper.make_node("STFT", ["s", "step", "", "length"], ["y"], onesided=0),
            {"s": complex_signal}, [scalar("step", 5), scalar("length", 8)], opset=17),
    }


def mel_cases():
    names = ["bins", "n", "rate", "low", "high"]
    values = [scalar("bins", 10, np.int32), scalar("n", 512), scalar("rate", 16000),
              scalar("low", 20.0, np.float32), scalar("high", 7600.0, np.float32)]
    node = helper.make_node("MelWeightMatrix", names, ["y"],
                            output_datatype=TensorProto.FLOAT16)
    graph = helper.make_graph([node], "mel", [], [helper.make_tensor_value_info(
        "y", TensorProto.FLOAT16, None)], values)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    return {"mel_weight_matrix_f16": (model, {})}


CASES = {}
_rng = np.random.default_rng(7)
CASES.update(dft_cases(_rng))
CASES.update(stft_cases(_rng))
CASES.update(mel_cases())


def _refusal(node, feeds, initializers, opset, message):
    model, _ = one_node(node, feeds, initializers, opset)
    return model, message


_x = np.zeros((2, 8, 1), np.float32)
REFUSALS = {
    "refuse_dft_complex_axis": _refusal(
        helper.make_node("DFT", ["x", "", "axis"], ["y"]), {"x": _x}, [scalar("axis", 2)],
        20, "axis may not be the last (complex) dim"),
    "refuse_dft_zero_length": _refusal(
        helper.make_node("DFT", ["x", "n"], ["y"]), {"x": _x}, [scalar("n", 0)], 20,
        "dft_length must be positive"),
    "refuse_stft_frame_longer_than_signal": _refusal(
        helper.make_node("STFT", ["x", "step", "", "length"], ["y"]), {"x": _x},
        [scalar("step", 1), scalar("length", 9)], 17, "must be in [1, the signal length 8]"),
}


def compile_model(args, model, work_dir, name):
    path = os.path.join(work_dir, f"{name}.onnx")
    onnx.save(model, path)
    so = os.path.join(work_dir, f"{name}.so")
    command = [args.graphc, "compile", path, "-o", so, "--target", args.target]
    if args.cuda_emulation:
        command.append("--cuda-emulation")
    proc = subprocess.run(command, capture_output=True, text=True)
    return so, proc


def check_case(args, name, work_dir):
    import graphc
    model, feeds = CASES[name]
    want = ReferenceEvaluator(model).run(None, feeds)[0]
    so, proc = compile_model(args, model, work_dir, name)
    if proc.returncode != 0:
        raise CheckFailed(f"compile failed: {proc.stderr.strip()}")
    with graphc.load(so) as loaded:
        got = loaded.run(feeds)[0].numpy()
    if got.shape != want.shape or got.dtype != want.dtype:
        raise CheckFailed(f"got {got.dtype}{list(got.shape)}, "
                          f"expected {want.dtype}{list(want.shape)}")
    scale = max(1.0, float(np.abs(want.astype(np.float64)).max()))
    error = float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max()) / scale
    if error > TOLERANCE[want.dtype.type]:
        raise CheckFailed(f"relative error {error:.3g}")
    return f"{want.dtype}{list(want.shape)}, relative error {error:.2g}"


def check_refusal(args, name, work_dir):
    model, message = REFUSALS[name]
    _, proc = compile_model(args, model, work_dir, name)
    lines = proc.stderr.strip().splitlines()
    if proc.returncode != 1 or len(lines) != 1 or not lines[0].startswith("graphc: error:") \
            or message not in lines[0]:
        raise CheckFailed(f"expected one error line with '{message}', got "
                          f"exit {proc.returncode}: {proc.stderr.strip()}")
    return "refused"


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
        os.environ["GRAPHC_CUDA_DRIVER_LIBRARY"] = os.path.abspath(args.cuda_emulation)
    import graphc
    checks = [(n, check_case) for n in CASES] + [(n, check_refusal) for n in REFUSALS]
    if args.only:
        checks = [(n, f) for n, f in checks if re.search(args.only, n)]
        if not checks:
            parser.error(f"no case matches '{args.only}'")
    failed = 0
    for name, check in checks:
        with tempfile.TemporaryDirectory(prefix=f"graphc-signal-{name}-",
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
