"""DLPack capsules without a C extension: borrowing a producer's DLTensor
and exporting graphc's own tensors (DLPack 0.8 unversioned "dltensor"
capsules, which every consumer accepts).
"""
import ctypes
import itertools
import threading

from . import _capi

# The capsule name must outlive every capsule: a module constant does.
_DLTENSOR = b"dltensor"

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                               ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
# The destructor gets a borrowed pointer to a capsule being destroyed, so it
# must not be turned into a Python object (that would revive it).
_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                  ctypes.c_char_p)(
                                      ("PyCapsule_IsValid", _api))
_get_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p,
                                     ctypes.c_char_p)(
                                         ("PyCapsule_GetPointer", _api))

_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_capi.DLManagedTensor))
_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

# Exported DLManagedTensors by manager_ctx: the ctypes structures and the
# owner of the memory, kept until the consumer calls the deleter.
_exports = {}
_exports_lock = threading.Lock()
_next_key = itertools.count(1)


def _release_export(managed):
    with _exports_lock:
        _exports.pop(managed.contents.manager_ctx, None)


_deleter = _Deleter(_release_export)


def _destroy_capsule(capsule):
    # A capsule nobody consumed still owns its tensor; a consumed one was
    # renamed "used_dltensor" and its consumer calls the deleter.
    if _is_valid_raw(capsule, _DLTENSOR):
        pointer = _get_pointer_raw(capsule, _DLTENSOR)
        _release_export(ctypes.cast(pointer,
                                    ctypes.POINTER(_capi.DLManagedTensor)))


_capsule_destructor = _CapsuleDestructor(_destroy_capsule)


def compact_strides(shape):
    """The element strides of a compact row-major tensor of `shape`."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return tuple(strides)


def export(owner, data, device, dtype, shape, strides=None):
    """A "dltensor" capsule over `data` (compact row-major, or of these
    element strides) that keeps `owner` alive until the consumer is done
    with it."""
    ndim = len(shape)
    c_shape = (ctypes.c_int64 * max(ndim, 1))(*shape)
    if strides is None:
        strides = compact_strides(shape)
    c_strides = (ctypes.c_int64 * max(ndim, 1))(*strides)
    managed = _capi.DLManagedTensor()
    managed.dl_tensor = _capi.DLTensor(data, device, ndim, dtype, c_shape,
                                       c_strides, 0)
    key = next(_next_key)
    managed.manager_ctx = key
    managed.deleter = _deleter
    with _exports_lock:
        _exports[key] = (managed, c_shape, c_strides, owner)
    return _api.PyCapsule_New(ctypes.addressof(managed), _DLTENSOR,
                              ctypes.cast(_capsule_destructor,
                                          ctypes.c_void_p))


def live_exports():
    """How many exported capsules are still held (for tests)."""
    with _exports_lock:
        return len(_exports)


class Borrowed:
    """The DLTensor of a producer's capsule, valid while this object lives.

    The capsule is never renamed "used_dltensor": it keeps ownership, and
    its own destructor calls the producer's deleter when this object dies.
    """

    def __init__(self, capsule):
        if not _api.PyCapsule_IsValid(capsule, _DLTENSOR):
            raise TypeError("__dlpack__ did not return a 'dltensor' capsule")
        self.capsule = capsule
        pointer = _api.PyCapsule_GetPointer(capsule, _DLTENSOR)
        self.managed = ctypes.cast(
            pointer, ctypes.POINTER(_capi.DLManagedTensor)).contents
        self.tensor = self.managed.dl_tensor
