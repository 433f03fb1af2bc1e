"""Writes the seed corpora of the fuzz targets into the build tree.

    python make_seeds.py OUT_DIR --graphc GRAPHC --test-models DIR

OUT_DIR/<target>/ receives small valid inputs (and a few near misses) for
each target; OUT_DIR/importer.dict is a libFuzzer dictionary of the op and
attribute names graphc imports, taken from OpTable.def so it cannot drift.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
F = TensorProto.FLOAT
# Seeds above this size slow every mutation of the importer's corpus.
MAX_SEED_BYTES = 16 * 1024


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "seed", inputs, outputs, list(initializers))
    m = helper.make_model(graph, producer_name="graphc-fuzz",
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def handmade_models():
    """Models for the parts of the importer node tests reach least: weights,
    dynamic dims, shape chains that fold, several opsets."""
    yield "mlp", model(
        [helper.make_node("MatMul", ["x", "w"], ["h"], name="matmul"),
         helper.make_node("Add", ["h", "b"], ["a"], name="bias"),
         helper.make_node("Relu", ["a"], ["y"], name="relu")],
        [value("x", F, ["batch", 4])], [value("y", F, ["batch", 3])],
        [const("w", np.ones((4, 3), np.float32)), const("b", np.zeros(3, np.float32))])
    yield "reshape_chain", model(
        [helper.make_node("Shape", ["x"], ["s"], name="shape"),
         helper.make_node("Gather", ["s", "zero"], ["n"], name="gather", axis=0),
         helper.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsqueeze"),
         helper.make_node("Concat", ["n1", "minus1"], ["target"], name="concat", axis=0),
         helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape")],
        [value("x", F, [2, 3, 4])], [value("y", F, [2, 12])],
        [const("zero", np.array(0, np.int64)), const("axes", np.array([0], np.int64)),
         const("minus1", np.array([-1], np.int64))])
    yield "slice_fold", model(
        [helper.make_node("Slice", ["c", "starts", "ends"], ["s"], name="slice"),
         helper.make_node("Add", ["x", "s"], ["y"], name="add")],
        [value("x", F, [2])], [value("y", F, [2])],
        [const("c", np.arange(6, dtype=np.float32)), const("starts", np.array([1], np.int64)),
         const("ends", np.array([3], np.int64))])
    yield "conv", model(
        [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         helper.make_node("MaxPool", ["c"], ["y"], name="pool", kernel_shape=[2, 2],
                          strides=[2, 2])],
        [value("x", F, [1, 1, 4, 4])], [value("y", F, [1, 2, 2, 2])],
        [const("w", np.ones((2, 1, 3, 3), np.float32))])
    yield "squeeze11", model(
        [helper.make_node("Squeeze", ["x"], ["y"], name="squeeze", axes=[1])],
        [value("x", F, [3, 1])], [value("y", F, [3])], opset=11)
    yield "constant_of_shape", model(
        [helper.make_node("ConstantOfShape", ["shape"], ["y"], name="fill",
                          value=helper.make_tensor("v", F, [1], [2.0]))],
        [], [value("y", F, [2, 2])], [const("shape", np.array([2, 2], np.int64))])
    # Old opsets go through ONNX's checker, shape inference and version
    # converter before the importer sees them.
    yield "opset6_broadcast", model(
        [helper.make_node("Add", ["x", "b"], ["a"], name="add", broadcast=1, axis=1),
         helper.make_node("PRelu", ["a", "slope"], ["y"], name="prelu")],
        [value("x", F, [2, 3, 4])], [value("y", F, [2, 3, 4])],
        [const("b", np.ones(3, np.float32)), const("slope", np.ones(3, np.float32))],
        opset=6)
    yield "opset9_pool", model(
        [helper.make_node("MaxPool", ["x"], ["p"], name="pool", kernel_shape=[2, 2]),
         helper.make_node("Flatten", ["p"], ["f"], name="flatten", axis=1),
         helper.make_node("Gemm", ["f", "w", "c"], ["y"], name="gemm", transB=1)],
        [value("x", F, [1, 1, 3, 3])], [value("y", F, [1, 2])],
        [const("w", np.ones((2, 4), np.float32)), const("c", np.zeros(2, np.float32))],
        opset=9)
    external = onnx.TensorProto()
    external.CopyFrom(const("w", np.ones(4, np.float32)))
    external.ClearField("raw_data")
    external.data_location = TensorProto.EXTERNAL
    external.external_data.add(key="location", value="weights.bin")
    external.external_data.add(key="length", value="16")
    yield "external_data", model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [value("x", F, [4])], [value("y", F, [4])], [external])


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def importer_seeds(out):
    for target in ["importer", "tensor-file"]:
        os.makedirs(os.path.join(out, target), exist_ok=True)
    for name, m in handmade_models():
        write(os.path.join(out, "importer", name + ".onnx"), m.SerializeToString())
    # A spread of the backend node tests: one op family in every few.
    node_dir = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    for index, test in enumerate(sorted(os.listdir(node_dir))):
        path = os.path.join(node_dir, test, "model.onnx")
        if index % 8 == 0 and os.path.getsize(path) <= MAX_SEED_BYTES:
            shutil.copy(path, os.path.join(out, "importer", test + ".onnx"))
        # Their tensor files seed the TensorProto reader.
        if index % 32 == 0:
            for pb in sorted(glob.glob(os.path.join(node_dir, test, "test_data_set_0", "*.pb"))):
                if os.path.getsize(pb) <= MAX_SEED_BYTES:
                    shutil.copy(pb, os.path.join(out, "tensor-file",
                                                 test + "_" + os.path.basename(pb)))


def tensor_file_seeds(out):
    os.makedirs(os.path.join(out, "tensor-file"), exist_ok=True)
    typed = [const("f", np.arange(6, dtype=np.float32).reshape(2, 3)),
             const("i", np.array([1, -2], np.int64)),
             const("b", np.array([True, False])),
             const("h", np.ones(3, np.float16))]
    listed = helper.make_tensor("listed", F, [2], [1.0, 2.0])  # float_data, not raw
    strings = helper.make_tensor("s", TensorProto.STRING, [1], [b"text"])
    for tensor in typed + [listed, strings]:
        write(os.path.join(out, "tensor-file", tensor.name + ".pb"),
              tensor.SerializeToString())


def npy_seeds(out):
    arrays = {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
        "f64_scalar": np.float64(1.5),
        "i64": np.array([1, -2, 3], np.int64),
        "u8_empty": np.zeros((0, 4), np.uint8),
        "bool": np.array([True, False]),
        "f16": np.ones((2, 2), np.float16),
        "bf16": np.zeros(2, dtype="V2"),
        "fortran": np.asfortranarray(np.ones((2, 3), np.float32)),
        "big_endian": np.ones(2, ">f4"),
    }
    for name, array in arrays.items():
        path = os.path.join(out, "npy", name + ".npy")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        np.save(path, array)
    for version in [(2, 0), (3, 0)]:
        with open(os.path.join(out, "npy", f"v{version[0]}.npy"), "wb") as f:
            np.lib.format.write_array(f, np.ones(3, np.int32), version=version)


def artifact_seeds(out, graphc, test_models):
    os.makedirs(os.path.join(out, "artifact"), exist_ok=True)
    libraries = sorted(glob.glob(os.path.join(test_models, "*.so")))
    with tempfile.TemporaryDirectory() as work:
        # A compiled cpu model, the artifact the loader sees most.
        onnx_path = os.path.join(work, "relu.onnx")
        onnx.save(model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                        [value("x", F, [4])], [value("y", F, [4])]), onnx_path)
        so_path = os.path.join(work, "relu.so")
        subprocess.run([graphc, "compile", onnx_path, "-o", so_path, "--target", "cpu"],
                       check=True)
        libraries.append(so_path)
        for path in libraries:
            with open(path, "rb") as f:
                data = f.read()
            name = os.path.splitext(os.path.basename(path))[0]
            write(os.path.join(out, "artifact", name + ".so"), data)
            # The headers alone: where every check of the loader looks.
            write(os.path.join(out, "artifact", name + ".head"), data[:4096])


def descriptor_seeds(out):
    # The target builds a descriptor from any bytes; a few fixed patterns
    # (all zeros, all ones, a ramp) start it on short and long tables.
    for name, data in [("zeros", bytes(256)), ("ones", b"\xff" * 256),
                       ("ramp", bytes(range(256)))]:
        write(os.path.join(out, "descriptor", name), data)


def importer_dictionary(out):
    table = open(os.path.join(ROOT, "lib", "Import", "ONNX", "OpTable.def")).read()
    ops = re.findall(r"^GRAPHC_ONNX_OP\((\w+),", table, re.M)
    attributes = ["axis", "axes", "perm", "pads", "strides", "kernel_shape",
                  "dilations", "group", "keepdims", "value", "to", "alpha",
                  "beta", "epsilon", "mode", "transA", "transB", "starts",
                  "ends", "location", "offset", "length", "ai.onnx"]
    with open(os.path.join(out, "importer.dict"), "w") as f:
        for word in ops + attributes:
            f.write(f'"{word}"\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--test-models", required=True,
                        help="folder of the runtime tests' hand-written model .so files")
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    importer_seeds(args.out)
    tensor_file_seeds(args.out)
    npy_seeds(args.out)
    descriptor_seeds(args.out)
    importer_dictionary(args.out)
    artifact_seeds(args.out, args.graphc, args.test_models)
    for target in sorted(os.listdir(args.out)):
        folder = os.path.join(args.out, target)
        if os.path.isdir(folder):
            print(f"{target}: {len(os.listdir(folder))} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
