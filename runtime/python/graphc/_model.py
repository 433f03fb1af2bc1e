"""graphc.load, Model and Session over the runtime's C API.

Ownership follows runtime.h through Python references: an output Tensor
holds its session, a session holds its model, so the C objects are released
in the order the header asks for, when the last Python reference goes.
"""
import collections.abc
import ctypes
import os
import threading

import numpy as np

from . import _capi, _dlpack
from ._errors import (GraphcError, InvalidArgumentError, check,
                      error_from_status)
from ._tensor import (NUMPY_DTYPES, Buffer, Device, Tensor, dlpack_dtype,
                      four_bit_onnx_dtype, numpy_dlpack_dtype, pack_four_bit)


class TensorInfo:
    """A model input or output as the descriptor declares it.

    `shape` has an int for each static dim, the dim's name (an ONNX
    dim_param) for a named dynamic dim and None for an unnamed one; `dims`
    and `dim_names` are the raw values (-1 and "" for dynamic and unnamed).
    `data_dependent` has a bool per dim: True where each run decides the
    extent (NonZero, Compress, NonMaxSuppression, Unique); such a dim is
    named, each bucket's output_shapes hold its bound, and runs return
    the output at the extent the run found.
    `dtype` is the numpy dtype (onnx's raw-bits dtype for bfloat16 and the
    8-bit floats: see the package docstring); `dtype_name` always names
    it; `onnx_dtype` is the ONNX TensorProto number.
    """

    def __init__(self, info):
        lib = _capi.library()
        self.name = info.name.decode()
        self.onnx_dtype = info.dtype
        self.dtype = NUMPY_DTYPES.get(info.dtype)
        self.dtype_name = lib.graphc_dtype_name(info.dtype).decode()
        self.dims = tuple(info.dims[d] for d in range(info.rank))
        self.dim_names = tuple(
            (info.dim_names[d] or b"").decode() if info.dim_names else ""
            for d in range(info.rank))
        self.shape = tuple(
            dim if dim >= 0 else (name or None)
            for dim, name in zip(self.dims, self.dim_names))
        self.pad_value = info.pad_value
        self.data_dependent = tuple(
            bool(info.data_dependent[d]) if info.data_dependent else False
            for d in range(info.rank))

    def __repr__(self):
        dims = ",".join(str(d) for d in self.shape)
        return f"TensorInfo({self.name!r}, {self.dtype_name}[{dims}])"


class Bucket:
    """One compiled shape bucket (a plan of the descriptor): the static dims
    of every input and output by name (an output's data-dependent dims at
    their bounds), and its memory and step counts."""

    def __init__(self, plan, inputs, outputs):
        self.name = plan.name.decode()
        self.arena_bytes = plan.arena_bytes
        self.intermediate_bytes = plan.intermediate_bytes
        self.num_steps = plan.num_steps
        self.input_shapes = {
            t.name: tuple(plan.input_dims[i][d] for d in range(len(t.dims)))
            for i, t in enumerate(inputs)}
        self.output_shapes = {
            t.name: tuple(plan.output_dims[o][d] for d in range(len(t.dims)))
            for o, t in enumerate(outputs)}

    def __repr__(self):
        return (f"Bucket({self.name!r}, inputs={self.input_shapes}, "
                f"outputs={self.output_shapes})")


class BucketDim:
    """A dynamic dim compiled for several sizes. A run takes any size up to
    the largest when `pad_safe` (inputs padded to the next size, outputs
    sliced back), larger ones too when `splittable`; otherwise one of
    `sizes` exactly, and `node` and `reason` say what breaks padding.
    `output_axes` maps output names to the axis carrying the dim."""

    def __init__(self, info, outputs):
        self.name = info.name.decode()
        self.sizes = tuple(info.sizes[s] for s in range(info.num_sizes))
        self.pad_safe = bool(info.pad_safe)
        self.splittable = bool(info.splittable)
        self.node = info.node.decode()
        self.reason = info.reason.decode()
        self.output_axes = {t.name: info.output_axes[o]
                            for o, t in enumerate(outputs)
                            if info.output_axes[o] >= 0}

    def __repr__(self):
        how = ("padded" + (", split" if self.splittable else "")
               if self.pad_safe else f"exact: {self.reason}")
        return f"BucketDim({self.name!r}, sizes={self.sizes}, {how})"


