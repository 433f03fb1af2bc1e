"""GridSample with every mode and padding mode over grids holding NaN,
infinities and huge values, for grid-sample-nonfinite.test.

    python make_grid_sample.py OUT.onnx INPUT_DIR   # the model and its inputs
    python make_grid_sample.py --check INPUT_DIR OUT_DIR...

--check compares each OUT_DIR's outputs with the ONNX reference at the
finite grid points, and checks graphc's definition at the others (which
the reference leaves undefined): linear and cubic give NaN for a NaN
coordinate and for an infinity that border padding does not clamp, as
onnxruntime does; otherwise zeros padding samples 0, the others values of
the input.
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
# Volumetric: every padding of cubic, the widest tap pattern.
CASES_3D = [("cubic", p, a) for p, a in zip(PADDINGS, (0, 1, 0))]


def name(mode, padding, align, volumetric=False):
    return f"{mode}_{padding}_{align}" + ("_3d" if volumetric else "")


def node(mode, padding, align, volumetric=False):
    x, grid = ("x3", "grid3") if volumetric else ("x", "grid")
    return helper.make_node("GridSample", [x, grid],
                            [name(mode, padding, align, volumetric)],
                            name=name(mode, padding, align, volumetric),
                            mode=mode, padding_mode=padding, align_corners=align)


def with_specials(grid):
    special = [np.nan, np.inf, -np.inf, 1e30, -1e30, 3e9]
    flat = grid.reshape(-1, grid.shape[-1])
    for k, value in enumerate(special):
        flat[k, k % grid.shape[-1]] = value
    return grid


def inputs():
    """x, grid (4-D) and x3, grid3 (5-D)."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (1, 2, 3, 4)).astype(np.float32)
    grid = with_specials(rng.uniform(-1.6, 1.6, (1, 3, 4, 2)).astype(np.float32))
    x3 = rng.uniform(-1, 1, (1, 2, 3, 4, 5)).astype(np.float32)
    grid3 = with_specials(rng.uniform(-1.6, 1.6, (1, 2, 3, 4, 3)).astype(np.float32))
    return x, grid, x3, grid3


def make(path, directory):
    values = dict(zip(("x", "grid", "x3", "grid3"), inputs()))
    os.makedirs(directory, exist_ok=True)
    for key, value in values.items():
        np.save(os.path.join(directory, key + ".npy"), value)
    graph = helper.make_graph(
        [node(*case) for case in CASES] + [node(*case, True) for case in CASES_3D],
        "grid_sample",
        [helper.make_tensor_value_info(key, TensorProto.FLOAT, value.shape)
         for key, value in values.items()],
        [helper.make_tensor_value_info(name(*case), TensorProto.FLOAT,
                                       [1, 2, 3, 4]) for case in CASES] +
        [helper.make_tensor_value_info(name(*case, True), TensorProto.FLOAT,
                                       [1, 2, 2, 3, 4]) for case in CASES_3D])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    onnx.save(model, path)


def check(directory, outputs):
    from onnx.reference import ReferenceEvaluator
    x, grid, x3, grid3 = inputs()
    cases = [(case, False) for case in CASES] + [(case, True) for case in CASES_3D]
    for case, volumetric in cases:
        mode, padding, align = case
        data, points = (x3, grid3) if volumetric else (x, grid)
        finite = (np.isfinite(points).all(axis=-1) &
                  (np.abs(points) < 1e3).all(axis=-1))[0]
        clean = np.where(np.isfinite(points) & (np.abs(points) < 1e3), points,
                         0).astype(np.float32)
        out_name = name(*case, volumetric)
        model = helper.make_model(helper.make_graph(
            [helper.make_node("GridSample", ["x", "grid"], [out_name], mode=mode,
                              padding_mode=padding, align_corners=align)], "one",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, None),
             helper.make_tensor_value_info("grid", TensorProto.FLOAT, None)],
            [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, None)]),
            opset_imports=[helper.make_opsetid("", 22)])
        want = ReferenceEvaluator(model).run(None, {"x": data, "grid": clean})[0]
        for out in outputs:
            got = np.load(os.path.join(out, out_name + ".npy"))
            at = f"{out}: {out_name}"
            np.testing.assert_allclose(got[:, :, finite], want[:, :, finite],
                                       rtol=1e-5, atol=1e-5, err_msg=at)
            assert (~finite).any(), at
            nan = np.isnan(points).any(axis=-1)[0]
            inf = np.isinf(points).any(axis=-1)[0]
            # Linear and cubic: NaN for a NaN coordinate, and for an
            # infinity that border padding does not clamp (onnxruntime).
            if mode == "nearest":
                undefined = np.zeros_like(nan)
            elif padding == "border":
                undefined = nan
            else:
                undefined = nan | inf
            assert np.isnan(got[:, :, undefined]).all(), at
            special = got[:, :, ~finite & ~undefined]
            if padding == "zeros":
                # Far outside: zeros.
                assert (special == 0).all(), (at, special)
            else:
                # Values of the input (cubic taps may overshoot its range).
                bound = np.abs(data).max() * (2.0 if mode == "cubic" else 1.0)
                assert np.isfinite(special).all(), (at, special)
                assert (np.abs(special) <= bound + 1e-6).all(), (at, special)
    print(f"{len(cases)} cases agree")


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3:])
    else:
        make(sys.argv[1], sys.argv[2])
