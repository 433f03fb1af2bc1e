"""Checks the ONNX tensors that `graphc compile --emit exec` says its steps
hold against the model: each named tensor is a graph input, an initializer
or a node output, of as many elements as the step's result, of a float type
where the result is one. Fails when no step names a tensor.

    python check_step_tensors.py MODEL.onnx EXEC.mlir [DIM=SIZE ...]
"""
import re
import sys

import numpy as np
import onnx
from onnx import helper, shape_inference

model = onnx.load(sys.argv[1])
sizes = {k: int(v) for k, v in (arg.split("=") for arg in sys.argv[3:])}
# The dims the compile fixed, so that inference knows every shape.
for value in model.graph.input:
    for dim in value.type.tensor_type.shape.dim:
        if dim.HasField("dim_param") and dim.dim_param in sizes:
            dim.dim_value = sizes[dim.dim_param]
model = shape_inference.infer_shapes(model, data_prop=True)

known = {value.name for value in model.graph.input}
known |= {init.name for init in model.graph.initializer}
known |= {out for node in model.graph.node for out in node.output}
shapes, floats = {}, {}
for value in list(model.graph.value_info) + list(model.graph.input) + \
        list(model.graph.output):
    tensor = value.type.tensor_type
    if tensor.HasField("shape") and all(d.HasField("dim_value") for d in tensor.shape.dim):
        shapes[value.name] = [d.dim_value for d in tensor.shape.dim]
    if tensor.elem_type:
        floats[value.name] = np.issubdtype(
            helper.tensor_dtype_to_np_dtype(tensor.elem_type), np.floating)
for init in model.graph.initializer:
    shapes[init.name] = list(init.dims)
    floats[init.name] = np.issubdtype(
        helper.tensor_dtype_to_np_dtype(init.data_type), np.floating)

named = 0
failures = []
text = open(sys.argv[2]).read()
for dims, element, name in re.findall(
        r'#exec\.result<\d+, tensor<((?:\d+x)*)(\w+)>, "([^"]*)">', text):
    if not name:
        continue
    named += 1
    if name not in known:
        failures.append(f"'{name}' is no tensor of the model")
        continue
    count = int(np.prod([int(d) for d in dims.split("x") if d]))
    if name in shapes and int(np.prod(shapes[name])) != count:
        failures.append(f"'{name}' has {int(np.prod(shapes[name]))} elements "
                        f"{shapes[name]}, the step's result {count}")
    if name in floats and floats[name] != element.startswith(("f", "bf")):
        failures.append(f"'{name}' is held in {element}")
if not named:
    failures.append("no step names a tensor")
for failure in failures:
    print(failure)
sys.exit(1 if failures else 0)
