"""Casts to and from the 8-bit floats through every path graphc has.

    float8_casts.py make MODEL.onnx
    float8_casts.py check MODEL.onnx A.so B.so ...

`make` writes a model casting int8/16/64, uint8/16, float16, bfloat16 and
float64 inputs to each 8-bit float with saturate 0 and 1, and each 8-bit
float (64 of its codes, drawn at random) to integers, bool,
the floats and another 8-bit float. `check` runs the artifacts (cpu with and
without generated loops, the CUDA emulator) on edge values and random ones
and requires the same bits from each, and, for the saturating casts, onnx's
reference results (but from bfloat16, which the reference leaves float32).
(Without saturate, onnx 1.17's reference helpers are
wrong at the top binade; lib/Support/Float8.h says how.) Prints one line.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import _custom_element_types as custom
from onnx import helper

SOURCES = [("i8", T.INT8), ("i16", T.INT16), ("i64", T.INT64), ("u8", T.UINT8),
           ("u16", T.UINT16), ("f16", T.FLOAT16), ("bf16", T.BFLOAT16),
           ("f64", T.DOUBLE)]
FLOAT8 = [("e4m3fn", T.FLOAT8E4M3FN, custom.float8e4m3fn),
          ("e4m3fnuz", T.FLOAT8E4M3FNUZ, custom.float8e4m3fnuz),
          ("e5m2", T.FLOAT8E5M2, custom.float8e5m2),
          ("e5m2fnuz", T.FLOAT8E5M2FNUZ, custom.float8e5m2fnuz)]
TARGETS = [("i32", T.INT32), ("i8", T.INT8), ("b", T.BOOL), ("f16", T.FLOAT16),
           ("bf16", T.BFLOAT16), ("f64", T.DOUBLE), ("e5m2", T.FLOAT8E5M2)]
N = 64


def make(path):
    nodes, inputs, outputs = [], [], []
    for name, dtype in SOURCES:
        inputs.append(helper.make_tensor_value_info(name, dtype, [N]))
        for f8, f8_dtype, _ in FLOAT8:
            for saturate in (0, 1):
                out = f"{name}_{f8}_{saturate}"
                nodes.append(helper.make_node("Cast", [name], [out], to=f8_dtype,
                                              saturate=saturate))
                outputs.append(helper.make_tensor_value_info(out, f8_dtype, [N]))
    for f8, f8_dtype, _ in FLOAT8:
        inputs.append(helper.make_tensor_value_info(f8, f8_dtype, [N]))
        for name, dtype in TARGETS:
            out = f"{f8}_to_{name}"
            nodes.append(helper.make_node("Cast", [f8], [out], to=dtype, saturate=0))
            outputs.append(helper.make_tensor_value_info(out, dtype, [N]))
    graph = helper.make_graph(nodes, "float8_casts", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.save(model, path)


EDGES = [0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 448, 449, 464, 465, 240, 248,
         57344, 61439, 1e6, -1e6, 2.0**-10, 3 * 2.0**-10, 2.0**-17, 1.0625, 1.1875,
         -2.5, 1e-30, 65504, 30000, -30000, 255, -128, 127]


def feeds(model):
    rng = np.random.default_rng(7)
    values = {}
    for value in model.graph.input:
        dtype = value.type.tensor_type.elem_type
        f8 = [f for f in FLOAT8 if f[1] == dtype]
        if f8:
            codes = rng.permutation(256).astype(np.uint8)[:N]
            values[value.name] = codes.view(f8[0][2])
            continue
        floats = np.concatenate([EDGES, rng.normal(0, 300, N - len(EDGES))])
        if dtype == T.BFLOAT16:
            bits = (floats.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            values[value.name] = bits.view(custom.bfloat16)
            continue
        np_dtype = helper.tensor_dtype_to_np_dtype(dtype)
        if np.issubdtype(np_dtype, np.integer):
            info = np.iinfo(np_dtype)
            ints = np.nan_to_num(floats, posinf=info.max, neginf=info.min)
            values[value.name] = np.clip(ints, info.min, info.max).astype(np_dtype)
        else:
            values[value.name] = floats.astype(np_dtype)
    return values


def bits(array):
    array = np.asarray(array)
    if array.dtype.names or array.dtype.kind in "fb":
        return array.view(f"u{array.dtype.itemsize}")
    return array


def check(path, artifacts):
    import graphc
    from onnx.reference import ReferenceEvaluator
    model = onnx.load(path)
    inputs = feeds(model)
    results = []
    for artifact in artifacts:
        with graphc.load(artifact) as loaded:
            outputs = loaded.run(inputs)
            results.append({info.name: tensor.numpy()
                            for info, tensor in zip(loaded.outputs, outputs)})
    names = [value.name for value in model.graph.output]
    problems = []
    for name in names:
        # Out-of-range floats to integers are undefined in ONNX, and the
        # CUDA path converts them as the hardware does.
        if "_to_i" in name:
            continue
        for artifact, result in zip(artifacts[1:], results[1:]):
            if not np.array_equal(bits(results[0][name]), bits(result[name])):
                problems.append(f"{name}: {artifacts[0]} and {artifact} differ")
    with np.errstate(invalid="ignore"):
        reference = dict(zip(names, ReferenceEvaluator(model).run(None, inputs)))
    for name in names:
        # onnx's reference casts bfloat16 to 8-bit floats as float32 values.
        if not name.endswith("_1") or name.startswith("bf16_"):
            continue
        if not np.array_equal(bits(reference[name]), bits(results[0][name])):
            problems.append(f"{name}: differs from onnx's reference")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"float8 casts agree: {len(names)} outputs, {len(artifacts)} artifacts")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3:]))
