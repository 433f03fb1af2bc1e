"""RoiAlign against onnxruntime: both modes ("avg" and onnxruntime's "max"),
both coordinate transformations (opset 16's "half_pixel", and opset 10's
"output_half_pixel"), adaptive sampling (sampling_ratio 0) and a fixed 2,
boxes partly or wholly outside the image, float64, --precision fp16 (the
boxes stay float32), a number of boxes the run decides (padded to a bucket);
and a batch index out of range, which fails the run with a status naming
the node.

    python roi_align_tests.py --graphc build/bin/graphc \
        [--runtime build/lib/libgraphc_runtime.so] [--target cpu|cuda] \
        [--cuda-emulation DRIVER] [--only REGEX] [--work-dir DIR]

Each model is compiled by graphc, run through the Python runtime and
compared with onnxruntime (CPU) on the same inputs.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
sys.path.insert(0, HERE)

from e2e_driver import CheckFailed, run_checks  # noqa: E402

F = TensorProto.FLOAT
D = TensorProto.DOUBLE
I64 = TensorProto.INT64




def roi_align_model(opset, boxes, elem=F, x_shape=(2, 3, 10, 12), **attrs):
    """`boxes` is a count, or a dim name."""
    node = helper.make_node("RoiAlign", ["x", "rois", "batch_indices"], ["y"],
                            name="align", **attrs)
    height = attrs.get("output_height", 1)
    width = attrs.get("output_width", 1)
    graph = helper.make_graph(
        [node], "roi_align",
        [helper.make_tensor_value_info("x", elem, list(x_shape)),
         helper.make_tensor_value_info("rois", elem, [boxes, 4]),
         helper.make_tensor_value_info("batch_indices", I64, [boxes])],
        [helper.make_tensor_value_info("y", elem,
                                       [boxes, x_shape[1], height, width])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


# Boxes (x1, y1, x2, y2) in image coordinates: inside, partly outside on
# each side, larger than the image, wholly outside, and small ones (under a
# pixel, where output_half_pixel makes them 1x1). Adaptive grids with
# half_pixel need boxes of positive size (onnxruntime refuses others).
BOXES = np.array([[1.0, 1.5, 7.25, 6.0],
                  [-3.0, 2.0, 4.0, 9.5],
                  [6.5, -4.0, 15.0, 3.0],
                  [-6.0, -5.0, 20.0, 16.0],
                  [14.0, 12.0, 18.0, 15.0],
                  [4.2, 4.4, 4.6, 4.9],
                  [0.0, 0.0, 12.0, 10.0]], np.float32)


def feeds_for(rng, boxes, dtype=np.float32, x_shape=(2, 3, 10, 12), scale=1.0):
    return {"x": rng.standard_normal(x_shape).astype(dtype),
            "rois": (boxes / scale).astype(dtype),
            "batch_indices": rng.integers(0, x_shape[0], len(boxes)).astype(np.int64)}


def case(opset, dtype=np.float32, scale=1.0, flags=(), tolerance=1e-5, **attrs):
    def make(rng):
        m = roi_align_model(opset, len(BOXES),
                            D if dtype == np.float64 else F, spatial_scale=scale,
                            **attrs)
        return m, feeds_for(rng, BOXES, dtype, scale=scale), list(flags), tolerance
    return make


CASES = {
    "avg_half_pixel_adaptive": case(16, output_height=3, output_width=2),
    "avg_half_pixel_ratio2": case(16, output_height=2, output_width=4,
                                  sampling_ratio=2, scale=0.5),
    "max_half_pixel_adaptive": case(16, mode="max", output_height=2, output_width=2),
    "max_half_pixel_ratio2": case(16, mode="max", output_height=3, output_width=3,
                                  sampling_ratio=2),
    "avg_output_half_pixel_ratio2": case(
        16, coordinate_transformation_mode="output_half_pixel", output_height=2,
        output_width=3, sampling_ratio=2),
    "max_output_half_pixel_adaptive": case(
        16, coordinate_transformation_mode="output_half_pixel", mode="max",
        output_height=4, output_width=2),
    # Opset 10 had no coordinate_transformation_mode: output_half_pixel.
    "opset10_avg_adaptive": case(10, output_height=2, output_width=2, scale=0.25),
    "opset10_max_ratio2": case(10, mode="max", output_height=3, output_width=2,
                               sampling_ratio=2),
    "float64_avg_adaptive": case(16, dtype=np.float64, output_height=3,
                                 output_width=3, tolerance=1e-12),
    # x in float16, the boxes float32 (coordinates), against float32.
    "fp16_avg_adaptive": case(16, flags=["--precision", "fp16"],
                              output_height=2, output_width=2, tolerance=2e-2),
}


def onnxruntime_run(m, feeds):
    import onnxruntime as ort
    # Errors only: onnxruntime warns at every "max" that it may change.
    ort.set_default_logger_severity(3)
    session = ort.InferenceSession(m.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def graphc_compile(args, model_path, so_path, extra):
    command = [args.graphc, "compile", model_path, "-o", so_path,
               "--target", args.target, *extra]
    if args.cuda_emulation:
        command.append("--cuda-emulation")
    return subprocess.run(command, capture_output=True, text=True)


def check_case(args, name, work_dir):
    import graphc
    m, feeds, flags, tolerance = CASES[name](np.random.default_rng(0))
    model_path = os.path.join(work_dir, f"{name}.onnx")
    so_path = os.path.join(work_dir, f"{name}.so")
    onnx.save(m, model_path)
    proc = graphc_compile(args, model_path, so_path, flags)
    if proc.returncode != 0:
        raise CheckFailed(f"graphc compile failed:\n{proc.stderr.strip()}")
    want = onnxruntime_run(m, feeds)
    with graphc.load(so_path) as compiled:
        got = compiled.run(feeds)[0].numpy()
    if got.shape != want.shape or got.dtype != want.dtype:
        raise CheckFailed(f"{got.dtype}{list(got.shape)}, onnxruntime gives "
                          f"{want.dtype}{list(want.shape)}")
    error = np.abs(got.astype(np.float64) - want) / (1 + np.abs(want))
    if not np.all(error <= tolerance):
        worst = np.unravel_index(np.argmax(error), error.shape)
        raise CheckFailed(f"differs from onnxruntime at {list(worst)}: "
                          f"{got[worst]} vs {want[worst]}")
    if not np.any(want != 0) or not np.any(want == 0):
        raise CheckFailed("the boxes should give both zeros (outside) and "
                          "values")
    return f"{list(got.shape)} within {tolerance:g} (worst {error.max():.2g})"


def check_batch_index(args, name, work_dir):
    """A batch index outside [0, N) fails the run with a status naming the
    node; the session then runs valid inputs."""
    import graphc
    m = roi_align_model(16, 3, output_height=2, output_width=2)
    model_path = os.path.join(work_dir, "bad_index.onnx")
    so_path = os.path.join(work_dir, "bad_index.so")
    onnx.save(m, model_path)
    proc = graphc_compile(args, model_path, so_path, [])
    if proc.returncode != 0:
        raise CheckFailed(f"graphc compile failed:\n{proc.stderr.strip()}")
    feeds = feeds_for(np.random.default_rng(1), BOXES[:3])
    texts = []
    with graphc.load(so_path) as compiled:
        for bad in (2, -1):
            feeds["batch_indices"] = np.array([0, bad, 1], np.int64)
            try:
                compiled.run(feeds)
            except graphc.GraphcError as error:
                text = str(error)
                if f"{bad} is out of range [0, 2)" not in text or \
                        "'align'" not in text:
                    raise CheckFailed(f"unexpected error: {text}")
                texts.append(text)
            else:
                raise CheckFailed(f"a batch index of {bad} ran")
        feeds["batch_indices"] = np.array([1, 0, 1], np.int64)
        got = compiled.run(feeds)[0].numpy()
    want = onnxruntime_run(m, feeds)
    if not np.allclose(got, want, rtol=1e-5, atol=1e-5):
        raise CheckFailed("the run after the refusals differs from onnxruntime")
    return "refused at run time: " + texts[0][:160]


def check_dynamic_boxes(args, name, work_dir):
    """A box count the run decides: runs of 3 and 7 boxes are padded to
    the buckets of 4 and 8 (padded boxes are zeros, batch index 0), and
    the padding is sliced off the result."""
    import graphc
    m = roi_align_model(16, "boxes", mode="max", output_height=2,
                        output_width=3, sampling_ratio=2)
    model_path = os.path.join(work_dir, "dynamic.onnx")
    so_path = os.path.join(work_dir, "dynamic.so")
    onnx.save(m, model_path)
    proc = graphc_compile(args, model_path, so_path, ["--buckets", "boxes=4,8"])
    if proc.returncode != 0:
        raise CheckFailed(f"graphc compile failed:\n{proc.stderr.strip()}")
    report = proc.stdout + proc.stderr
    if "any size up to the largest (padded)" not in report:
        raise CheckFailed(f"the boxes are not padded:\n{report.strip()}")
    rng = np.random.default_rng(2)
    shapes = []
    with graphc.load(so_path) as compiled:
        for count in (3, 7):
            feeds = feeds_for(rng, BOXES[:count])
            got = compiled.run(feeds)[0].numpy()
            want = onnxruntime_run(m, feeds)
            if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5,
                                                          atol=1e-5):
                raise CheckFailed(f"{count} boxes: {list(got.shape)} differs "
                                  f"from onnxruntime's {list(want.shape)}")
            shapes.append(str(list(got.shape)))
    return " then ".join(shapes)


RUN_FAILURES = {"batch_index_out_of_range": check_batch_index,
                "dynamic_boxes": check_dynamic_boxes}


def main():
    return run_checks(__doc__, lambda: ([(n, check_case) for n in CASES] +
                      list(RUN_FAILURES.items())),
                      "graphc-roi-align")


if __name__ == "__main__":
    sys.exit(main())
