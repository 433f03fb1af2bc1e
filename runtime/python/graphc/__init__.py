"""Python interface of the graphc runtime (libgraphc_runtime.so, via ctypes).

    import graphc
    model = graphc.load("model.so")
    print(model.inputs, model.outputs, model.buckets)
    y, = model.run(x)                 # one input; or model.run(x=x)
    y, scaled = model.run({"x": x, "bias": b})
    np.from_dlpack(y)                 # no copy; torch.from_dlpack(y) too

Inputs are numpy arrays or any DLPack tensor (__dlpack__) on the model's
device; outputs are graphc.Tensor objects that own their memory and export it
through DLPack, or the caller's tensors when `out=` is given. Non-contiguous
numpy inputs are copied; numpy arrays not in the machine's byte order are
refused. Every runtime failure is a GraphcError carrying the runtime's code
and message (InvalidArgumentError, also a ValueError, for bad arguments).

bfloat16 and the 8-bit floats (float8e4m3fn, float8e4m3fnuz, float8e5m2,
float8e5m2fnuz), which numpy lacks, are their raw bits in the dtypes
onnx.numpy_helper.to_array gives them (onnx._custom_element_types: uint16 or
uint8 with one field named after the type), so ONNX test data passes as it
is; Tensor.numpy() and TensorInfo.dtype use them. Inputs may also be
ml_dtypes arrays (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ...), and
`array.view(ml_dtypes.bfloat16)` turns an output into numbers.

uint4 and int4 tensors are packed two a byte (DLPack bits 4); numpy sees
them unpacked, one element a byte, in onnx's dtypes (int8 or uint8 with one
field "int4" or "uint4"): Tensor.numpy() returns such a copy, and inputs
take such arrays (or ml_dtypes.int4/uint4 ones), range-checked and packed.
"""
from ._errors import GraphcError, InvalidArgumentError
from ._model import Bucket, BucketDim, Model, Session, TensorInfo, load
from ._tensor import Device, Tensor

__all__ = ["Bucket", "BucketDim", "Device", "GraphcError", "InvalidArgumentError", "Model",
           "Session", "Tensor", "TensorInfo", "load"]
