"""Python wrapper of the graphc runtime (libgraphc_runtime.so, via ctypes).

    import graphc
    model = graphc.load("model.so")
    print(model.inputs, model.outputs)
    y, = model.run({"x": x})          # or model.run([x]); numpy arrays out

cpu models take numpy arrays (or anything numpy.asarray accepts). cuda
models take numpy arrays, which are copied to the device, or objects with
__dlpack__ on the model's device (e.g. torch or CuPy tensors, used without a
copy); their outputs come back as numpy arrays. A model may be shared across
threads: each thread gets its own session.
"""
import ctypes
import threading

import numpy as np

from . import _capi

__all__ = ["GraphcError", "Model", "TensorInfo", "load"]

_lib = _capi.load_library()

# ONNX dtype numbers <-> numpy dtypes (bfloat16 has no numpy dtype).
_NUMPY_DTYPES = {
    1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16,
    6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64,
    12: np.uint32, 13: np.uint64,
}
_DLPACK_CODES = {"f": _capi.KDL_FLOAT, "i": _capi.KDL_INT,
                 "u": _capi.KDL_UINT, "b": _capi.KDL_BOOL}


class GraphcError(RuntimeError):
    """A non-ok graphc_status: `code` is its name ("invalid_argument")."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _check(status):
    if status:
        code = _lib.graphc_code_name(_lib.graphc_status_code(status)).decode()
        message = _lib.graphc_status_message(status).decode()
        _lib.graphc_status_free(status)
        raise GraphcError(code, message)


class TensorInfo:
    """An input or output: name, numpy dtype (None for bfloat16), ONNX dtype
    number and shape (ints, dim names for named dynamic dims, None)."""

    def __init__(self, info):
        self.name = info.name.decode()
        self.onnx_dtype = info.dtype
        self.dtype = _NUMPY_DTYPES.get(info.dtype)
        shape = []
        for d in range(info.rank):
            if info.dims[d] >= 0:
                shape.append(info.dims[d])
            else:
                name = info.dim_names[d] if info.dim_names else None
                shape.append(name.decode() if name else None)
        self.shape = tuple(shape)

    def __repr__(self):
        dtype = np.dtype(self.dtype).name if self.dtype else "bfloat16"
        return f"TensorInfo({self.name!r}, {dtype}, {list(self.shape)})"


def _dlpack_dtype(array):
    return _capi.DLDataType(_DLPACK_CODES[array.dtype.kind],
                            array.dtype.itemsize * 8, 1)


def _host_tensor(array, device):
    """A DLTensor over a C-contiguous numpy array (kept alive by caller)."""
    if array.dtype.kind not in _DLPACK_CODES:
        raise GraphcError("invalid_argument",
                          f"unsupported numpy dtype {array.dtype}")
    shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
    tensor = _capi.DLTensor(array.ctypes.data, device, array.ndim,
                            _dlpack_dtype(array), shape, None, 0)
    return tensor, shape


class _DLPackInput:
    """Borrows the DLTensor of a __dlpack__ object (DLPack 0.6 capsule)."""

    _get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    _get_pointer.restype = ctypes.c_void_p
    _get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

    def __init__(self, obj):
        self.capsule = obj.__dlpack__()
        pointer = self._get_pointer(self.capsule, b"dltensor")
        self.managed = ctypes.cast(
            pointer, ctypes.POINTER(_capi.DLManagedTensor)).contents
        # The capsule keeps ownership: it is never renamed "used_dltensor",
        # so its destructor calls the producer's deleter.
        self.tensor = self.managed.dl_tensor
        self.shape = tuple(self.tensor.shape[d] for d in range(self.tensor.ndim))


class _Session:
    def __init__(self, model):
        self._model = model
        options = _capi.SessionOptions()
        _lib.graphc_session_options_init(ctypes.byref(options))
        if not model.cuda_graphs:
            options.flags |= _capi.GRAPHC_SESSION_DISABLE_CUDA_GRAPHS
        handle = ctypes.c_void_p()
        _check(_lib.graphc_session_create(model._handle, ctypes.byref(options),
                                          ctypes.byref(handle)))
        self.handle = handle

    def close(self):
        if self.handle:
            _lib.graphc_session_release(self.handle)
            self.handle = None


class Model:
    """A loaded model .so. Use graphc.load()."""

    def __init__(self, path, cuda_graphs=True):
        self.cuda_graphs = cuda_graphs
        handle = ctypes.c_void_p()
        _check(_lib.graphc_model_load(path.encode(), None, ctypes.byref(handle)))
        self._handle = handle
        self.path = path
        self.target = ("cuda" if _lib.graphc_model_target(handle) ==
                       _capi.GRAPHC_TARGET_CUDA else "cpu")
        self.inputs = [self._info(_lib.graphc_model_input_info, i)
                       for i in range(_lib.graphc_model_input_count(handle))]
        self.outputs = [self._info(_lib.graphc_model_output_info, i)
                        for i in range(_lib.graphc_model_output_count(handle))]
        self.plans = []
        for p in range(_lib.graphc_model_plan_count(handle)):
            plan = _capi.PlanInfo()
            _check(_lib.graphc_model_plan_info(handle, p, ctypes.byref(plan)))
            self.plans.append({
                "name": plan.name.decode(),
                "arena_bytes": plan.arena_bytes,
                "inputs": {t.name: tuple(plan.input_dims[i][d]
                                         for d in range(len(t.shape)))
                           for i, t in enumerate(self.inputs)},
                "outputs": {t.name: tuple(plan.output_dims[o][d]
                                          for d in range(len(t.shape)))
                            for o, t in enumerate(self.outputs)},
            })
        self._local = threading.local()
        self._sessions = []
        self._lock = threading.Lock()

    def _info(self, function, index):
        info = _capi.TensorInfo()
        _check(function(self._handle, index, ctypes.byref(info)))
        return TensorInfo(info)

    def _session(self):
        session = getattr(self._local, "session", None)
        if session is None:
            session = _Session(self)
            self._local.session = session
            with self._lock:
                self._sessions.append(session)
        return session

    def close(self):
        """Releases every session and the model; the model is unusable after."""
        if getattr(self, "_handle", None):
            with self._lock:
                for session in self._sessions:
                    session.close()
                self._sessions.clear()
            _lib.graphc_model_release(self._handle)
            self._handle = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def run(self, inputs):
        """Runs the model on a dict {name: array} or a list in model order;
        returns the outputs as a list of numpy arrays in model order."""
        if not self._handle:
            raise GraphcError("failed_precondition", "the model is closed")
        if isinstance(inputs, dict):
            names = list(inputs.keys())
            values = list(inputs.values())
        else:
            names = None
            values = list(inputs)
        session = self._session()
        cuda = self.target == "cuda"
        device = _capi.DLDevice(_capi.KDL_CUDA if cuda else _capi.KDL_CPU, 0)
        keep = []  # objects the DLTensors point into
        buffers = []  # session buffers to free
        try:
            tensors = []
            for value in values:
                if cuda and hasattr(value, "__dlpack__") and not isinstance(
                        value, np.ndarray):
                    borrowed = _DLPackInput(value)
                    keep.append(borrowed)
                    tensors.append(borrowed.tensor)
                    continue
                array = np.asarray(value, order="C")  # keeps rank 0
                tensor, shape = _host_tensor(array, device)
                keep += [array, shape]
                if cuda:
                    tensor.data = self._upload(session, array, buffers)
                tensors.append(tensor)

            plan = self._select_plan(names, tensors)
            outputs, out_tensors = [], []
            for o, info in enumerate(self.outputs):
                if info.dtype is None:
                    raise GraphcError("unimplemented",
                                      f"output '{info.name}' is bfloat16, "
                                      "which numpy cannot hold")
                shape = self.plans[plan]["outputs"][info.name]
                array = np.empty(shape, dtype=info.dtype)
                tensor, dims = _host_tensor(array, device)
                keep.append(dims)
                if cuda:
                    tensor.data = self._allocate(session, array.nbytes, buffers)
                outputs.append(array)
                out_tensors.append(tensor)

            c_inputs = (_capi.DLTensor * max(len(tensors), 1))(*tensors)
            c_outputs = (_capi.DLTensor * max(len(out_tensors), 1))(*out_tensors)
            c_names = None
            if names is not None:
                c_names = (ctypes.c_char_p * len(names))(
                    *[n.encode() for n in names])
            _check(_lib.graphc_session_run(session.handle, c_inputs,
                                           len(tensors), c_names, c_outputs,
                                           len(out_tensors)))
            if cuda:
                for array, tensor in zip(outputs, out_tensors):
                    _check(_lib.graphc_session_download(
                        session.handle, array.ctypes.data, tensor.data,
                        array.nbytes))
            return outputs
        finally:
            for pointer in buffers:
                _lib.graphc_session_free_buffer(session.handle, pointer)

    def _select_plan(self, names, tensors):
        count = len(tensors)
        ranks = (ctypes.c_int32 * max(count, 1))(*[t.ndim for t in tensors])
        dims = (ctypes.POINTER(ctypes.c_int64) * max(count, 1))(
            *[t.shape for t in tensors])
        c_names = None
        if names is not None:
            c_names = (ctypes.c_char_p * count)(*[n.encode() for n in names])
        plan = ctypes.c_int32()
        _check(_lib.graphc_model_select_plan(self._handle, count, c_names,
                                             ranks, dims, ctypes.byref(plan)))
        return plan.value

    @staticmethod
    def _allocate(session, nbytes, buffers):
        pointer = ctypes.c_void_p()
        _check(_lib.graphc_session_allocate_buffer(session.handle, nbytes,
                                                   ctypes.byref(pointer)))
        buffers.append(pointer.value)
        return pointer.value

    def _upload(self, session, array, buffers):
        pointer = self._allocate(session, array.nbytes, buffers)
        _check(_lib.graphc_session_upload(session.handle, pointer,
                                          array.ctypes.data, array.nbytes))
        return pointer


def load(path, cuda_graphs=True):
    """Loads a model .so written by `graphc compile`. cuda_graphs=False makes
    its sessions launch the steps one by one instead of replaying a captured
    CUDA graph (no effect on cpu models)."""
    return Model(str(path), cuda_graphs)
