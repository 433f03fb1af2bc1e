"""A minimal ctypes binding of the graphc C API for benchmarks: runs a cuda
model on PyTorch's current stream (graphc_session_run_on_stream) with torch
tensors as inputs and outputs, so CUDA events on that stream time exactly the
model's GPU work and nothing is copied to the host.

    model = GraphcCudaModel("model.so")       # $GRAPHC_RUNTIME_LIBRARY
    outputs = model.allocate_outputs()        # torch tensors on cuda:0
    model.run_on_stream([x], outputs)         # queued on torch's stream
    model.close()
"""
import ctypes
import os


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32), ("dims", ctypes.POINTER(ctypes.c_int64)),
                ("dim_names", ctypes.POINTER(ctypes.c_char_p))]


_KDL_CUDA = 2
_DL_CODES = {"float": 2, "int": 0, "uint": 1, "bool": 6}


def _load_library():
    path = os.environ.get("GRAPHC_RUNTIME_LIBRARY", "libgraphc_runtime.so")
    lib = ctypes.CDLL(path)
    ptr = ctypes.c_void_p
    lib.graphc_status_message.restype = ctypes.c_char_p
    lib.graphc_status_message.argtypes = [ptr]
    lib.graphc_status_free.argtypes = [ptr]
    lib.graphc_model_load.restype = ptr
    lib.graphc_model_load.argtypes = [ctypes.c_char_p, ptr, ctypes.POINTER(ptr)]
    lib.graphc_model_release.argtypes = [ptr]
    lib.graphc_model_output_count.argtypes = [ptr]
    lib.graphc_model_input_count.argtypes = [ptr]
    lib.graphc_model_output_info.restype = ptr
    lib.graphc_model_output_info.argtypes = [ptr, ctypes.c_int32,
                                             ctypes.POINTER(_TensorInfo)]
    lib.graphc_session_create.restype = ptr
    lib.graphc_session_create.argtypes = [ptr, ptr, ctypes.POINTER(ptr)]
    lib.graphc_session_release.argtypes = [ptr]
    lib.graphc_session_run_on_stream.restype = ptr
    lib.graphc_session_run_on_stream.argtypes = [
        ptr, ctypes.POINTER(_DLTensor), ctypes.c_int32, ptr,
        ctypes.POINTER(_DLTensor), ctypes.c_int32, ptr]
    return lib


_lib = None


def _check(status):
    if status:
        message = _lib.graphc_status_message(status).decode()
        _lib.graphc_status_free(status)
        raise RuntimeError(f"graphc: {message}")


def _dltensors(tensors):
    """A DLTensor array over contiguous torch CUDA tensors (and the shape
    arrays it points to, which the caller keeps alive)."""
    import torch
    array = (_DLTensor * len(tensors))()
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
        slot.device = _DLDevice(_KDL_CUDA, tensor.device.index or 0)
        slot.ndim = tensor.dim()
        slot.dtype = _DLDataType(_DL_CODES[kind], tensor.element_size() * 8, 1)
        slot.shape = shape
        slot.strides = None
        slot.byte_offset = 0
    return array, keep


class GraphcCudaModel:
    def __init__(self, path):
        global _lib
        if _lib is None:
            _lib = _load_library()
        self._model = ctypes.c_void_p()
        self._session = ctypes.c_void_p()
        _check(_lib.graphc_model_load(path.encode(), None, ctypes.byref(self._model)))
        _check(_lib.graphc_session_create(self._model, None, ctypes.byref(self._session)))

    def output_shapes(self):
        """[(shape, onnx dtype)] of the outputs (static dims only)."""
        shapes = []
        for i in range(_lib.graphc_model_output_count(self._model)):
            info = _TensorInfo()
            _check(_lib.graphc_model_output_info(self._model, i, ctypes.byref(info)))
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
        _check(_lib.graphc_session_run_on_stream(
            self._session, ins, len(inputs), None, outs, len(outputs),
            ctypes.c_void_p(stream.cuda_stream)))
        del keep_in, keep_out

    def library_kernels(self):
        """[{kernel, library, fused, why_not_fused}] of the session's library
        kernels (the C API's library kernel info and note), so that a timing
        says whether cuDNN or graphc's fallback kernel computed it."""
        from graphc import _capi
        ptr = ctypes.c_void_p
        _lib.graphc_model_kernel_count.argtypes = [ptr]
        _lib.graphc_model_kernel_info.restype = ptr
        _lib.graphc_model_kernel_info.argtypes = [ptr, ctypes.c_int32,
                                                  ctypes.POINTER(_capi.KernelInfo)]
        _lib.graphc_session_library_kernel_info.restype = ptr
        _lib.graphc_session_library_kernel_info.argtypes = [
            ptr, ctypes.c_int32, ctypes.POINTER(_capi.LibraryKernelInfo)]
        _lib.graphc_session_library_kernel_note.restype = ptr
        _lib.graphc_session_library_kernel_note.argtypes = [
            ptr, ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p)]
        found = []
        for k in range(_lib.graphc_model_kernel_count(self._model)):
            kernel, info, note = _capi.KernelInfo(), _capi.LibraryKernelInfo(), ctypes.c_char_p()
            _check(_lib.graphc_model_kernel_info(self._model, k, ctypes.byref(kernel)))
            _check(_lib.graphc_session_library_kernel_info(self._session, k, ctypes.byref(info)))
            _check(_lib.graphc_session_library_kernel_note(self._session, k, ctypes.byref(note)))
            if info.library:
                found.append({"kernel": kernel.name.decode(),
                              "library": {1: "cublaslt", 2: "cudnn"}.get(info.library),
                              "fused": None if info.fused < 0 else bool(info.fused),
                              "why_not_fused": (note.value or b"").decode() or None})
        return found

    def close(self):
        if self._session:
            _lib.graphc_session_release(self._session)
            self._session = ctypes.c_void_p()
        if self._model:
            _lib.graphc_model_release(self._model)
            self._model = ctypes.c_void_p()