class _LoadedModel:
    """The graphc_model and what it describes; released when unreferenced."""

    def __init__(self, path, device, flags, weights_path):
        lib = _capi.library()
        options = _capi.ModelOptions()
        lib.graphc_model_options_init(ctypes.byref(options))
        options.flags = flags
        options.device_ordinal = device.index if device else 0
        if weights_path is not None:
            options.weights_path = _c_path(weights_path, "weights_path")
        pointer = ctypes.c_void_p()
        check(lib.graphc_model_load(_c_path(path, "model path"),
                                    ctypes.byref(options),
                                    ctypes.byref(pointer)))
        self.pointer = pointer.value
        self.path = os.fsdecode(path)
        self.target = ("cuda" if lib.graphc_model_target(self.pointer) ==
                       _capi.GRAPHC_TARGET_CUDA else "cpu")
        self.producer = lib.graphc_model_producer(self.pointer).decode()
        self.inputs = [
            self._info(lib.graphc_model_input_info, i)
            for i in range(lib.graphc_model_input_count(self.pointer))]
        self.outputs = [
            self._info(lib.graphc_model_output_info, i)
            for i in range(lib.graphc_model_output_count(self.pointer))]
        self.buckets = []
        for p in range(lib.graphc_model_plan_count(self.pointer)):
            plan = _capi.PlanInfo()
            check(lib.graphc_model_plan_info(self.pointer, p,
                                             ctypes.byref(plan)))
            self.buckets.append(Bucket(plan, self.inputs, self.outputs))
        self.bucket_dims = []
        for k in range(lib.graphc_model_bucket_dim_count(self.pointer)):
            info = _capi.BucketDimInfo()
            check(lib.graphc_model_bucket_dim_info(self.pointer, k,
                                                   ctypes.byref(info)))
            self.bucket_dims.append(BucketDim(info, self.outputs))

    def _info(self, function, index):
        info = _capi.TensorInfo()
        check(function(self.pointer, index, ctypes.byref(info)))
        return TensorInfo(info)

    def __del__(self):
        pointer, self.pointer = getattr(self, "pointer", None), None
        if pointer:
            _capi.library().graphc_model_release(pointer)


class _SessionHandle:
    """A graphc_session; it keeps its model alive and is released when the
    last session object or output tensor that uses it goes."""

    def __init__(self, model, device, flags):
        self.model = model
        self.device = device
        options = _capi.SessionOptions()
        lib = _capi.library()
        lib.graphc_session_options_init(ctypes.byref(options))
        options.flags = flags
        options.device_ordinal = device.index
        pointer = ctypes.c_void_p()
        check(lib.graphc_session_create(model.pointer, ctypes.byref(options),
                                        ctypes.byref(pointer)))
        self.pointer = pointer.value
        # runtime.h: a session is used from one thread at a time.
        self.lock = threading.Lock()

    def synchronize(self):
        """Waits for every run queued on the session (cuda); raises what an
        asynchronous run found (an index out of range, a device fault)."""
        check(_capi.library().graphc_session_synchronize(self.pointer))

    def __del__(self):
        pointer, self.pointer = getattr(self, "pointer", None), None
        if pointer:
            _capi.library().graphc_session_release(pointer)


def _c_path(path, what):
    try:
        raw = os.fsencode(path)
    except TypeError:
        raise TypeError(f"{what} must be a str, bytes or os.PathLike, not "
                        f"{type(path).__name__}") from None
    if b"\0" in raw:
        raise InvalidArgumentError(
            f"{what} {os.fsdecode(raw)!r} contains a NUL character")
    return raw


def _c_name(name, what):
    if not isinstance(name, str):
        raise TypeError(f"{what} names must be str, not {type(name).__name__}")
    if "\0" in name:
        raise InvalidArgumentError(f"{what} name {name!r} contains a NUL "
                                   "character")
    return name.encode()


def _stream_handle(stream):
    """The CUstream of a `stream=` argument: an int, or an object with
    __cuda_stream__ (the CUDA stream protocol), .cuda_stream (torch) or
    .ptr (CuPy)."""
    if hasattr(stream, "__cuda_stream__"):
        stream = stream.__cuda_stream__()[1]
    elif hasattr(stream, "cuda_stream"):
        stream = stream.cuda_stream
    elif hasattr(stream, "ptr") and not isinstance(stream, int):
        stream = stream.ptr
    if isinstance(stream, bool) or not isinstance(stream, int) or stream < 0:
        raise InvalidArgumentError(f"stream {stream!r} is not a CUDA stream "
                                   "handle")
    return stream


