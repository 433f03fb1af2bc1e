"""What the conformance scripts share: finding the ONNX backend node tests
and the other test models onnx ships, reading their data sets, the compile flags that fix dynamic dims, and the
per-dtype comparison of outputs."""
import glob
import os

import numpy as np
import onnx
from onnx import _custom_element_types as custom_element_types
from onnx import numpy_helper

# GRAPHC_NODE_TEST_ROOT names a copy of the node tests (the GPU device bundle
# carries those of the pinned onnx, whose installed version may differ there).
NODE_ROOT = os.environ.get("GRAPHC_NODE_TEST_ROOT") or os.path.join(
    os.path.dirname(onnx.__file__), "backend", "test", "data", "node")

# The other test models shipped with onnx: small networks exported by old
# PyTorch and Caffe2 converters (opsets 6 to 12), one directory per test, and
# the "light" model zoo (one .onnx file per model, weights replaced by
# ConstantOfShape, expected outputs next to it).
DATA_ROOT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
MODEL_SUITES = ["pytorch-converted", "pytorch-operator", "simple"]
LIGHT_SUITE = "light"

# Tolerances per dtype: (rtol, atol). Integers and bool compare exactly.
TOLERANCES = {
    np.dtype(np.float16): (1e-2, 1e-2),
    np.dtype(np.float32): (1e-4, 1e-5),
    np.dtype(np.float64): (1e-7, 1e-7),
}

# Tests whose reference f32 cannot reproduce within the default tolerance;
# each entry says why it is looser.
LOOSER_F32 = {
    # The expected outputs are written with 4 decimals (-0.1406 for the
    # reference's -0.140625).
    "test_gridsample_bicubic": (1e-3, 1e-5),
    # The same (0.4664 where onnxruntime and onnx's reference give
    # 0.46648...).
    "test_roialign_aligned_false": (1e-3, 1e-5),
    "test_roialign_aligned_true": (1e-3, 1e-5),
}


# Tests whose stored expected outputs contradict the ONNX operator document;
# each entry says how. The runner checks them against onnxruntime instead and
# classifies them as disputed-expected (never as passing) when graphc agrees
# with onnxruntime, as wrong-result when it does not.
DISPUTED_EXPECTED = {
    test: "the expected output wraps a result outside int8 (-236 stored as "
          "20), where QLinearMatMul's document says it saturates (-128), as "
          "onnxruntime computes"
    for test in ("test_qlinearmatmul_2D_int8_float16",
                 "test_qlinearmatmul_2D_int8_float32",
                 "test_qlinearmatmul_3D_int8_float16",
                 "test_qlinearmatmul_3D_int8_float32")
}


def node_tests():
    """Sorted names of the node tests (directories holding model.onnx)."""
    return sorted(name for name in os.listdir(NODE_ROOT)
                  if os.path.isfile(os.path.join(NODE_ROOT, name, "model.onnx")))


def model_tests():
    """Sorted names ("<suite>/<test>") of the model suites' tests."""
    names = []
    for suite in MODEL_SUITES:
        root = os.path.join(DATA_ROOT, suite)
        names += [f"{suite}/{name}" for name in os.listdir(root)
                  if os.path.isfile(os.path.join(root, name, "model.onnx"))]
    light = os.path.join(DATA_ROOT, LIGHT_SUITE)
    names += [f"{LIGHT_SUITE}/{name[:-len('.onnx')]}" for name in os.listdir(light)
              if name.endswith(".onnx")]
    return sorted(names)


def _is_light(name):
    return name.startswith(LIGHT_SUITE + "/")


def _test_dir(name):
    """The directory of a node test, or of a model suite's test."""
    if "/" in name:
        return os.path.join(DATA_ROOT, name)
    return os.path.join(NODE_ROOT, name)


def model_path(name):
    if _is_light(name):
        return os.path.join(DATA_ROOT, name + ".onnx")
    return os.path.join(_test_dir(name), "model.onnx")


def _read_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return tensor


def _light_data_set(name):
    """The data set ONNX's backend test runner uses for a light model: every
    float input filled with arange(n) / n (unknown dims are 1), the outputs
    stored next to the model."""
    model = onnx.load(model_path(name), load_external_data=False)
    inputs = []
    for value in graph_inputs(model):
        shape = tuple(dim.dim_value if dim.HasField("dim_value") else 1
                      for dim in value.type.tensor_type.shape.dim)
        count = int(np.prod(shape))
        array = (np.arange(count).reshape(shape) / count).astype(np.float32)
        inputs.append(numpy_helper.from_array(array, value.name))
    outputs = [_read_tensor(os.path.join(DATA_ROOT, f"{name}_output_{i}.pb"))
               for i in range(len(model.graph.output))]
    return [("test_data_set_0", inputs, outputs)]


def data_sets(name):
    """[(set name, [input TensorProto], [output TensorProto])] in order."""
    if _is_light(name):
        return _light_data_set(name)
    sets = []
    for directory in sorted(glob.glob(os.path.join(_test_dir(name), "test_data_set_*"))):
        def read(prefix):
            count = len(glob.glob(os.path.join(directory, f"{prefix}_*.pb")))
            return [_read_tensor(os.path.join(directory, f"{prefix}_{i}.pb"))
                    for i in range(count)]
        sets.append((os.path.basename(directory), read("input"), read("output")))
    return sets


