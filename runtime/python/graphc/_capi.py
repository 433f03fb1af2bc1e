"""ctypes declarations of runtime/include/graphc/runtime.h.

Kept in one place so the structure layouts can be checked against the header
side by side. Nothing here is public API.
"""
import ctypes
import os

GRAPHC_TARGET_CPU = 0
GRAPHC_TARGET_CUDA = 1
GRAPHC_MODEL_SKIP_CHECKSUM = 1 << 0
GRAPHC_MODEL_INSPECT_ONLY = 1 << 1
GRAPHC_SESSION_DISABLE_CUDA_GRAPHS = 1 << 1

KDL_CPU = 1
KDL_CUDA = 2
KDL_INT, KDL_UINT, KDL_FLOAT, KDL_BFLOAT, KDL_COMPLEX, KDL_BOOL = 0, 1, 2, 4, 5, 6
# DLPack 1.1's 8-bit floats.
(KDL_FLOAT8_E4M3FN, KDL_FLOAT8_E4M3FNUZ, KDL_FLOAT8_E5M2,
 KDL_FLOAT8_E5M2FNUZ) = 10, 11, 12, 13


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor)))]


class ModelOptions(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint32), ("device_ordinal", ctypes.c_int32),
                ("weights_path", ctypes.c_char_p)]


class SessionOptions(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint32), ("device_ordinal", ctypes.c_int32)]


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("dims", ctypes.POINTER(ctypes.c_int64)),
                ("dim_names", ctypes.POINTER(ctypes.c_char_p)),
                ("pad_value", ctypes.c_double),
                ("data_dependent", ctypes.POINTER(ctypes.c_int32))]


class BucketDimInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("num_sizes", ctypes.c_int32),
                ("sizes", ctypes.POINTER(ctypes.c_int64)),
                ("pad_safe", ctypes.c_int32), ("splittable", ctypes.c_int32),
                ("node", ctypes.c_char_p), ("reason", ctypes.c_char_p),
                ("output_axes", ctypes.POINTER(ctypes.c_int32))]


class PlanInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("arena_bytes", ctypes.c_uint64),
                ("intermediate_bytes", ctypes.c_uint64),
                ("num_steps", ctypes.c_int32),
                ("input_dims", ctypes.POINTER(ctypes.POINTER(ctypes.c_int64))),
                ("output_dims", ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)))]


class KernelInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_char_p),
                ("onnx_nodes", ctypes.c_char_p), ("content_hash", ctypes.c_uint64)]


class LibraryKernelInfo(ctypes.Structure):
    _fields_ = [("library", ctypes.c_int32), ("fused", ctypes.c_int32),
                ("rank", ctypes.c_int32), ("requested_rank", ctypes.c_int32),
                ("workspace_bytes", ctypes.c_uint64)]


LIBRARY_NAME = "libgraphc_runtime.so"


def _find_library():
    # An installed package carries the library beside its modules. The
    # variable lets tests and tools run the package from the source tree
    # against a library in a build directory.
    explicit = os.environ.get("GRAPHC_RUNTIME_LIBRARY")
    if explicit:
        return explicit
    beside = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          LIBRARY_NAME)
    if os.path.exists(beside):
        return beside
    raise ImportError(f"graphc: {LIBRARY_NAME} is not beside the package in "
                      f"{os.path.dirname(beside)}; install the package with "
                      "pip (it carries the library) or, in a source tree, set "
                      "GRAPHC_RUNTIME_LIBRARY to the built library")


_library = None


def library():
    """The runtime library with its signatures declared, loaded once."""
    global _library
    if _library is None:
        _library = _load_library()
    return _library