def _split_inputs(args, named):
    """(names or None, values) from run()'s arguments."""
    if args and named:
        raise TypeError("pass the inputs positionally or by name, not both")
    if named:
        return list(named.keys()), list(named.values())
    if len(args) == 1 and isinstance(args[0], collections.abc.Mapping):
        return list(args[0].keys()), list(args[0].values())
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return None, list(args[0])
    return None, list(args)


class _Run:
    """The DLTensors of one run and everything they point into."""

    def __init__(self, handle, stream, host_in_place=False):
        self.handle = handle
        self.cuda = handle.device.type == "cuda"
        # cuda, batched runs: host arrays are passed as host memory, which
        # the runtime copies itself, instead of through a device buffer.
        self.host_in_place = host_in_place
        # The stream the producers must make the data ready on (DLPack
        # consumer stream): the caller's, or the legacy default stream.
        self.consumer_stream = (None if not self.cuda else
                                1 if stream in (None, 0) else stream)
        self.keep = []  # arrays, capsules, shapes, temporary buffers
        self.uploaded = False
        self.downloads = []  # (numpy out array, device Buffer)

    def host_array(self, label, array, for_output):
        role = "output" if for_output else "input"
        if not array.dtype.isnative:
            raise InvalidArgumentError(
                f"{role} '{label}': the {array.dtype.str} array is not in the "
                "machine's byte order; convert it with "
                "array.astype(array.dtype.newbyteorder('='))")
        four_bit = four_bit_onnx_dtype(array.dtype)
        if four_bit is not None:
            if for_output:
                raise InvalidArgumentError(
                    f"output '{label}': numpy has no packed 4-bit dtype; "
                    "pass a DLPack tensor of bits 4 or leave out= unset")
            # The logical shape, over the packed bytes (DLPack bits 4).
            shape = array.shape
            array = pack_four_bit(array, four_bit, label)
            return self._host_bytes(array, shape, dlpack_dtype(four_bit))
        dtype = numpy_dlpack_dtype(array.dtype)
        if dtype is None:
            raise InvalidArgumentError(
                f"{role} '{label}': numpy dtype {array.dtype} is not a tensor "
                "dtype")
        if for_output:
            if not array.flags.c_contiguous or not array.flags.writeable:
                raise InvalidArgumentError(
                    f"output '{label}': out= arrays must be C-contiguous and "
                    "writeable")
        elif not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)  # a copy, documented
        return self._host_bytes(array, array.shape, dtype, for_output)

    def _host_bytes(self, array, dims, dtype, for_output=False):
        """A DLTensor of `dims` and `dtype` over the bytes of the contiguous
        `array` (uploaded first on cuda)."""
        shape = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        self.keep += [array, shape]
        data = array.ctypes.data
        if self.cuda and self.host_in_place:
            return _capi.DLTensor(data, _capi.DLDevice(_capi.KDL_CPU, 0),
                                  len(dims), dtype, shape, None, 0)
        if self.cuda:
            buffer = Buffer(self.handle, array.nbytes)
            self.keep.append(buffer)
            data = buffer.pointer
            if for_output:
                self.downloads.append((array, buffer))
            else:
                check(_capi.library().graphc_session_upload(
                    self.handle.pointer, data, array.ctypes.data,
                    array.nbytes))
                self.uploaded = True
        return _capi.DLTensor(data, _capi.DLDevice(*self.handle.device.dlpack()),
                              len(dims), dtype, shape, None, 0)

    def tensor(self, label, value, for_output=False):
        if isinstance(value, np.generic) and not for_output:
            value = np.asarray(value)
        if isinstance(value, np.ndarray):
            return self.host_array(label, value, for_output)
        if not hasattr(value, "__dlpack__"):
            role = "output" if for_output else "input"
            raise TypeError(f"{role} '{label}': {type(value).__name__} is "
                            "neither a numpy array nor a DLPack tensor")
        device_type = value.__dlpack_device__()[0]
        if (self.cuda and device_type == _capi.KDL_CPU and not for_output):
            # A host tensor of another library: copied like a numpy array.
            return self.host_array(label, np.from_dlpack(value), False)
        if device_type == _capi.KDL_CPU:
            capsule = value.__dlpack__()
        else:
            capsule = value.__dlpack__(stream=self.consumer_stream)
        borrowed = _dlpack.Borrowed(capsule)
        self.keep.append(borrowed)
        return borrowed.tensor


