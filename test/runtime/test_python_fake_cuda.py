"""The graphc Python package's cuda paths on the fake CUDA driver.

Usage: test_python_fake_cuda.py MODEL_DIR, with PYTHONPATH reaching
runtime/python, GRAPHC_RUNTIME_LIBRARY naming libgraphc_runtime.so and
GRAPHC_CUDA_DRIVER_LIBRARY the fake driver (test/runtime/fake_cuda), which
ctest sets.

extent_model_cuda (models/extent_model.c): kept: float32[n] and where:
int64[2,n] for x: float32[2,4], n decided by each run (keep the positive
elements); its kernel, keep_positive_8, is registered with the fake driver
here, computing what models/extent_kernel.h computes. The outputs come back
as corners of device buffers of the bounds: their DLPack views carry the
bounds' strides, numpy() copies the corner alone, and out= arrays come back
cut.
"""
import ctypes
import os
import sys
import unittest

import numpy as np

import graphc
from graphc import _dlpack

MODEL_DIR = sys.argv.pop(1) if len(sys.argv) > 1 else ""
FAKE = ctypes.CDLL(os.environ["GRAPHC_CUDA_DRIVER_LIBRARY"])


class Launch(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_char_p), ("grid", ctypes.c_uint * 3),
                ("block", ctypes.c_uint * 3),
                ("params", ctypes.POINTER(ctypes.c_void_p))]


def pointer_param(launch, index):
    """Parameter `index` of a launch, a device pointer (host memory here)."""
    return ctypes.cast(launch.contents.params[index],
                       ctypes.POINTER(ctypes.c_void_p)).contents.value


@ctypes.CFUNCTYPE(None, ctypes.POINTER(Launch))
def keep_positive_8(launch):
    x = np.ctypeslib.as_array((ctypes.c_float * 8).from_address(
        pointer_param(launch, 0)))
    kept = np.ctypeslib.as_array((ctypes.c_float * 8).from_address(
        pointer_param(launch, 1)))
    where = np.ctypeslib.as_array((ctypes.c_int64 * 16).from_address(
        pointer_param(launch, 2)))
    count = ctypes.c_int64.from_address(pointer_param(launch, 3))
    found = np.flatnonzero(x > 0)
    kept[:] = 0
    where[:] = 0
    kept[:len(found)] = x[found]
    where[:len(found)] = found // 4
    where[8:8 + len(found)] = found % 4
    count.value = len(found)


FAKE.fakecu_register_kernel.argtypes = [
    ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int,
    ctypes.POINTER(ctypes.c_uint)]
FAKE.fakecu_register_kernel(
    b"keep_positive_8", ctypes.cast(keep_positive_8, ctypes.c_void_p), 4,
    (ctypes.c_uint * 4)(8, 8, 8, 8))
FAKE.cuStreamCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                ctypes.c_uint]
FAKE.cuStreamDestroy_v2.argtypes = [ctypes.c_void_p]
FAKE.cuDevicePrimaryCtxRetain.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                          ctypes.c_int]
FAKE.cuCtxPushCurrent_v2.argtypes = [ctypes.c_void_p]
FAKE.cuCtxPopCurrent_v2.argtypes = [ctypes.POINTER(ctypes.c_void_p)]


def keep_positive(x):
    flat = x.reshape(-1)
    found = np.flatnonzero(flat > 0)
    return flat[found], np.stack([found // 4, found % 4]).astype(np.int64)


CASES = [np.array([[1, -2, 3, 0], [-5, 6, 7, -8]], np.float32),
         np.full((2, 4), -1, np.float32),
         np.arange(1, 9, dtype=np.float32).reshape(2, 4)]


class FakeCudaDataDependentTest(unittest.TestCase):
    def setUp(self):
        self.model = graphc.load(os.path.join(MODEL_DIR,
                                              "extent_model_cuda.so"),
                                 device="cuda:0", verify_checksum=False)

    def tearDown(self):
        self.model.close()

    def check(self, outputs, x):
        want_kept, want_where = keep_positive(x)
        for got, want in zip(outputs, (want_kept, want_where)):
            array = got.numpy() if isinstance(got, graphc.Tensor) else got
            self.assertEqual(array.shape, want.shape)
            np.testing.assert_array_equal(array, want)

    def test_device_outputs_are_corners_of_the_bounds(self):
        for x in CASES:
            kept, where = self.model.run(x)
            self.assertEqual(kept.device, graphc.Device("cuda", 0))
            self.check((kept, where), x)
            n = kept.shape[0]
            self.assertEqual(where.shape, (2, n))
            if 0 < n < 8:
                # The DLPack view is the run's memory at the bounds' strides.
                self.assertFalse(where.contiguous)
                borrowed = _dlpack.Borrowed(where.__dlpack__(stream=-1))
                self.assertEqual(borrowed.tensor.data, where.data_ptr)
                self.assertEqual(
                    [borrowed.tensor.strides[d] for d in range(2)], [8, 1])
                self.assertEqual(
                    [borrowed.tensor.shape[d] for d in range(2)], [2, n])

    def test_out_arrays_stream_runs_and_batches_of_one(self):
        x = CASES[0]
        kept = np.full(8, 99, np.float32)
        where = np.full((2, 8), 99, np.int64)
        got = self.model.run(x, out=[kept, where])
        self.check(got, x)
        self.assertTrue(np.shares_memory(got[1], where))
        # On a stream of the caller's: the run is waited for, as the
        # corners' shapes need.
        context, stream = ctypes.c_void_p(), ctypes.c_void_p()
        self.assertEqual(FAKE.cuDevicePrimaryCtxRetain(ctypes.byref(context),
                                                       0), 0)
        self.assertEqual(FAKE.cuCtxPushCurrent_v2(context), 0)
        try:
            self.assertEqual(FAKE.cuStreamCreate(ctypes.byref(stream), 1), 0)
            self.check(self.model.run(x, stream=stream.value), x)
            self.assertEqual(FAKE.cuStreamDestroy_v2(stream), 0)
        finally:
            FAKE.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
            FAKE.cuDevicePrimaryCtxRelease_v2(0)
        with self.model.session() as session:
            (outputs,) = session.run_batch([{"x": CASES[2]}])
            self.check(outputs, CASES[2])


if __name__ == "__main__":
    unittest.main()
