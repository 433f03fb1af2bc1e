"""Runs a graphc cuda model on PyTorch's current stream
(graphc_session_run_on_stream) with torch tensors as inputs and outputs, so
CUDA events on that stream time exactly the model's GPU work and nothing is
copied to the host. The C API's structures and signatures are the Python
package's (graphc._capi): one definition of each layout.

    model = GraphcCudaModel("model.so")       # $GRAPHC_RUNTIME_LIBRARY
    outputs = model.allocate_outputs()        # torch tensors on cuda:0
    model.run_on_stream([x], outputs)         # queued on torch's stream
    model.close()
"""
import ctypes
import os
import sys

try:
    from graphc import _capi
except ImportError:  # a source tree or bundle: the package beside bench/
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "runtime", "python"))
    from graphc import _capi

_KDL_CUDA = 2
_DL_CODES = {"float": 2, "int": 0, "uint": 1, "bool": 6}
_LIBRARIES = {1: "cublaslt", 2: "cudnn"}


def _check(status):
    if status:
        lib = _capi.library()
        message = lib.graphc_status_message(status).decode()
        lib.graphc_status_free(status)
        raise RuntimeError(f"graphc: {message}")


def _dltensors(tensors):
    """A DLTensor array over contiguous torch CUDA tensors (and the shape
    arrays it points to, which the caller keeps alive)."""
    import torch
    array = (_capi.DLTensor * len(tensors))()
    keep = []
    for slot, tensor in zip(array, tensors):
        if not tensor.is_cuda or not tensor.is_contiguous():
            raise ValueError("graphc_cuda needs contiguous CUDA tensors")
        shape = (ctypes.c_int64 * tensor.dim())(*tensor.shape)
        keep.append(shape)
        kind = ("bool" if tensor.dtype == torch.bool else
                "float" if tensor.dtype.is_floating_point else
                "int" if tensor.dtype.is_signed else "uint")
        slot.data = tensor.data_ptr()
        slot.device = _capi.DLDevice(_KDL_CUDA, tensor.device.index or 0)
        slot.ndim = tensor.dim()
        slot.dtype = _capi.DLDataType(_DL_CODES[kind], tensor.element_size() * 8, 1)
        slot.shape = shape
        slot.strides = None
        slot.byte_offset = 0
    return array, keep


class GraphcCudaModel:
    def __init__(self, path):
        self._lib = _capi.library()
        self._model = ctypes.c_void_p()
        self._session = ctypes.c_void_p()
        _check(self._lib.graphc_model_load(path.encode(), None, ctypes.byref(self._model)))
        _check(self._lib.graphc_session_create(self._model, None,
                                               ctypes.byref(self._session)))

    def output_shapes(self):
        """[(shape, onnx dtype)] of the outputs (static dims only)."""
        shapes = []
        for i in range(self._lib.graphc_model_output_count(self._model)):
            info = _capi.TensorInfo()
            _check(self._lib.graphc_model_output_info(self._model, i, ctypes.byref(info)))
            dims = [info.dims[d] for d in range(info.rank)]
            if any(d < 0 for d in dims):
                raise RuntimeError(f"output {info.name.decode()} has dynamic dims {dims}")
            shapes.append((dims, info.dtype))
        return shapes

    def allocate_outputs(self):
        import torch
        dtypes = {1: torch.float32, 10: torch.float16, 11: torch.float64,
                  6: torch.int32, 7: torch.int64, 9: torch.bool}
        return [torch.empty(dims, dtype=dtypes[dtype], device="cuda")
                for dims, dtype in self.output_shapes()]

    def run_on_stream(self, inputs, outputs, stream=None):
        import torch
        stream = stream or torch.cuda.current_stream()
        ins, keep_in = _dltensors(inputs)
        outs, keep_out = _dltensors(outputs)
        _check(self._lib.graphc_session_run_on_stream(
            self._session, ins, len(inputs), None, outs, len(outputs),
            ctypes.c_void_p(stream.cuda_stream)))
        del keep_in, keep_out

    def library_kernels(self):
        """[{kernel, library, fused, why_not_fused}] of the session's library
        kernels, so that a timing says whether cuDNN or graphc's fallback
        kernel computed it."""
        found = []
        for k in range(self._lib.graphc_model_kernel_count(self._model)):
            kernel, info = _capi.KernelInfo(), _capi.LibraryKernelInfo()
            note = ctypes.c_char_p()
            _check(self._lib.graphc_model_kernel_info(self._model, k, ctypes.byref(kernel)))
            _check(self._lib.graphc_session_library_kernel_info(self._session, k,
                                                                ctypes.byref(info)))
            _check(self._lib.graphc_session_library_kernel_note(self._session, k,
                                                                ctypes.byref(note)))
            if info.library:
                found.append({"kernel": kernel.name.decode(),
                              "library": _LIBRARIES.get(info.library, str(info.library)),
                              "fused": None if info.fused < 0 else bool(info.fused),
                              "why_not_fused": (note.value or b"").decode() or None})
        return found

    def close(self):
        if self._session:
            self._lib.graphc_session_release(self._session)
            self._session = ctypes.c_void_p()
        if self._model:
            self._lib.graphc_model_release(self._model)
            self._model = ctypes.c_void_p()