class Session:
    """A graphc_session: a stream, an arena and captured CUDA graphs.

    Use one session per concurrent request stream; calls on one session are
    serialised (the C API allows one thread at a time). Output tensors keep
    the session alive, so close() releases it once they are gone too.
    """

    def __init__(self, model, device, flags):
        self._handle = _SessionHandle(model, device, flags)

    @property
    def device(self):
        return self._handle.device

    def close(self):
        self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def run(self, *inputs, out=None, stream=None, **named_inputs):
        """Runs the model; see Model.run."""
        handle = self._handle
        if handle is None:
            raise GraphcError("failed_precondition", "the session is closed")
        return _run(handle, inputs, named_inputs, out, stream)

    def run_batch(self, requests, stream=None):
        """Runs several requests as one batch along the model's batch dim
        (graphc_session_run_batch): `requests` is a list of each request's
        inputs (a dict by name, the same names for every request, or a list
        in model order); returns each request's outputs, a list of Tensors
        in model order, of the dims that request alone would have. Nothing
        is concatenated here: the runtime gathers the requests into its
        staging buffers (on cuda numpy inputs are read from host memory).
        More than one request needs a batch dim (a bucketed dim that is
        axis 0 of every input and output, along which the model mixes no
        rows); a status about one request starts with "request R: ". A
        model with data-dependent output dims has none: it runs one request
        at a time, whose outputs come back cut as Model.run's."""
        handle = self._handle
        if handle is None:
            raise GraphcError("failed_precondition", "the session is closed")
        return _run_batch(handle, requests, stream)

    def library_kernels(self):
        """What computes each library kernel (GEMM, convolution, attention)
        in this session, as the libraries planned it when the session was
        created: a list of dicts with the kernel's name, kind and ONNX
        nodes, `library` ("cublaslt" or "cudnn"), `fused` (True: the library
        computes the epilogue too; False: the GEMM or convolution alone,
        then graphc's finishing kernel, or for an attention no cuDNN engine,
        so graphc's generated attention kernel; None: no plan calls it),
        `rank` and
        `requested_rank` (the heuristic's choice planned, and the one the
        artifact's tuning asked for; rank is None on cpu, where the
        reference kernels have no heuristic), `workspace_bytes` and
        `why_not_fused` (where `fused` is False, the library's refusal of
        the fused graph as it gave it; else None)."""
        handle = self._handle
        if handle is None:
            raise GraphcError("failed_precondition", "the session is closed")
        lib = _capi.library()
        model = handle.model
        found = []
        for k in range(lib.graphc_model_kernel_count(model.pointer)):
            kernel = _capi.KernelInfo()
            check(lib.graphc_model_kernel_info(model.pointer, k,
                                               ctypes.byref(kernel)))
            info = _capi.LibraryKernelInfo()
            with handle.lock:
                check(lib.graphc_session_library_kernel_info(
                    handle.pointer, k, ctypes.byref(info)))
                note = ctypes.c_char_p()
                check(lib.graphc_session_library_kernel_note(
                    handle.pointer, k, ctypes.byref(note)))
            if info.library == 0:  # generated code
                continue
            found.append({
                "kernel": kernel.name.decode(), "kind": kernel.kind.decode(),
                "onnx_nodes": kernel.onnx_nodes.decode(),
                "library": _LIBRARIES.get(info.library, str(info.library)),
                "fused": None if info.fused < 0 else bool(info.fused),
                "rank": None if info.rank < 0 else info.rank,
                "requested_rank": info.requested_rank,
                "workspace_bytes": info.workspace_bytes,
                "why_not_fused": (note.value or b"").decode() or None})
        return found


_LIBRARIES = {1: "cublaslt", 2: "cudnn"}


def _c_names(names):
    """Input names as the C API takes them; None for model order."""
    if names is None:
        return None
    return (ctypes.c_char_p * max(len(names), 1))(
        *[_c_name(n, "input") for n in names])


