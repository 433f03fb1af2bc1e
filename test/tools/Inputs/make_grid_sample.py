"""GridSample with every mode and padding mode over grids holding NaN,
infinities and huge values, for grid-sample-nonfinite.test.

    python make_grid_sample.py OUT.onnx INPUT_DIR   # the model and its inputs
    python make_grid_sample.py --check INPUT_DIR OUT_DIR...

--check compares each OUT_DIR's outputs with the ONNX reference at the
finite grid points, and checks the defined behaviour at the others: zeros
padding samples 0, border and reflection finite values of the input's range.
"""
import itertools
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

MODES = ("linear", "nearest", "cubic")
PADDINGS = ("zeros", "border", "reflection")
CASES = [(m, p, a) for m, p, a in itertools.product(MODES, PADDINGS, (0, 1))]


def name(mode, padding, align):
    return f"{mode}_{padding}_{align}"


def node(mode, padding, align, x="x", grid="grid"):
    return helper.make_node("GridSample", [x, grid], [name(mode, padding, align)],
                            name=name(mode, padding, align), mode=mode,
                            padding_mode=padding, align_corners=align)


def inputs():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (1, 2, 3, 4)).astype(np.float32)
    grid = rng.uniform(-1.6, 1.6, (1, 3, 4, 2)).astype(np.float32)
    special = [np.nan, np.inf, -np.inf, 1e30, -1e30, 3e9]
    for k, value in enumerate(special):
        grid[0, k // 4, k % 4, k % 2] = value
    return x, grid


def make(path, directory):
    x, grid = inputs()
    os.makedirs(directory, exist_ok=True)
    np.save(os.path.join(directory, "x.npy"), x)
    np.save(os.path.join(directory, "grid.npy"), grid)
    graph = helper.make_graph(
        [node(*case) for case in CASES], "grid_sample",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
         helper.make_tensor_value_info("grid", TensorProto.FLOAT, grid.shape)],
        [helper.make_tensor_value_info(name(*case), TensorProto.FLOAT,
                                       [1, 2, 3, 4]) for case in CASES])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    onnx.save(model, path)


def check(directory, outputs):
    from onnx.reference import ReferenceEvaluator
    x, grid = inputs()
    finite = np.isfinite(grid).all(axis=-1) & (np.abs(grid) < 1e3).all(axis=-1)
    clean = np.where(finite[..., None], grid, 0).astype(np.float32)
    for case in CASES:
        mode, padding, align = case
        model = helper.make_model(helper.make_graph(
            [node(*case)], "one",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, None),
             helper.make_tensor_value_info("grid", TensorProto.FLOAT, None)],
            [helper.make_tensor_value_info(name(*case), TensorProto.FLOAT, None)]),
            opset_imports=[helper.make_opsetid("", 22)])
        want = ReferenceEvaluator(model).run(None, {"x": x, "grid": clean})[0]
        for out in outputs:
            got = np.load(os.path.join(out, name(*case) + ".npy"))
            at = f"{out}: {name(*case)}"
            np.testing.assert_allclose(got[:, :, finite[0]], want[:, :, finite[0]],
                                       rtol=1e-5, atol=1e-5, err_msg=at)
            special = got[:, :, ~finite[0]]
            if padding == "zeros":
                # A huge finite coordinate is far outside too.
                assert (special == 0).all(), (at, special)
            else:
                # Cubic taps may overshoot the input's range a little.
                bound = np.abs(x).max() * (1.5 if mode == "cubic" else 1.0)
                assert np.isfinite(special).all(), (at, special)
                assert (np.abs(special) <= bound + 1e-6).all(), (at, special)
    print(f"{len(CASES)} cases agree")


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3:])
    else:
        make(sys.argv[1], sys.argv[2])
