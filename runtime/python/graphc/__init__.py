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
"""
from ._errors import GraphcError, InvalidArgumentError
from ._model import Bucket, BucketDim, Model, Session, TensorInfo, load
from ._tensor import Device, Tensor

__all__ = ["Bucket", "BucketDim", "Device", "GraphcError", "InvalidArgumentError", "Model",
           "Session", "Tensor", "TensorInfo", "load"]