def _bind_inputs(lib, run, model, names, c_names, values):
    """One run's input tensors on the run's device, and the dims of its
    outputs as the runtime computes them for those inputs (a padded
    bucket's are sliced back): (tensors, output shapes, None), or (tensors,
    None, status) when the runtime refuses the inputs' dims."""
    tensors = []
    for i, value in enumerate(values):
        label = (names[i] if names is not None else
                 model.inputs[i].name if i < len(model.inputs) else f"#{i}")
        tensors.append(run.tensor(label, value))
    count = len(tensors)
    ranks = (ctypes.c_int32 * max(count, 1))(*[t.ndim for t in tensors])
    dims = (ctypes.POINTER(ctypes.c_int64) * max(count, 1))(
        *[t.shape for t in tensors])
    output_dims = [(ctypes.c_int64 * max(len(info.dims), 1))()
                   for info in model.outputs]
    c_output_dims = (ctypes.POINTER(ctypes.c_int64) *
                     max(len(output_dims), 1))(
        *[ctypes.cast(d, ctypes.POINTER(ctypes.c_int64)) for d in output_dims])
    status = lib.graphc_model_output_dims(model.pointer, count, c_names, ranks,
                                          dims, c_output_dims)
    if status:
        return tensors, None, status
    shapes = [tuple(output_dims[o][d] for d in range(len(info.dims)))
              for o, info in enumerate(model.outputs)]
    return tensors, shapes, None


def _ready_stream(run, stream_handle):
    """The stream a run's outputs are ready on: None when the run completes
    before it returns (the cpu, or no stream given)."""
    return (None if not run.cuda or stream_handle is None else
            run.consumer_stream)


def _dltensors(run, tensors):
    """The DLTensors of `tensors`; `run` keeps their shape arrays alive."""
    dltensors = []
    for tensor in tensors:
        dl, shape = tensor.dltensor()
        run.keep.append(shape)
        dltensors.append(dl)
    return dltensors


def _found_dims(lib, handle, model):
    """Per output, the dims the session's latest run found for one with
    data-dependent dims (graphc_session_output_dims; on cuda after waiting
    for the run), None for the others. Called under the session's lock."""
    found = []
    for o, info in enumerate(model.outputs):
        if not any(info.data_dependent):
            found.append(None)
            continue
        dims = (ctypes.c_int64 * len(info.dims))()
        check(lib.graphc_session_output_dims(handle.pointer, o, dims))
        found.append(tuple(dims))
    return found


def _corner(value, dims):
    """`value` (an output the run wrote at its bounds) cut to `dims`, the
    extents its run found, without a copy: a graphc.Tensor's corner view,
    or a slice of a caller's out= array (numpy, torch, CuPy); `value`
    itself for an output without data-dependent dims (dims None)."""
    if dims is None:
        return value
    if isinstance(value, Tensor):
        return value._corner(dims)
    return value[tuple(slice(0, d) for d in dims)]


def _run(handle, args, named, out, stream):
    lib = _capi.library()
    model = handle.model
    names, values = _split_inputs(args, named)
    if handle.device.type == "cpu" and stream is not None:
        raise InvalidArgumentError(f"{os.path.basename(model.path)} is a cpu "
                                   f"model, which runs on no stream; got "
                                   f"stream={stream!r}")
    stream_handle = None if stream is None else _stream_handle(stream)
    run = _Run(handle, stream_handle)

    c_names = _c_names(names)
    tensors, output_shapes, status = _bind_inputs(lib, run, model, names,
                                                  c_names, values)
    check(status)
    count = len(tensors)

    if out is None:
        results = []
        ready = _ready_stream(run, stream_handle)
        for o, info in enumerate(model.outputs):
            try:
                dlpack_dtype(info.onnx_dtype)
            except KeyError:
                raise GraphcError("unimplemented", f"output '{info.name}' is "
                                  f"{info.dtype_name}, which DLPack cannot "
                                  "hold") from None
            results.append(Tensor(handle, info.onnx_dtype, output_shapes[o],
                                  ready))
        out_tensors = _dltensors(run, results)
    else:
        results = _order_outputs(model, out)
        out_tensors = [run.tensor(info.name, value, for_output=True)
                       for info, value in zip(model.outputs, results)]

    c_inputs = (_capi.DLTensor * max(count, 1))(*tensors)
    c_outputs = (_capi.DLTensor * max(len(out_tensors), 1))(*out_tensors)
    with handle.lock:
        c_stream = None
        if run.cuda:
            c_stream = stream_handle or None
        check(lib.graphc_session_run_on_stream(
            handle.pointer, c_inputs, count, c_names, c_outputs,
            len(out_tensors), c_stream))
        # Without a stream the run is synchronous; host inputs and outputs
        # went through temporary device buffers that must outlive the run.
        if run.cuda and (stream_handle is None or run.uploaded or
                         run.downloads):
            handle.synchronize()
        for array, buffer in run.downloads:
            check(lib.graphc_session_download(handle.pointer,
                                              array.ctypes.data,
                                              buffer.pointer, array.nbytes))
        found = _found_dims(lib, handle, model)
    return [_corner(value, dims) for value, dims in zip(results, found)]


