"""Runs a compiled example model through the graphc Python runtime on random
inputs and compares every output with onnxruntime."""
import argparse
import os
import sys

import numpy as np
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("onnx_model")
    parser.add_argument("compiled")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--runtime", help="path of libgraphc_runtime.so")
    args = parser.parse_args()
    if args.runtime:
        os.environ["GRAPHC_RUNTIME_LIBRARY"] = args.runtime
    import graphc

    reference = ort.InferenceSession(args.onnx_model, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    feeds = {}
    for info in reference.get_inputs():
        shape = [args.batch if not isinstance(d, int) else d for d in info.shape]
        feeds[info.name] = rng.standard_normal(shape).astype(np.float32)
    expected = reference.run(None, feeds)
    with graphc.load(args.compiled) as model:
        actual = [tensor.numpy() for tensor in model.run(feeds)]
    names = [o.name for o in reference.get_outputs()]
    worst = 0.0
    for name, want in zip(names, expected):
        got = actual[names.index(name)]
        err = float(np.max(np.abs(got.astype(np.float64) - want)))
        worst = max(worst, err)
        print(f"{name}: shape {list(got.shape)}, max |graphc - onnxruntime| = {err:.3g}")
    if worst > 1e-4:
        print("FAILED: outputs differ from onnxruntime")
        return 1
    print("ok: outputs match onnxruntime")
    return 0


if __name__ == "__main__":
    sys.exit(main())
