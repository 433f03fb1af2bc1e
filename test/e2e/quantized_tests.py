#!/usr/bin/env python3
"""Quantized (QDQ) models against onnxruntime.

The models are what quantizers write: small float models (an MLP like
BERT's FFN, a residual CNN with a classifier like ResNet's, an attention
block whose two products have quantized activations on both sides) passed
through onnxruntime's static QDQ quantizer (int8, per-channel weights,
symmetric activations, and int8 and uint8 activations with zero points;
and its dynamic quantizer, whose MatMulInteger reads activations quantized
at run time),
and an e4m3fn transformer block written the way ModelOpt writes fp8 QDQ.
graphc must match onnxruntime's own run of the quantized model within 5 %
of the output's range, report how many linear ops it computes on 8-bit
values, and on cuda compute them as 8-bit library calls where the libraries
take them: each case names how many cuBLASLt and cuDNN kernels the compile
reports. Run with --target cuda --cuda-emulation to check the
library descriptors on the fake cuBLASLt and cuDNN.
"""
import os
import re
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


def initializer(rng, name, shape, scale=0.3):
    return numpy_helper.from_array(
        (rng.standard_normal(shape) * scale).astype(np.float32), name)


def mlp_model(rng):
    """[2, 8, 64] -> MatMul 64x128 + bias, Relu, MatMul 128x64 + bias."""
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h0"]),
             helper.make_node("Add", ["h0", "b1"], ["h1"]),
             helper.make_node("Relu", ["h1"], ["h2"]),
             helper.make_node("MatMul", ["h2", "w2"], ["y0"]),
             helper.make_node("Add", ["y0", "b2"], ["y"])]
    inits = [initializer(rng, "w1", (64, 128)), initializer(rng, "b1", (128,)),
             initializer(rng, "w2", (128, 64)), initializer(rng, "b2", (64,))]
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", F, [2, 8, 64])],
        [helper.make_tensor_value_info("y", F, [2, 8, 64])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def cnn_model(rng):
    """A stem conv of 3 channels (no int8 library form: C % 4), two 16-channel
    convs with a residual add, global pooling and a Gemm classifier."""
    nodes = [helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1] * 4,
                              strides=[2, 2]),
             helper.make_node("Relu", ["c0"], ["r0"]),
             helper.make_node("Conv", ["r0", "w1", "b1"], ["c1"], pads=[1] * 4),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1] * 4),
             helper.make_node("Add", ["c2", "r0"], ["s"]),
             helper.make_node("Relu", ["s"], ["r2"]),
             helper.make_node("GlobalAveragePool", ["r2"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], transB=1)]
    inits = [initializer(rng, "w0", (16, 3, 3, 3)),
             initializer(rng, "b0", (16,), 0.1),
             initializer(rng, "w1", (16, 16, 3, 3), 0.15),
             initializer(rng, "b1", (16,), 0.1),
             initializer(rng, "w2", (16, 16, 3, 3), 0.15),
             initializer(rng, "b2", (16,), 0.1),
             initializer(rng, "wf", (12, 16)), initializer(rng, "bf", (12,))]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", F, [2, 3, 16, 16])],
        [helper.make_tensor_value_info("y", F, [2, 12])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def attention_model(rng):
    """Projections, then softmax(Q K^T / 8) V over [1, 2, 16, 32] heads."""
    def project(name):
        return [helper.make_node("MatMul", ["x", f"w{name}"], [f"{name}0"]),
                helper.make_node("Reshape", [f"{name}0", "heads"],
                                 [f"{name}1"]),
                helper.make_node("Transpose", [f"{name}1"], [name],
                                 perm=[0, 2, 1, 3])]
    nodes = project("q") + project("k") + project("v") + [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s0"]),
        helper.make_node("Mul", ["s0", "scale"], ["s"]),
        helper.make_node("Softmax", ["s"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["o0"]),
        helper.make_node("Transpose", ["o0"], ["o1"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["o1", "merged"], ["y"])]
    inits = [initializer(rng, f"w{n}", (64, 64), 0.2) for n in "qkv"] + [
        numpy_helper.from_array(np.array([1, 16, 2, 32], np.int64), "heads"),
        numpy_helper.from_array(np.array([1, 16, 64], np.int64), "merged"),
        numpy_helper.from_array(np.array(0.125, np.float32), "scale")]
    graph = helper.make_graph(
        nodes, "attention",
        [helper.make_tensor_value_info("x", F, [1, 16, 64])],
        [helper.make_tensor_value_info("y", F, [1, 16, 64])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def float8_model(rng):
    """A transformer block in ModelOpt's fp8 QDQ: the Q, K, V and output
    projections and both FFN GEMMs read e4m3fn activations and weights with
    per-tensor scales (the weights stored as e4m3fn initializers); attention,
    the residual adds and the ReLU stay float. [2, 16, 64], two heads of 32,
    opset 19."""
    e4m3 = TensorProto.FLOAT8E4M3FN
    inits, nodes = [], []

    def scale_of(name, value):
        inits.append(numpy_helper.from_array(np.array(value, np.float32),
                                             f"{name}_s"))
        inits.append(helper.make_tensor(f"{name}_z", e4m3, [], [0.0]))

    def fp8_linear(x, w, shape, out, x_max):
        weight = rng.standard_normal(shape).astype(np.float32) * 0.15
        w_scale = np.float32(np.abs(weight).max() / 448.0)
        inits.append(helper.make_tensor(w, e4m3, shape,
                                        (weight / w_scale).flatten().tolist()))
        inits.append(numpy_helper.from_array(np.array(w_scale), f"{w}_s"))
        q = f"{out}_in"
        scale_of(q, x_max / 448.0)
        nodes.extend([
            helper.make_node("QuantizeLinear", [x, f"{q}_s", f"{q}_z"],
                             [f"{q}_q"]),
            helper.make_node("DequantizeLinear", [f"{q}_q", f"{q}_s",
                                                  f"{q}_z"], [f"{q}_d"]),
            helper.make_node("DequantizeLinear", [w, f"{w}_s"], [f"{w}_d"]),
            helper.make_node("MatMul", [f"{q}_d", f"{w}_d"], [out])])

    for name in "qkv":
        fp8_linear("x", f"w{name}", (64, 64), f"{name}0", 4.0)
        nodes.extend([
            helper.make_node("Reshape", [f"{name}0", "heads"], [f"{name}1"]),
            helper.make_node("Transpose", [f"{name}1"], [name],
                             perm=[0, 2, 1, 3])])
    nodes.extend([
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s0"]),
        helper.make_node("Mul", ["s0", "scale"], ["s"]),
        helper.make_node("Softmax", ["s"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["o0"]),
        helper.make_node("Transpose", ["o0"], ["o1"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["o1", "merged"], ["o"])])
    fp8_linear("o", "wo", (64, 64), "a", 4.0)
    nodes.append(helper.make_node("Add", ["x", "a"], ["r"]))
    fp8_linear("r", "w1", (64, 128), "h0", 8.0)
    nodes.extend([helper.make_node("Add", ["h0", "b1"], ["h1"]),
                  helper.make_node("Relu", ["h1"], ["h"])])
    fp8_linear("h", "w2", (128, 64), "f", 8.0)
    nodes.append(helper.make_node("Add", ["r", "f"], ["y"]))
    inits.extend([
        initializer(rng, "b1", (128,), 0.1),
        numpy_helper.from_array(np.array([2, 16, 2, 32], np.int64), "heads"),
        numpy_helper.from_array(np.array([2, 16, 64], np.int64), "merged"),
        numpy_helper.from_array(np.array(32 ** -0.5, np.float32), "scale")])
    graph = helper.make_graph(
        nodes, "float8", [helper.make_tensor_value_info("x", F, [2, 16, 64])],
        [helper.make_tensor_value_info("y", F, [2, 16, 64])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


def quantize(model, feeds_for, work_dir, name, activation="int8",
             symmetric=True):
    """onnxruntime's static QDQ quantization of `model`: int8 per-channel
    weights, `activation` ("int8" or "uint8") activations, symmetric or
    with zero points, calibrated on four random batches."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                          QuantType, quantize_static)

    class Reader(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(1)
            self.batches = iter([feeds_for(rng) for _ in range(4)])

        def get_next(self):
            return next(self.batches, None)

    float_path = os.path.join(work_dir, f"{name}_float.onnx")
    quantized_path = os.path.join(work_dir, f"{name}.onnx")
    onnx.save(model, float_path)
    quantize_static(
        float_path, quantized_path, Reader(), quant_format=QuantFormat.QDQ,
        per_channel=True, weight_type=QuantType.QInt8,
        activation_type={"int8": QuantType.QInt8,
                         "uint8": QuantType.QUInt8}[activation],
        extra_options={"ActivationSymmetric": symmetric})
    return quantized_path


def quantize_dynamic(model, work_dir, name):
    """onnxruntime's dynamic quantization of `model`: int8 weights, and
    activations quantized at run time by DynamicQuantizeLinear (uint8, scale
    and zero point computed per run) for MatMulInteger."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    float_path = os.path.join(work_dir, f"{name}_float.onnx")
    quantized_path = os.path.join(work_dir, f"{name}.onnx")
    onnx.save(model, float_path)
    quantize_dynamic(float_path, quantized_path, weight_type=QuantType.QInt8)
    return quantized_path


def random_feeds(shape):
    return lambda rng: {"x": rng.standard_normal(shape).astype(np.float32)}


# name: (float model, input shape, quantizer options ("dynamic": the
#        dynamic quantizer; None: the model is quantized as built),
#        compile flags,
#        linear ops computed on 8-bit values,
#        distinct (cuBLASLt, cuDNN) kernels expected on cuda)
CASES = {
    "mlp_int8": (mlp_model, (2, 8, 64), {}, [], 2, (2, 0)),
    # The stem conv (3 channels) stays a generated kernel; the two 16-channel
    # convolutions are alike: one cuDNN kernel, two steps.
    "cnn_int8": (cnn_model, (2, 3, 16, 16), {}, [], 4, (1, 1)),
    # The three projections share one kernel; K^T and V are copied to the
    # [N, K] layout of the int8 GEMMs.
    "attention_int8": (attention_model, (1, 16, 64), {}, [], 5, (3, 0)),
    # onnxruntime's defaults: int8 activations with zero points, corrected
    # by the weights' column sums.
    "mlp_int8_asymmetric": (mlp_model, (2, 8, 64), {"symmetric": False}, [],
                            2, (2, 0)),
    # uint8 activations shift to int8 (their QuantizeLinear writes int8):
    # int8 GEMMs; after the ReLU the zero point is 0, -128 shifted.
    "mlp_uint8_asymmetric": (mlp_model, (2, 8, 64),
                             {"activation": "uint8", "symmetric": False}, [],
                             2, (2, 0)),
    # Zero points and padding: the 3x3 convolutions pad their input with
    # the stored zero point (an explicit pad, channels last like them).
    "cnn_int8_asymmetric": (cnn_model, (2, 3, 16, 16), {"symmetric": False},
                            [], 4, (1, 1)),
    "cnn_uint8_asymmetric": (cnn_model, (2, 3, 16, 16),
                             {"activation": "uint8", "symmetric": False}, [],
                             4, (1, 1)),
    # Q K^T and P V: both operands have zero points, corrected by their
    # rows' and columns' sums at run time.
    "attention_int8_asymmetric": (attention_model, (1, 16, 64),
                                  {"symmetric": False}, [], 5, (3, 0)),
    "attention_uint8_asymmetric": (attention_model, (1, 16, 64),
                                   {"activation": "uint8", "symmetric": False},
                                   [], 5, (3, 0)),
    # Dynamic quantization: MatMulInteger of DynamicQuantizeLinear's uint8
    # activations, whose zero point comes at run time; int8 GEMMs all the
    # same.
    "mlp_dynamic": (mlp_model, (2, 8, 64), "dynamic", [], 2, (2, 0)),
    "attention_dynamic": (attention_model, (1, 16, 64), "dynamic", [], 3,
                          (1, 0)),
    # --precision fp16 narrows the rest; the accumulators' rescale stays f32.
    "cnn_int8_fp16": (cnn_model, (2, 3, 16, 16), {}, ["--precision", "fp16"],
                      4, (1, 1)),
    # fp8 tensor cores need SM 8.9: with --arch sm_90 the six projections
    # are e4m3 GEMMs (Q, K, V and the output one share a kernel).
    "float8_block_sm90": (float8_model, (2, 16, 64), None,
                          ["--arch", "sm_90"], 6, (3, 0)),
    # With sm_80 among the targets they are generated kernels.
    "float8_block_sm80": (float8_model, (2, 16, 64), None,
                          ["--arch", "sm_80,sm_90"], 6, (0, 0)),
}


def onnxruntime_run(path, feeds, float8):
    import onnxruntime as ort
    ort.set_default_logger_severity(3)
    options = ort.SessionOptions()
    if float8:
        # onnxruntime 1.20's optimizer fuses an e4m3fn DequantizeLinear pair
        # and MatMul into a MatMulIntegerToFloat that refuses e4m3fn inputs:
        # the model runs as its ONNX ops say instead.
        options.graph_optimization_level = \
            ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(path, options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def library_kernels(output):
    """(cuBLASLt, cuDNN) kernel counts of graphc compile's summary line."""
    counts = []
    for library in ("cuBLASLt", "cuDNN"):
        match = re.search(r"(\d+) " + library, output)
        counts.append(int(match.group(1)) if match else 0)
    return tuple(counts)


def check_case(args, name, work_dir):
    import graphc
    make, shape, options, flags, quantized, expected = CASES[name]
    model = make(np.random.default_rng(0))
    feeds_for = random_feeds(shape)
    if options is None:
        model_path = os.path.join(work_dir, f"{name}.onnx")
        onnx.save(model, model_path)
    elif options == "dynamic":
        model_path = quantize_dynamic(model, work_dir, name)
    else:
        model_path = quantize(model, feeds_for, work_dir, name, **options)
    so_path = os.path.join(work_dir, f"{name}.so")
    command = [args.graphc, "compile", model_path, "-o", so_path,
               "--target", args.target, *flags]
    if args.cuda_emulation:
        command.append("--cuda-emulation")
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CheckFailed(f"graphc compile failed:\n{proc.stderr.strip()}")
    summary = re.search(r"quantized: (\d+) linear op", proc.stdout)
    if not summary or int(summary.group(1)) != quantized:
        raise CheckFailed(f"the compile summary does not report {quantized} "
                          f"quantized linear ops:\n{proc.stdout.strip()}")
    if args.target == "cuda":
        libraries = library_kernels(proc.stdout + proc.stderr)
        if libraries != expected:
            raise CheckFailed(f"{libraries[0]} cuBLASLt and {libraries[1]} "
                              f"cuDNN kernels, expected {expected[0]} and "
                              f"{expected[1]}")
    feeds = feeds_for(np.random.default_rng(2))
    want = onnxruntime_run(model_path, feeds, float8=options is None)
    with graphc.load(so_path) as compiled:
        got = compiled.run(feeds)[0].numpy()
    if got.shape != want.shape or got.dtype != want.dtype:
        raise CheckFailed(f"{got.dtype}{list(got.shape)}, onnxruntime gives "
                          f"{want.dtype}{list(want.shape)}")
    span = float(want.max() - want.min())
    worst = float(np.abs(got - want).max())
    if not span > 0 or not worst <= 0.05 * span:
        raise CheckFailed(f"differs from onnxruntime by {worst:.3g}, over 5 % "
                          f"of the output's range {span:.3g}")
    return (f"{list(got.shape)} differs by {worst:.3g}, {worst / span:.2g} "
            f"of the range")


def main():
    # The emulated device is fp8-capable (SM 9.0) like the GPUs these
    # models target; the fake cuBLASLt refuses e4m3fn GEMMs below SM 8.9.
    os.environ.setdefault("FAKECU_COMPUTE_CAPABILITY", "90")
    return run_checks(__doc__, lambda: [(n, check_case) for n in CASES],
                      "graphc-quantized")


if __name__ == "__main__":
    sys.exit(main())
