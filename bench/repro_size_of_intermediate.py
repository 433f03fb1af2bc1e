"""Reproduces a known pad-safety gap: a model that computes with the size of
an intermediate tensor, compiled for a single size of that dim, gives wrong
results on padded runs (the bucket folds the size into a constant). With
two or more sizes the dim is refused instead. Exits 1 while the gap stands.

    .venv/bin/python bench/repro_size_of_intermediate.py [--graphc build/bin/graphc]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--graphc", default=os.path.join(ROOT, "build", "bin", "graphc"))
    args = parser.parse_args()
    # y = ReduceSum(x, axis 1) / Cast(Shape(Relu(x))[1]): the mean over n.
    nodes = [helper.make_node("ReduceSum", ["x", "axis"], ["s"], keepdims=0, name="sum"),
             helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Shape", ["r"], ["shape"], name="shape"),
             helper.make_node("Gather", ["shape", "one"], ["n"], axis=0, name="gather"),
             helper.make_node("Cast", ["n"], ["nf"], to=TensorProto.FLOAT, name="cast"),
             helper.make_node("Div", ["s", "nf"], ["y"], name="div")]
    graph = helper.make_graph(
        nodes, "mean", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, "n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
        [helper.make_tensor("axis", TensorProto.INT64, [1], [1]),
         helper.make_tensor("one", TensorProto.INT64, [], [1])])
    with tempfile.TemporaryDirectory() as work:
        model = os.path.join(work, "mean.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
        so = os.path.join(work, "mean.so")
        subprocess.run([args.graphc, "compile", model, "--target", "cpu", "--buckets", "n=4",
                        "-o", so], check=True)
        np.save(os.path.join(work, "x.npy"), np.ones((3, 3), np.float32))
        subprocess.run([args.graphc, "run", so, os.path.join(work, "x.npy"),
                        "-o", work], check=True, stdout=subprocess.DEVNULL)
        y = np.load(os.path.join(work, "y.npy"))
    print(f"mean of ones over n=3 (padded to 4): {y} (right: 1.0)")
    return 0 if np.allclose(y, 1.0) else 1


if __name__ == "__main__":
    sys.exit(main())