def graph_inputs(model):
    """The model's runtime inputs (graph inputs that are not initializers)."""
    initializers = {init.name for init in model.graph.initializer}
    return [value for value in model.graph.input if value.name not in initializers]


def has_dynamic_dims(value):
    if not value.type.HasField("tensor_type"):
        return False
    tensor_type = value.type.tensor_type
    if not tensor_type.HasField("shape"):
        return True
    return any(not dim.HasField("dim_value") for dim in tensor_type.shape.dim)


def shape_flags(model, inputs, skip=()):
    """--shape flags fixing every input with a dynamic (or unknown) shape to
    the dims of a data set's tensors (not those in `skip`, bound to values)."""
    flags = []
    for value, tensor in zip(graph_inputs(model), inputs):
        if value.name in skip:
            continue
        if has_dynamic_dims(value) and len(tensor.dims) > 0:
            flags += ["--shape", f"{value.name}=" + "x".join(str(d) for d in tensor.dims)]
    return flags


# ONNX element types the Python runtime passes as numpy arrays (bfloat16
# and the 8-bit floats as their bits, int4 and uint4 one a byte, in the
# dtypes numpy_helper.to_array gives them); strings and complex have no
# numpy dtype it takes.
RUNTIME_DTYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE,
                  onnx.TensorProto.FLOAT16, onnx.TensorProto.INT8,
                  onnx.TensorProto.INT16, onnx.TensorProto.INT32,
                  onnx.TensorProto.INT64, onnx.TensorProto.UINT8,
                  onnx.TensorProto.UINT16, onnx.TensorProto.UINT32,
                  onnx.TensorProto.UINT64, onnx.TensorProto.BOOL,
                  onnx.TensorProto.BFLOAT16, onnx.TensorProto.FLOAT8E4M3FN,
                  onnx.TensorProto.FLOAT8E4M3FNUZ, onnx.TensorProto.FLOAT8E5M2,
                  onnx.TensorProto.FLOAT8E5M2FNUZ,
                  # to_array unpacks them, one a byte, in onnx's int4 and
                  # uint4 dtypes, which the runtime packs and unpacks.
                  onnx.TensorProto.UINT4, onnx.TensorProto.INT4}

# bfloat16 compares as float32 values: ONNX's expected bfloat16 data
# truncates where Cast rounds to nearest even (one bfloat16 ulp, 2^-7
# relative at most). The 8-bit floats compare bit for bit.
BFLOAT16_TOLERANCE = (1e-2, 1e-5)


def to_array(tensor, elem_type=None):
    """The numpy value of a TensorProto; None for dtypes the runtime cannot
    take (see RUNTIME_DTYPES). `elem_type`: the graph's type of the value."""
    if tensor.data_type not in RUNTIME_DTYPES:
        return None
    array = numpy_helper.to_array(tensor)
    if elem_type == onnx.TensorProto.BFLOAT16 and tensor.data_type in (
            onnx.TensorProto.BFLOAT16, onnx.TensorProto.UINT16):
        # ONNX's bfloat16 test data is UINT16 tensors of the bits, and
        # to_array gives a BFLOAT16 one in raw_data as plain uint16: the
        # runtime takes onnx's bfloat16 dtype.
        array = array.view(np.uint16).view(custom_element_types.bfloat16)
    return array


def dtype_name(tensor):
    return onnx.TensorProto.DataType.Name(tensor.data_type).lower()


def _bfloat16_to_float32(array):
    """The values of an array of bfloat16 bits (onnx's raw-bits dtype)."""
    return (array.view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def compare(test, name, actual, expected):
    """None when `actual` matches `expected`, else why not (one line)."""
    actual = np.asarray(actual)
    # numpy finds onnx's raw-bits dtypes equal to their base (uint8 and
    # float8e4m3fn's): the field names tell them apart.
    if actual.dtype != expected.dtype or actual.dtype.names != expected.dtype.names:
        return f"output '{name}': dtype {actual.dtype}, expected {expected.dtype}"
    if actual.shape != expected.shape:
        return (f"output '{name}': shape {list(actual.shape)}, "
                f"expected {list(expected.shape)}")
    widen = None
    if expected.dtype.names == ("bfloat16",):
        widen = _bfloat16_to_float32
        actual, expected = widen(actual), widen(expected)
    elif expected.dtype.names is not None:
        actual, expected = actual.view(np.uint8), expected.view(np.uint8)
    if expected.dtype.kind in "biu":
        bad = actual != expected
        if not bad.any():
            return None
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        return (f"output '{name}': {int(bad.sum())} of {bad.size} elements differ, "
                f"first at {list(index)}: {actual[index]!r} vs {expected[index]!r}")
    rtol, atol = TOLERANCES[expected.dtype]
    if widen is not None:
        rtol, atol = BFLOAT16_TOLERANCE
    elif expected.dtype == np.float32 and test in LOOSER_F32:
        rtol, atol = LOOSER_F32[test]
    # In float64, so that the f16 bound is not itself rounded to f16.
    close = np.isclose(actual.astype(np.float64), expected.astype(np.float64),
                       rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return None
    index = tuple(int(i) for i in np.argwhere(~close)[0])
    error = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    error = np.where(np.isnan(error), np.inf, error)
    return (f"output '{name}': {int((~close).sum())} of {close.size} elements off "
            f"(rtol {rtol:g} atol {atol:g}), max |error| {float(error.max()):.3g}, "
            f"first at {list(index)}: {actual[index]!r} vs {expected[index]!r}")