def _run_batch(handle, requests, stream):
    lib = _capi.library()
    model = handle.model
    if handle.device.type == "cpu" and stream is not None:
        raise InvalidArgumentError(f"{os.path.basename(model.path)} is a cpu "
                                   f"model, which runs on no stream; got "
                                   f"stream={stream!r}")
    stream_handle = None if stream is None else _stream_handle(stream)
    run = _Run(handle, stream_handle, host_in_place=True)
    requests = list(requests)
    names = None
    if requests and isinstance(requests[0], collections.abc.Mapping):
        names = list(requests[0].keys())
    c_names = _c_names(names)
    c_inputs, c_outputs, results = [], [], []
    for r, request in enumerate(requests):
        if names is not None:
            if (not isinstance(request, collections.abc.Mapping) or
                    list(request.keys()) != names):
                raise InvalidArgumentError(
                    f"request {r}: its inputs are not named as request 0's "
                    f"({', '.join(names)})")
            values = list(request.values())
        else:
            values = list(request)
        tensors, output_shapes, status = _bind_inputs(lib, run, model, names,
                                                      c_names, values)
        count = len(tensors)
        if status:
            error = error_from_status(lib, status)
            error.args = (f"request {r}: {error}",)
            raise error
        ready = _ready_stream(run, stream_handle)
        outputs = [Tensor(handle, info.onnx_dtype, output_shapes[o], ready)
                   for o, info in enumerate(model.outputs)]
        out_tensors = _dltensors(run, outputs)
        c_inputs.append((_capi.DLTensor * max(count, 1))(*tensors))
        c_outputs.append(
            (_capi.DLTensor * max(len(out_tensors), 1))(*out_tensors))
        results.append(outputs)
    run.keep += [c_inputs, c_outputs]
    pointer = ctypes.POINTER(_capi.DLTensor)
    inputs = (pointer * max(len(requests), 1))(
        *[ctypes.cast(t, pointer) for t in c_inputs])
    outputs = (pointer * max(len(requests), 1))(
        *[ctypes.cast(t, pointer) for t in c_outputs])
    num_inputs = len(names) if names is not None else (
        len(requests[0]) if requests else 0)
    with handle.lock:
        check(lib.graphc_session_run_batch(
            handle.pointer, len(requests), inputs, num_inputs, c_names,
            outputs, len(model.outputs),
            (stream_handle or None) if run.cuda else None))
        # Host inputs are read by the queued run: wait for it unless the
        # caller ordered it on a stream of its own.
        if run.cuda and stream_handle is None:
            handle.synchronize()
        # A model with data-dependent dims runs one request at a time (the
        # runtime refuses more): its outputs are cut to what the run found.
        found = _found_dims(lib, handle, model)
    if any(dims is not None for dims in found):
        results[0] = [_corner(value, dims)
                      for value, dims in zip(results[0], found)]
    return results


def _order_outputs(model, out):
    """out= as a list in model order."""
    names = [info.name for info in model.outputs]
    if isinstance(out, collections.abc.Mapping):
        for name in out:
            if name not in names:
                raise InvalidArgumentError(
                    f"out: the model has no output '{name}' (outputs: "
                    f"{', '.join(names)})")
        missing = [name for name in names if name not in out]
        if missing:
            raise InvalidArgumentError(
                f"out: no tensor for output '{missing[0]}'")
        return [out[name] for name in names]
    if isinstance(out, (list, tuple)):
        if len(out) != len(names):
            raise InvalidArgumentError(
                f"out: {len(out)} tensors for {len(names)} outputs "
                f"({', '.join(names)})")
        return list(out)
    if len(names) != 1:
        raise InvalidArgumentError(
            f"out: one tensor for {len(names)} outputs ({', '.join(names)}); "
            "pass a list or a dict")
    return [out]