def _load_library():
    lib = ctypes.CDLL(_find_library())
    status = ctypes.c_void_p
    model = ctypes.c_void_p
    session = ctypes.c_void_p
    signatures = {
        "graphc_status_code": (ctypes.c_int, [status]),
        "graphc_status_message": (ctypes.c_char_p, [status]),
        "graphc_status_free": (None, [status]),
        "graphc_code_name": (ctypes.c_char_p, [ctypes.c_int]),
        "graphc_model_options_init": (None, [ctypes.POINTER(ModelOptions)]),
        "graphc_model_load": (status, [ctypes.c_char_p,
                                       ctypes.POINTER(ModelOptions),
                                       ctypes.POINTER(model)]),
        "graphc_model_release": (None, [model]),
        "graphc_model_target": (ctypes.c_int, [model]),
        "graphc_model_producer": (ctypes.c_char_p, [model]),
        "graphc_model_input_count": (ctypes.c_int32, [model]),
        "graphc_model_output_count": (ctypes.c_int32, [model]),
        "graphc_model_plan_count": (ctypes.c_int32, [model]),
        "graphc_model_kernel_count": (ctypes.c_int32, [model]),
        "graphc_model_kernel_info": (status, [model, ctypes.c_int32,
                                              ctypes.POINTER(KernelInfo)]),
        "graphc_model_bucket_dim_count": (ctypes.c_int32, [model]),
        "graphc_model_bucket_dim_info": (status, [
            model, ctypes.c_int32, ctypes.POINTER(BucketDimInfo)]),
        "graphc_model_input_info": (status, [model, ctypes.c_int32,
                                             ctypes.POINTER(TensorInfo)]),
        "graphc_model_output_info": (status, [model, ctypes.c_int32,
                                              ctypes.POINTER(TensorInfo)]),
        "graphc_model_plan_info": (status, [model, ctypes.c_int32,
                                            ctypes.POINTER(PlanInfo)]),
        "graphc_model_select_plan": (status, [
            model, ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p),
            ctypes.POINTER(ctypes.c_int32),
            ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)),
            ctypes.POINTER(ctypes.c_int32)]),
        "graphc_model_output_dims": (status, [
            model, ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p),
            ctypes.POINTER(ctypes.c_int32),
            ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)),
            ctypes.POINTER(ctypes.POINTER(ctypes.c_int64))]),
        "graphc_dtype_name": (ctypes.c_char_p, [ctypes.c_int32]),
        "graphc_dtype_size": (ctypes.c_size_t, [ctypes.c_int32]),
        "graphc_dtype_bytes": (ctypes.c_uint64, [ctypes.c_int32,
                                                 ctypes.c_uint64]),
        "graphc_session_options_init": (None, [ctypes.POINTER(SessionOptions)]),
        "graphc_session_create": (status, [model,
                                           ctypes.POINTER(SessionOptions),
                                           ctypes.POINTER(session)]),
        "graphc_session_release": (None, [session]),
        "graphc_session_run": (status, [
            session, ctypes.POINTER(DLTensor), ctypes.c_int32,
            ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(DLTensor),
            ctypes.c_int32]),
        "graphc_session_run_on_stream": (status, [
            session, ctypes.POINTER(DLTensor), ctypes.c_int32,
            ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(DLTensor),
            ctypes.c_int32, ctypes.c_void_p]),
        "graphc_session_run_batch": (status, [
            session, ctypes.c_int32,
            ctypes.POINTER(ctypes.POINTER(DLTensor)), ctypes.c_int32,
            ctypes.POINTER(ctypes.c_char_p),
            ctypes.POINTER(ctypes.POINTER(DLTensor)), ctypes.c_int32,
            ctypes.c_void_p]),
        "graphc_session_allocate_buffer": (status, [
            session, ctypes.c_uint64, ctypes.POINTER(ctypes.c_void_p)]),
        "graphc_session_free_buffer": (None, [session, ctypes.c_void_p]),
        "graphc_session_upload": (status, [session, ctypes.c_void_p,
                                           ctypes.c_void_p, ctypes.c_uint64]),
        "graphc_session_download": (status, [session, ctypes.c_void_p,
                                             ctypes.c_void_p, ctypes.c_uint64]),
        "graphc_session_synchronize": (status, [session]),
        "graphc_session_output_dims": (status, [
            session, ctypes.c_int32, ctypes.POINTER(ctypes.c_int64)]),
        "graphc_session_library_kernel_info": (status, [
            session, ctypes.c_int32, ctypes.POINTER(LibraryKernelInfo)]),
        "graphc_session_library_kernel_note": (status, [
            session, ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p)]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib
