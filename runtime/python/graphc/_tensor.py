"""Dtypes, devices and graphc.Tensor, the DLPack tensor that owns an output."""
import ctypes

import numpy as np

from . import _capi, _dlpack
from ._errors import GraphcError, InvalidArgumentError, check

# ONNX dtype number -> (DLPack type code, bits).
_ONNX_TO_DLPACK = {
    1: (_capi.KDL_FLOAT, 32), 2: (_capi.KDL_UINT, 8), 3: (_capi.KDL_INT, 8),
    4: (_capi.KDL_UINT, 16), 5: (_capi.KDL_INT, 16), 6: (_capi.KDL_INT, 32),
    7: (_capi.KDL_INT, 64), 9: (_capi.KDL_BOOL, 8), 10: (_capi.KDL_FLOAT, 16),
    11: (_capi.KDL_FLOAT, 64), 12: (_capi.KDL_UINT, 32),
    13: (_capi.KDL_UINT, 64), 14: (_capi.KDL_COMPLEX, 64),
    15: (_capi.KDL_COMPLEX, 128), 16: (_capi.KDL_BFLOAT, 16),
    17: (_capi.KDL_FLOAT8_E4M3FN, 8), 18: (_capi.KDL_FLOAT8_E4M3FNUZ, 8),
    19: (_capi.KDL_FLOAT8_E5M2, 8), 20: (_capi.KDL_FLOAT8_E5M2FNUZ, 8),
    21: (_capi.KDL_UINT, 4), 22: (_capi.KDL_INT, 4),
}


def _bits_dtype(base, name):
    """A numpy dtype holding the raw bits of a type numpy lacks, as
    onnx.numpy_helper.to_array represents it (onnx._custom_element_types):
    `base` with one field `name`. Equal to onnx's dtype, so arrays pass
    between the two as they are."""
    return np.dtype((base, {name: (base, 0)}))


# The types numpy lacks (bfloat16, the 8-bit floats), by ONNX dtype number:
# (the raw-bits dtype graphc returns, ml_dtypes' name for the type, which
# graphc also takes on input).
_BITS_DTYPES = {
    16: (_bits_dtype(np.uint16, "bfloat16"), "bfloat16"),
    17: (_bits_dtype(np.uint8, "e4m3fn"), "float8_e4m3fn"),
    18: (_bits_dtype(np.uint8, "e4m3fnuz"), "float8_e4m3fnuz"),
    19: (_bits_dtype(np.uint8, "e5m2"), "float8_e5m2"),
    20: (_bits_dtype(np.uint8, "e5m2fnuz"), "float8_e5m2fnuz"),
}

# uint4 and int4 (ONNX 21, 22), packed two a byte in graphc's tensors (the
# first element in the low nibble, DLPack bits 4): numpy sees them unpacked,
# one element a byte, in the dtypes onnx.numpy_helper.to_array gives them
# (onnx._custom_element_types: uint8 or int8 with one field "uint4" or
# "int4"); ml_dtypes' uint4 and int4 (one a byte too) are taken on input.
# By ONNX dtype number: (that dtype, ml_dtypes' name, the value range).
FOUR_BIT_DTYPES = {
    21: (_bits_dtype(np.uint8, "uint4"), "uint4", (0, 15)),
    22: (_bits_dtype(np.int8, "int4"), "int4", (-8, 7)),
}

# ONNX dtype number -> numpy dtype.
NUMPY_DTYPES = {
    1: np.dtype(np.float32), 2: np.dtype(np.uint8), 3: np.dtype(np.int8),
    4: np.dtype(np.uint16), 5: np.dtype(np.int16), 6: np.dtype(np.int32),
    7: np.dtype(np.int64), 9: np.dtype(np.bool_), 10: np.dtype(np.float16),
    11: np.dtype(np.float64), 12: np.dtype(np.uint32),
    13: np.dtype(np.uint64), 14: np.dtype(np.complex64),
    15: np.dtype(np.complex128),
    **{onnx_dtype: bits for onnx_dtype, (bits, _) in _BITS_DTYPES.items()},
    **{onnx_dtype: unpacked
       for onnx_dtype, (unpacked, _, _) in FOUR_BIT_DTYPES.items()},
}
_NUMPY_KIND_TO_DLPACK = {"f": _capi.KDL_FLOAT, "i": _capi.KDL_INT,
                         "u": _capi.KDL_UINT, "b": _capi.KDL_BOOL,
                         "c": _capi.KDL_COMPLEX}


def dlpack_dtype(onnx_dtype):
    code, bits = _ONNX_TO_DLPACK[onnx_dtype]
    return _capi.DLDataType(code, bits, 1)


def bits_onnx_dtype(dtype):
    """The ONNX dtype number of a numpy dtype that holds a type numpy lacks
    (onnx's raw-bits dtype or ml_dtypes' type), else None."""
    for onnx_dtype, (bits, ml_name) in _BITS_DTYPES.items():
        # numpy finds onnx's dtypes equal to their plain base (uint8 ==
        # e4m3fn's): the field name is what tells them apart.
        if ((dtype.names == bits.names and dtype == bits) or
                (dtype.names is None and dtype.name == ml_name and
                 dtype.itemsize == bits.itemsize)):
            return onnx_dtype
    return None


def four_bit_onnx_dtype(dtype):
    """21 (uint4) or 22 (int4) for a numpy dtype holding 4-bit values one a
    byte (onnx's dtype or ml_dtypes' type), else None."""
    for onnx_dtype, (unpacked, ml_name, _) in FOUR_BIT_DTYPES.items():
        if ((dtype.names == unpacked.names and dtype == unpacked) or
                (dtype.names is None and dtype.name == ml_name and
                 dtype.itemsize == 1)):
            return onnx_dtype
    return None


def pack_four_bit(array, onnx_dtype, label):
    """The values of `array` (4-bit ones held one a byte) packed as graphc
    and ONNX lay them out: two a byte, the first in the low nibble, a last
    half byte for an odd count. A value out of the type's range is refused
    (packing would keep only its low bits)."""
    _, name, (low, high) = FOUR_BIT_DTYPES[onnx_dtype]
    values = np.ascontiguousarray(array).view(
        np.int8 if onnx_dtype == 22 else np.uint8).reshape(-1)
    if values.size and (values.min() < low or values.max() > high):
        raise InvalidArgumentError(
            f"input '{label}': {name} values lie in [{low}, {high}]; the "
            f"array holds {int(values.min())} to {int(values.max())}")
    nibbles = values.astype(np.uint8) & 0xF
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return nibbles[0::2] | (nibbles[1::2] << 4)


def unpack_four_bit(packed, count, onnx_dtype):
    """`count` elements of packed 4-bit bytes, one a byte in onnx's dtype
    (int4 sign-extended)."""
    nibbles = np.empty(2 * packed.size, np.uint8)
    nibbles[0::2] = packed & 0xF
    nibbles[1::2] = packed >> 4
    values = nibbles[:count]
    if onnx_dtype == 22:
        values = ((values ^ 8).astype(np.int8) - 8).astype(np.int8)
    return values.view(FOUR_BIT_DTYPES[onnx_dtype][0])


def numpy_dlpack_dtype(dtype):
    """The DLDataType of a numpy dtype, or None when DLPack has none."""
    onnx_dtype = bits_onnx_dtype(dtype)
    if onnx_dtype is not None:
        return dlpack_dtype(onnx_dtype)
    if dtype.names is not None:
        return None  # another structured dtype (onnx's int4, a record)
    code = _NUMPY_KIND_TO_DLPACK.get(dtype.kind)
    if code is None:
        return None
    return _capi.DLDataType(code, dtype.itemsize * 8, 1)


class Device:
    """Where tensors live: `type` is "cpu" or "cuda", `index` the ordinal."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=0):
        self.type = type
        self.index = index

    @classmethod
    def parse(cls, value):
        """"cpu", "cuda", "cuda:N", an ordinal N (cuda), a Device, or an
        object with `type` and `index` (torch.device)."""
        if isinstance(value, Device):
            return value
        if isinstance(value, bool):
            raise InvalidArgumentError(f"device {value!r} is not a device")
        if isinstance(value, int):
            if value < 0:
                raise InvalidArgumentError(
                    f"device ordinal {value} is negative")
            return cls("cuda", value)
        if isinstance(value, str):
            kind, _, index = value.partition(":")
            if kind in ("cpu", "cuda") and (not index or index.isdigit()):
                if kind == "cpu" and index not in ("", "0"):
                    raise InvalidArgumentError(
                        f"device {value!r}: the cpu has no ordinal but 0")
                return cls(kind, int(index) if index else 0)
            raise InvalidArgumentError(
                f"device {value!r} is not 'cpu', 'cuda' or 'cuda:N'")
        kind = getattr(value, "type", None)
        if kind in ("cpu", "cuda"):
            index = getattr(value, "index", None)
            return cls(kind, index or 0)
        raise InvalidArgumentError(f"device {value!r} is not a device")

    def dlpack(self):
        return (_capi.KDL_CUDA if self.type == "cuda" else _capi.KDL_CPU,
                self.index)

    def __eq__(self, other):
        return (isinstance(other, Device) and self.type == other.type and
                self.index == other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.type == "cpu" else f"cuda:{self.index}"

    def __repr__(self):
        return f"graphc.Device({str(self)!r})"


class Buffer:
    """Memory from graphc_session_allocate_buffer, freed when the last
    reference goes; it keeps its session (and so the model) alive."""

    def __init__(self, session_handle, nbytes):
        self.session_handle = session_handle
        self.nbytes = nbytes
        pointer = ctypes.c_void_p()
        check(_capi.library().graphc_session_allocate_buffer(
            session_handle.pointer, nbytes, ctypes.byref(pointer)))
        self.pointer = pointer.value

    def __del__(self):
        pointer, self.pointer = getattr(self, "pointer", None), None
        if pointer:
            _capi.library().graphc_session_free_buffer(
                self.session_handle.pointer, pointer)


def _element_count(shape):
    count = 1
    for dim in shape:
        count *= dim
    return count


def _is_compact(shape, strides):
    """Whether element `strides` lay `shape` out dense and row-major (a dim
    of one element, or an empty tensor, is dense whatever its stride)."""
    if _element_count(shape) == 0:
        return True
    expected = 1
    for dim, stride in zip(reversed(shape), reversed(strides)):
        if dim != 1 and stride != expected:
            return False
        expected *= dim
    return True


class Tensor:
    """A model output: row-major memory on the model's device, owned by this
    object (and by every consumer that took it through DLPack).

    np.from_dlpack(t) and torch.from_dlpack(t) share the memory without a
    copy; np.asarray(t) and t.numpy() do too on the cpu. The tensor keeps the
    session and the model that made it alive, so it may outlive both.

    An output with data-dependent dims (TensorInfo.data_dependent) is the
    leading corner of a buffer of its bounds, where the run wrote it: its
    `shape` is what the run found and its `strides` those of the bounds
    (`contiguous` is False unless they agree), shared without a copy as
    well; numpy() on cuda and graphc.triton copy just the corner.
    """

    def __init__(self, session, onnx_dtype, shape, ready_stream=None):
        self._session = session  # a _model._SessionHandle
        self.shape = tuple(int(d) for d in shape)
        self.onnx_dtype = onnx_dtype
        self.dtype = NUMPY_DTYPES.get(onnx_dtype)
        self.dtype_name = _capi.library().graphc_dtype_name(onnx_dtype).decode()
        self.device = session.device
        self._itemsize = _capi.library().graphc_dtype_size(onnx_dtype)
        # Dense bytes (4-bit dtypes, of item size 0, two elements a byte).
        self.nbytes = _capi.library().graphc_dtype_bytes(
            onnx_dtype, _element_count(self.shape))
        self._buffer = Buffer(session, self.nbytes)
        # Where this tensor starts in the buffer (a slice of another tensor
        # shares its buffer).
        self._offset = 0
        # Element strides of a view that is not dense (the corner of a
        # data-dependent output); None when dense row-major.
        self._strides = None
        # cuda: the stream the producing run was ordered on, None once the
        # data is known to be complete.
        self._ready_stream = ready_stream

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def data_ptr(self):
        return self._buffer.pointer + self._offset

    @property
    def strides(self):
        """Element strides: row-major ones of `shape`, or those of the
        bounds of a data-dependent output's buffer."""
        if self._strides is None:
            return _dlpack.compact_strides(self.shape)
        return self._strides

    @property
    def contiguous(self):
        """Whether the tensor is dense row-major memory."""
        return self._strides is None

    def _view(self, shape, offset, strides):
        """A tensor sharing this one's buffer: `shape` at element `strides`
        from byte `offset` of the buffer."""
        view = Tensor.__new__(Tensor)
        view.__dict__.update(self.__dict__)
        view.shape = tuple(int(d) for d in shape)
        view._offset = offset
        view._strides = None if _is_compact(view.shape, strides) else tuple(
            strides)
        view.nbytes = _element_count(view.shape) * self._itemsize
        return view

    def _corner(self, dims):
        """The leading corner `dims` of this tensor, sharing its memory: a
        data-dependent output as its run found it
        (graphc_session_output_dims)."""
        return self._view(dims, self._offset, self.strides)

    def _span(self):
        """Elements from the first to one past the last (a strided view's
        span in its buffer)."""
        if _element_count(self.shape) == 0:
            return 0
        return 1 + sum((dim - 1) * stride
                       for dim, stride in zip(self.shape, self.strides))

    def __getitem__(self, key):
        """t[a:b]: rows a to b-1 along the first axis, sharing the memory
        (no copy on any device). Serving code splits a batched run's
        outputs into per-request tensors this way."""
        if not isinstance(key, slice):
            raise TypeError("graphc tensors take slices of the first axis "
                            f"only (t[a:b]), not {type(key).__name__}")
        if not self.shape:
            raise TypeError("a 0-d tensor cannot be sliced")
        if self.onnx_dtype in FOUR_BIT_DTYPES:
            # Rows of packed 4-bit elements need not start on a byte.
            raise TypeError(f"a {self.dtype_name} tensor cannot be sliced")
        start, stop, step = key.indices(self.shape[0])
        if step != 1:
            raise ValueError(f"a slice of a graphc tensor has step 1, not {step}")
        stop = max(start, stop)
        strides = self.strides
        return self._view((stop - start,) + self.shape[1:],
                          self._offset + start * strides[0] * self._itemsize,
                          strides)

    def dltensor(self):
        """A DLTensor over the memory (for the runtime's outputs); the
        runtime refuses one that is not dense."""
        shape = (ctypes.c_int64 * max(self.ndim, 1))(*self.shape)
        strides = None
        if self._strides is not None:
            strides = (ctypes.c_int64 * max(self.ndim, 1))(*self._strides)
        tensor = _capi.DLTensor(self.data_ptr,
                                _capi.DLDevice(*self.device.dlpack()),
                                self.ndim, dlpack_dtype(self.onnx_dtype),
                                shape, strides, 0)
        return tensor, (shape, strides)

    def __dlpack_device__(self):
        return self.device.dlpack()

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        """DLPack export. `stream` is the consumer's stream (cuda: an
        integer, 1 the legacy default stream, -1 for no synchronisation);
        when the data was produced on another stream, the call waits for it.
        """
        del max_version  # the unversioned capsule suits every version
        if dl_device is not None and tuple(dl_device) != self.device.dlpack():
            raise BufferError(f"graphc tensor is on {self.device}; cannot "
                              f"export it to device {tuple(dl_device)}")
        if copy:
            raise BufferError("graphc tensors are exported without a copy")
        if self.device.type == "cpu":
            if stream is not None:
                raise BufferError("a cpu tensor takes no stream "
                                  f"(got {stream!r})")
        else:
            self._wait_for(stream)
        return _dlpack.export(self, self.data_ptr,
                              _capi.DLDevice(*self.device.dlpack()),
                              dlpack_dtype(self.onnx_dtype), self.shape,
                              self._strides)

    def _wait_for(self, consumer_stream):
        if self._ready_stream is None or consumer_stream == -1:
            return
        consumer = 1 if consumer_stream in (None, 0) else consumer_stream
        if consumer == self._ready_stream:
            return
        self._session.synchronize()
        self._ready_stream = None

    def numpy(self):
        """The data as a numpy array: a view on the cpu, a copy from cuda.
        bfloat16 and the 8-bit floats come as their bits (a copy) in onnx's
        dtypes, uint4 and int4 unpacked, one element a byte (a copy), in
        onnx's dtypes: see the package docstring."""
        if self.dtype is None:
            raise GraphcError("unimplemented",
                              f"a {self.dtype_name} tensor has no numpy dtype")
        if self.onnx_dtype in FOUR_BIT_DTYPES:
            return self._unpacked()
        if self.device.type == "cpu" and self.onnx_dtype not in _BITS_DTYPES:
            return np.from_dlpack(self)
        # The elements the tensor spans (its own, and for a corner the rest
        # of the bounds' rows between them), then a dense copy of its own.
        # numpy takes no DLPack bfloat16 or fp8: a copy of the bits.
        array = self._copied_into(np.empty(self._span(), self.dtype))
        if self._strides is None:
            return array.reshape(self.shape)
        return np.lib.stride_tricks.as_strided(
            array, self.shape,
            [stride * self._itemsize for stride in self._strides]).copy()

    def _copied_into(self, array):
        """`array` (host) filled with the array.nbytes bytes at the tensor's
        data pointer; a download on cuda is ordered after every run of the
        session."""
        if self.device.type == "cpu":
            ctypes.memmove(array.ctypes.data, self.data_ptr, array.nbytes)
        else:
            check(_capi.library().graphc_session_download(
                self._session.pointer, array.ctypes.data, self.data_ptr,
                array.nbytes))
        return array

    def _unpacked(self):
        """A 4-bit tensor's elements one a byte (a copy): numpy has no
        packed 4-bit dtype. Such tensors are dense (static dims)."""
        packed = self._copied_into(np.empty(self.nbytes, np.uint8))
        return unpack_four_bit(packed, _element_count(self.shape),
                               self.onnx_dtype).reshape(self.shape)

    def __array__(self, dtype=None, copy=None):
        if self.device.type != "cpu":
            raise TypeError(f"a tensor on {self.device} is not converted "
                            "implicitly; call .numpy() for a host copy")
        array = self.numpy()
        if copy:
            array = array.copy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __repr__(self):
        dims = ",".join(str(d) for d in self.shape)
        return f"graphc.Tensor({self.dtype_name}[{dims}], device='{self.device}')"