class Model:
    """A loaded model .so (graphc.load). Immutable and shared by threads:
    run() uses one session per thread; session() makes an explicit one."""

    def __init__(self, loaded, device, session_flags):
        self._loaded = loaded
        self._session_flags = session_flags
        self.path = loaded.path
        self.target = loaded.target
        self.producer = loaded.producer
        self.device = device
        self.inputs = loaded.inputs
        self.outputs = loaded.outputs
        # One per shape bucket (combination of bucketed dim sizes).
        self.buckets = loaded.buckets
        self.bucket_dims = loaded.bucket_dims
        self._local = threading.local()

    def _loaded_or_raise(self):
        if self._loaded is None:
            raise GraphcError("failed_precondition",
                              f"model {self.path} is closed")
        return self._loaded

    def session(self, device=None):
        """A new session on `device` (default: the model's)."""
        loaded = self._loaded_or_raise()
        device = self.device if device is None else Device.parse(device)
        _check_device(loaded, device)
        return Session(loaded, device, self._session_flags)

    def run(self, *inputs, out=None, stream=None, **named_inputs):
        """Runs the model on this thread's session.

        Inputs: model.run(x) or model.run(x, bias) in model order, a list,
        a dict {name: tensor}, or model.run(x=..., bias=...). A tensor is a
        numpy array or any object with __dlpack__ on the model's device
        (cuda models also take host arrays, copied to the device).

        Returns a list of graphc.Tensor in model order, or, with `out` (one
        tensor, a list in model order or a dict by name), the tensors of
        `out`, written in place. With `stream` (cuda: a CUstream handle or a
        torch/CuPy stream) the run is ordered on that stream and returns once
        queued; without it, the run is complete when run() returns.

        An output with data-dependent dims (TensorInfo.data_dependent) is
        allocated (or, with `out`, must be given) at its bounds
        (Bucket.output_shapes); the run writes its result into the leading
        corner, and run() returns that corner, a view of the bounds' memory
        (a graphc.Tensor of the bounds' strides, or a slice of the `out`
        tensor). Its shape is only known once the run has finished, so such
        a model's run() waits for the run, `stream` or not.
        """
        loaded = self._loaded_or_raise()
        session = getattr(self._local, "session", None)
        if session is None:
            session = Session(loaded, self.device, self._session_flags)
            self._local.session = session
        return session.run(*inputs, out=out, stream=stream, **named_inputs)

    def close(self):
        """Drops the model's own references: the C model is released now,
        or when the last session or output tensor using it goes."""
        self._loaded = None
        self._local = threading.local()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return (f"graphc.Model({self.path!r}, target={self.target!r}, "
                f"inputs={self.inputs}, outputs={self.outputs})")


def _check_device(loaded, device):
    if device.type != loaded.target:
        raise InvalidArgumentError(
            f"{loaded.path} is a {loaded.target} model; it cannot run on "
            f"device {device}")


def load(path, *, device=None, cuda_graphs=True, verify_checksum=True,
         weights_path=None, inspect_only=False):
    """Loads a model .so written by `graphc compile`.

    device: where sessions run ("cpu", "cuda", "cuda:N", an ordinal or a
    torch.device); default: the cpu for cpu models, cuda:0 for cuda ones.
    cuda_graphs=False launches the steps one by one instead of replaying a
    captured CUDA graph (no effect on cpu models). weights_path: a weights
    side file to use instead of the artifact's. inspect_only=True reads the
    descriptor without touching the CUDA driver (a cuda model can be
    inspected without a GPU); such a model cannot run.
    """
    requested = None if device is None else Device.parse(device)
    flags = 0 if verify_checksum else _capi.GRAPHC_MODEL_SKIP_CHECKSUM
    if inspect_only:
        flags |= _capi.GRAPHC_MODEL_INSPECT_ONLY
    loaded = _LoadedModel(path, requested if requested and
                          requested.type == "cuda" else None, flags,
                          weights_path)
    device = requested or Device(loaded.target, 0)
    _check_device(loaded, device)
    session_flags = (0 if cuda_graphs else
                     _capi.GRAPHC_SESSION_DISABLE_CUDA_GRAPHS)
    return Model(loaded, device, session_flags)
