"""Tests of the graphc Python package on the hand-written test models.

Usage: test_python.py MODEL_DIR (PYTHONPATH must reach runtime/python and
GRAPHC_RUNTIME_LIBRARY name libgraphc_runtime.so; ctest sets both).

affine_model (cpu): y = x * [2,3,4] + bias, scaled = x * [2,3,4] for
x: float32[batch,3] (buckets batch=1 and batch=2), bias: float32[3].
batch_model (cpu): a batch dim, for Session.run_batch (RunBatchTest).
extent_model (cpu): outputs whose extent each run decides (keep the
positive elements of x: float32[2,4]), for DataDependentTest.
scale_model (cuda): y = x * [2,3,4] for x: float32[2,3]; its tests need a
CUDA device and skip, saying so, without one.
"""
import gc
import os
import sys
import threading
import unittest
import weakref

import numpy as np

import graphc
from graphc import _dlpack

MODEL_DIR = sys.argv.pop(1) if len(sys.argv) > 1 else ""
WEIGHTS = np.array([2, 3, 4], dtype=np.float32)


def model_path(name):
    return os.path.join(MODEL_DIR, name + ".so")


def affine_inputs(batch=2):
    x = np.arange(3 * batch, dtype=np.float32).reshape(batch, 3)
    bias = np.array([1, 2, 3], dtype=np.float32)
    return x, bias


class IntrospectionTest(unittest.TestCase):
    def test_inputs_outputs_and_buckets(self):
        with graphc.load(model_path("affine_model")) as model:
            self.assertEqual(model.target, "cpu")
            self.assertEqual(model.device, graphc.Device("cpu"))
            self.assertEqual([t.name for t in model.inputs], ["x", "bias"])
            x = model.inputs[0]
            self.assertEqual(x.shape, ("batch", 3))
            self.assertEqual(x.dims, (-1, 3))
            self.assertEqual(x.dim_names, ("batch", ""))
            self.assertEqual(x.dtype, np.float32)
            self.assertEqual(x.dtype_name, "float32")
            self.assertEqual(x.onnx_dtype, 1)
            self.assertEqual([t.name for t in model.outputs], ["y", "scaled"])
            self.assertEqual([b.name for b in model.buckets],
                             ["batch1", "batch2"])
            self.assertEqual(model.buckets[1].input_shapes,
                             {"x": (2, 3), "bias": (3,)})
            self.assertEqual(model.buckets[1].output_shapes["y"], (2, 3))

    def test_cuda_model_inspected_without_a_device(self):
        model = graphc.load(model_path("scale_model"), inspect_only=True)
        self.assertEqual(model.target, "cuda")
        self.assertEqual(model.device, graphc.Device("cuda", 0))
        self.assertEqual([(t.name, t.shape) for t in model.inputs],
                         [("x", (2, 3))])
        with self.assertRaises(graphc.GraphcError) as caught:
            model.run(np.zeros((2, 3), np.float32))
        self.assertIn("inspection only", str(caught.exception))


class LibraryKernelsTest(unittest.TestCase):
    """Session.library_kernels: what computes each library kernel. On cpu the
    runtime's reference GEMM and convolution compute them whole."""

    def test_cpu_library_kernels(self):
        with graphc.load(model_path("conv_model")) as model:
            with model.session() as session:
                kernels = session.library_kernels()
        self.assertEqual([k["kernel"] for k in kernels],
                         ["conv_bias_z_relu", "conv1d_relu"])
        for k in kernels:
            self.assertEqual(k["library"], "cudnn")
            self.assertIs(k["fused"], True)
            self.assertIsNone(k["rank"])
            self.assertEqual(k["requested_rank"], 0)
            self.assertEqual(k["workspace_bytes"], 0)
            self.assertIsNone(k["why_not_fused"])
        self.assertEqual(kernels[0]["onnx_nodes"], "Conv_0,Add_1,Relu_2")
        with graphc.load(model_path("gemm_model")) as model:
            kernels = model.session().library_kernels()
        # Its first kernel is generated code, not a library call.
        self.assertEqual([(k["kernel"], k["library"]) for k in kernels],
                         [("gemm_relu_bias", "cublaslt"), ("gemm_gelu_c", "cublaslt")])

    def test_no_library_kernels_and_closed_sessions(self):
        with graphc.load(model_path("affine_model")) as model:
            session = model.session()
            self.assertEqual(session.library_kernels(), [])
            session.close()
            with self.assertRaises(graphc.GraphcError) as caught:
                session.library_kernels()
            self.assertEqual(caught.exception.code, "failed_precondition")


class BitsDtypeTest(unittest.TestCase):
    """bfloat16 and the 8-bit floats pass as onnx's raw-bits dtypes (or
    ml_dtypes' types); plain integers keep their own DLPack dtype."""

    def bits(self, base, name):
        return np.dtype((base, {name: (base, 0)}))

    def test_onnx_raw_bits_dtypes(self):
        from graphc import _tensor
        cases = [(np.uint16, "bfloat16", 16, (4, 16)),
                 (np.uint8, "e4m3fn", 17, (10, 8)),
                 (np.uint8, "e4m3fnuz", 18, (11, 8)),
                 (np.uint8, "e5m2", 19, (12, 8)),
                 (np.uint8, "e5m2fnuz", 20, (13, 8))]
        for base, name, onnx_dtype, (code, bits) in cases:
            dtype = self.bits(base, name)
            self.assertEqual(_tensor.bits_onnx_dtype(dtype), onnx_dtype)
            dl = _tensor.numpy_dlpack_dtype(dtype)
            self.assertEqual((dl.code, dl.bits, dl.lanes), (code, bits, 1))
            self.assertEqual(_tensor.NUMPY_DTYPES[onnx_dtype], dtype)
            self.assertEqual(_tensor.NUMPY_DTYPES[onnx_dtype].names, (name,))
        # numpy finds uint8 equal to e4m3fn's dtype: it stays uint8.
        self.assertIsNone(_tensor.bits_onnx_dtype(np.dtype(np.uint8)))
        dl = _tensor.numpy_dlpack_dtype(np.dtype(np.uint8))
        self.assertEqual((dl.code, dl.bits), (1, 8))
        self.assertIsNone(_tensor.numpy_dlpack_dtype(self.bits(np.uint8, "other")))

    def test_ml_dtypes(self):
        try:
            import ml_dtypes
        except ImportError:
            self.skipTest("ml_dtypes is not installed")
        from graphc import _tensor
        for dtype, onnx_dtype in [(ml_dtypes.bfloat16, 16),
                                  (ml_dtypes.float8_e4m3fn, 17),
                                  (ml_dtypes.float8_e4m3fnuz, 18),
                                  (ml_dtypes.float8_e5m2, 19),
                                  (ml_dtypes.float8_e5m2fnuz, 20)]:
            self.assertEqual(_tensor.bits_onnx_dtype(np.dtype(dtype)), onnx_dtype)


class RunTest(unittest.TestCase):
    def setUp(self):
        self.model = graphc.load(model_path("affine_model"))

    def tearDown(self):
        self.model.close()

    def check(self, outputs, x, bias):
        y, scaled = outputs
        np.testing.assert_array_equal(np.from_dlpack(y), x * WEIGHTS + bias)
        np.testing.assert_array_equal(np.from_dlpack(scaled), x * WEIGHTS)

    def test_positional_forms(self):
        x, bias = affine_inputs()
        self.check(self.model.run(x, bias), x, bias)
        self.check(self.model.run([x, bias]), x, bias)
        self.check(self.model.run((x, bias)), x, bias)

    def test_named_forms(self):
        x, bias = affine_inputs(batch=1)
        self.check(self.model.run({"bias": bias, "x": x}), x, bias)
        self.check(self.model.run(bias=bias, x=x), x, bias)
        with self.assertRaises(TypeError):
            self.model.run(x, bias=bias)

    def test_outputs_are_dlpack_tensors_that_own_their_memory(self):
        x, bias = affine_inputs()
        y, _ = self.model.run(x, bias)
        self.assertIsInstance(y, graphc.Tensor)
        self.assertEqual((y.shape, y.dtype, str(y.device)),
                         ((2, 3), np.float32, "cpu"))
        self.assertEqual(y.__dlpack_device__(), (1, 0))
        first, second = np.from_dlpack(y), np.from_dlpack(y)
        # No copies: both views are the tensor's own memory.
        self.assertEqual(first.ctypes.data, y.data_ptr)
        self.assertEqual(second.ctypes.data, y.data_ptr)
        self.assertEqual(np.asarray(y).ctypes.data, y.data_ptr)
        np.testing.assert_array_equal(y.numpy(), x * WEIGHTS + bias)

    def test_output_fed_back_as_a_dlpack_input(self):
        x, bias = affine_inputs()
        y, _ = self.model.run(x, bias)
        # y is no numpy array: it goes through the DLPack input path.
        again, _ = self.model.run(y, bias)
        np.testing.assert_array_equal(np.from_dlpack(again),
                                      (x * WEIGHTS + bias) * WEIGHTS + bias)

    def test_slices_share_the_output_memory(self):
        x, bias = affine_inputs(batch=2)
        expected = x * WEIGHTS + bias
        y, _ = self.model.run(x, bias)
        row_bytes = 3 * 4
        second = y[1:]
        self.assertIsInstance(second, graphc.Tensor)
        self.assertEqual((second.shape, second.nbytes), ((1, 3), row_bytes))
        self.assertEqual(second.data_ptr, y.data_ptr + row_bytes)
        np.testing.assert_array_equal(np.from_dlpack(second), expected[1:])
        self.assertEqual(np.from_dlpack(second).ctypes.data, second.data_ptr)
        np.testing.assert_array_equal(y[0:1].numpy(), expected[:1])
        np.testing.assert_array_equal(y[-1:][0:1].numpy(), expected[1:])
        self.assertEqual(y[2:1].shape, (0, 3))
        self.assertEqual(y[:].data_ptr, y.data_ptr)
        # A slice keeps the memory alive after the parent is gone.
        del y
        np.testing.assert_array_equal(second.numpy(), expected[1:])
        # A slice fed back as an input goes through the DLPack input path.
        again, _ = self.model.run(second, bias)
        np.testing.assert_array_equal(np.from_dlpack(again),
                                      expected[1:] * WEIGHTS + bias)
        with self.assertRaises(TypeError):
            second[0]
        with self.assertRaises(ValueError):
            second[::2]

    def test_unconsumed_capsule_releases_its_tensor(self):
        x, bias = affine_inputs()
        before = _dlpack.live_exports()
        y, _ = self.model.run(x, bias)
        capsule = y.__dlpack__()
        self.assertEqual(_dlpack.live_exports(), before + 1)
        del capsule
        self.assertEqual(_dlpack.live_exports(), before)
        view = np.from_dlpack(y)
        self.assertEqual(_dlpack.live_exports(), before + 1)
        del view
        gc.collect()
        self.assertEqual(_dlpack.live_exports(), before)

    def test_outputs_outlive_the_model_and_session(self):
        x, bias = affine_inputs()
        model = graphc.load(model_path("affine_model"))
        loaded = weakref.ref(model._loaded)
        session = model.session()
        y = session.run(x, bias)[0]
        view = np.from_dlpack(model.run(x, bias)[1])
        session.close()
        model.close()
        del model, session
        gc.collect()
        # The outputs hold their sessions, which hold the model.
        self.assertIsNotNone(loaded())
        np.testing.assert_array_equal(np.from_dlpack(y), x * WEIGHTS + bias)
        np.testing.assert_array_equal(view, x * WEIGHTS)
        del y
        gc.collect()
        self.assertIsNotNone(loaded())  # the view still holds its session
        del view
        gc.collect()
        self.assertIsNone(loaded())

    def test_closed_model_and_session_refuse_to_run(self):
        x, bias = affine_inputs()
        session = self.model.session()
        session.close()
        with self.assertRaises(graphc.GraphcError) as caught:
            session.run(x, bias)
        self.assertEqual(caught.exception.code, "failed_precondition")
        self.model.close()
        with self.assertRaises(graphc.GraphcError) as caught:
            self.model.run(x, bias)
        self.assertEqual(caught.exception.code, "failed_precondition")

    def test_out_list_dict_and_mismatches(self):
        x, bias = affine_inputs()
        y = np.full((2, 3), -1, np.float32)
        scaled = np.full((2, 3), -1, np.float32)
        result = self.model.run(x, bias, out=[y, scaled])
        self.assertIs(result[0], y)
        self.assertIs(result[1], scaled)
        np.testing.assert_array_equal(y, x * WEIGHTS + bias)
        np.testing.assert_array_equal(scaled, x * WEIGHTS)
        y[:] = 0
        self.model.run({"x": x, "bias": bias}, out={"scaled": scaled, "y": y})
        np.testing.assert_array_equal(y, x * WEIGHTS + bias)
        # A graphc tensor as out=: written through DLPack.
        target, _ = self.model.run(np.zeros_like(x), bias)
        self.model.run(x, bias, out=[target, scaled])
        np.testing.assert_array_equal(np.from_dlpack(target),
                                      x * WEIGHTS + bias)
        with self.assertRaises(graphc.InvalidArgumentError) as caught:
            self.model.run(x, bias, out={"y": y, "z": scaled})
        self.assertEqual(str(caught.exception),
                         "out: the model has no output 'z' (outputs: y, scaled)")
        with self.assertRaises(ValueError) as caught:
            self.model.run(x, bias, out=[y])
        self.assertIn("1 tensors for 2 outputs", str(caught.exception))
        with self.assertRaises(graphc.GraphcError) as caught:
            self.model.run(x, bias, out=[np.zeros((1, 3), np.float32), scaled])
        self.assertEqual(caught.exception.code, "invalid_argument")
        self.assertIn("output 'y': expected float32[2,3], got float32[1,3]",
                      str(caught.exception))
        with self.assertRaises(ValueError) as caught:
            self.model.run(x, bias, out=[np.zeros((3, 2), np.float32).T,
                                         scaled])
        self.assertIn("C-contiguous and writeable", str(caught.exception))

    def test_runtime_errors_carry_the_runtime_message(self):
        x, bias = affine_inputs()
        with self.assertRaises(graphc.GraphcError) as caught:
            self.model.run(np.zeros((3, 3), np.float32), bias)
        self.assertEqual(caught.exception.code, "invalid_argument")
        self.assertIsInstance(caught.exception, ValueError)
        self.assertIn("no plan accepts x: float32[3,3]", str(caught.exception))
        with self.assertRaises(graphc.GraphcError) as caught:
            self.model.run({"x": x.astype(np.float64), "bias": bias})
        self.assertEqual(str(caught.exception),
                         "input 'x': expected float32[batch,3], got "
                         "float64[2,3]")
        with self.assertRaises(graphc.GraphcError) as caught:
            self.model.run({"x": x, "bais": bias})
        self.assertIn("bais", str(caught.exception))
        with self.assertRaises(graphc.GraphcError) as caught:
            self.model.run(x)
        self.assertEqual(caught.exception.code, "invalid_argument")
        with self.assertRaises(graphc.GraphcError) as caught:
            graphc.load(model_path("missing"))
        self.assertEqual(caught.exception.code, "not_found")
        self.assertIn("missing.so", str(caught.exception))
        with self.assertRaises(graphc.GraphcError) as caught:
            graphc.load(model_path("affine_abi99"))
        self.assertIn("99", str(caught.exception))

    def test_big_endian_arrays_are_refused(self):
        x, bias = affine_inputs()
        swapped = x.astype(x.dtype.newbyteorder(">"))
        np.testing.assert_array_equal(swapped, x)  # same values
        with self.assertRaises(graphc.InvalidArgumentError) as caught:
            self.model.run(swapped, bias)
        self.assertIn("input 'x': the >f4 array is not in the machine's byte "
                      "order", str(caught.exception))
        with self.assertRaises(ValueError) as caught:
            self.model.run(x, bias, out=[swapped, np.empty_like(x)])
        self.assertIn("output 'y'", str(caught.exception))

    def test_nul_in_a_path_or_name_is_refused(self):
        path = model_path("affine_model") + "\0ignored"
        with self.assertRaises(ValueError) as caught:
            graphc.load(path)
        self.assertIn("contains a NUL character", str(caught.exception))
        x, bias = affine_inputs()
        with self.assertRaises(ValueError) as caught:
            self.model.run({"x\0junk": x, "bias": bias})
        self.assertIn("contains a NUL character", str(caught.exception))

    def test_a_fifo_is_refused_without_blocking(self):
        import tempfile
        with tempfile.TemporaryDirectory() as folder:
            fifo = os.path.join(folder, "model.so")
            os.mkfifo(fifo)
            # A load that blocked on the FIFO is released (and fails this
            # test) by a writer after a while.
            released = []

            def release():
                released.append(True)
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            watchdog = threading.Timer(10, release)
            watchdog.start()
            try:
                with self.assertRaises(graphc.InvalidArgumentError) as caught:
                    graphc.load(fifo)
            finally:
                watchdog.cancel()
            self.assertEqual(released, [])
            self.assertIn("is not a regular file", str(caught.exception))

    def test_non_contiguous_numpy_input_is_copied(self):
        x = np.arange(12, dtype=np.float32).reshape(2, 6)[:, ::2]
        bias = np.zeros(3, dtype=np.float32)
        y, _ = self.model.run(x, bias)
        np.testing.assert_array_equal(np.from_dlpack(y), x * WEIGHTS)

    def test_non_tensor_input_is_refused(self):
        _, bias = affine_inputs()
        with self.assertRaises(TypeError) as caught:
            self.model.run([[0.0, 1.0, 2.0]], bias)
        self.assertIn("input 'x': list is neither", str(caught.exception))

    def test_devices_and_streams(self):
        x, bias = affine_inputs()
        with self.assertRaises(ValueError) as caught:
            graphc.load(model_path("affine_model"), device="cuda:0")
        self.assertIn("is a cpu model; it cannot run on device cuda:0",
                      str(caught.exception))
        with self.assertRaises(ValueError):
            self.model.session(device="tpu")
        self.assertEqual(graphc.Device.parse("cuda:3"),
                         graphc.Device("cuda", 3))
        self.assertEqual(graphc.Device.parse(2), graphc.Device("cuda", 2))
        with self.assertRaises(ValueError) as caught:
            self.model.run(x, bias, stream=1)
        self.assertIn("runs on no stream", str(caught.exception))
        y, _ = graphc.load(model_path("affine_model"), device="cpu").run(
            x, bias)
        with self.assertRaises(BufferError):
            y.__dlpack__(stream=1)
        with self.assertRaises(BufferError):
            y.__dlpack__(dl_device=(2, 0))

    def test_threads_share_the_model_and_sessions_serialise(self):
        failures = []
        session = self.model.session()

        def work(seed, runner):
            rng = np.random.default_rng(seed)
            for _ in range(100):
                x = rng.standard_normal((1 + seed % 2, 3)).astype(np.float32)
                bias = rng.standard_normal(3).astype(np.float32)
                y, _ = runner.run(x, bias)
                if not np.array_equal(np.from_dlpack(y), x * WEIGHTS + bias):
                    failures.append(seed)

        threads = [threading.Thread(target=work, args=(s, self.model))
                   for s in range(4)]
        threads += [threading.Thread(target=work, args=(s, session))
                    for s in range(4, 6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(failures, [])


class RunBatchTest(unittest.TestCase):
    """Session.run_batch on batch_model (cpu): y = x * [2,3,4] + s and r =
    the sums of x's rows, for x: float32[batch,3], s: float32[batch,1],
    batch buckets 1, 2, 4, 8."""

    def setUp(self):
        self.model = graphc.load(model_path("batch_model"))
        self.session = self.model.session()

    def tearDown(self):
        self.session.close()
        self.model.close()

    @staticmethod
    def request(rows, first):
        x = (first + np.arange(3 * rows, dtype=np.float32)).reshape(rows, 3)
        return {"x": x, "s": -x[:, :1] - 1}

    def test_matches_one_run_over_the_concatenation(self):
        for sizes in ([1, 2, 3], [2, 2], [4, 5, 3]):
            requests = [self.request(n, 10 * r) for r, n in enumerate(sizes)]
            outputs = self.session.run_batch(requests)
            whole = self.session.run(
                {name: np.concatenate([r[name] for r in requests])
                 for name in ("x", "s")})
            start = 0
            for request, (y, r) in zip(requests, outputs):
                rows = request["x"].shape[0]
                self.assertEqual(y.shape, (rows, 3))
                np.testing.assert_array_equal(
                    np.from_dlpack(y),
                    np.from_dlpack(whole[0])[start:start + rows])
                np.testing.assert_array_equal(
                    np.from_dlpack(r),
                    np.from_dlpack(whole[1])[start:start + rows])
                np.testing.assert_array_equal(
                    np.from_dlpack(y), request["x"] * WEIGHTS + request["s"])
                start += rows
        # Positional requests, in model order.
        x, s = self.request(2, 1)["x"], self.request(2, 1)["s"]
        (y, _), = self.session.run_batch([[x, s]])
        np.testing.assert_array_equal(np.from_dlpack(y), x * WEIGHTS + s)

    def test_errors_name_the_request(self):
        requests = [self.request(1, 0), self.request(2, 5)]
        requests[1]["x"] = np.zeros((2, 4), np.float32)
        with self.assertRaises(graphc.GraphcError) as caught:
            self.session.run_batch(requests)
        self.assertEqual(str(caught.exception),
                         "request 1: input 'x': expected float32[batch,3], "
                         "got float32[2,4]")
        with self.assertRaises(graphc.GraphcError) as caught:
            self.session.run_batch([])
        self.assertIn("num_requests is 0", str(caught.exception))
        with self.assertRaises(graphc.GraphcError) as caught:
            self.session.run_batch([self.request(1, 0)], stream=0)
        self.assertIn("runs on no stream", str(caught.exception))
        with graphc.load(model_path("affine_buckets")) as model:
            x = np.zeros((1, 3), np.float32)
            bias = np.zeros(3, np.float32)
            with self.assertRaises(graphc.GraphcError) as caught:
                model.session().run_batch([[x, bias], [x, bias]])
            self.assertIn("dim 'batch' is not axis 0 of input 'bias'",
                          str(caught.exception))


def keep_positive(x):
    """extent_model's outputs for x: the positive elements (kept) and their
    row and column indices (where, NonZero's layout)."""
    flat = x.reshape(-1)
    found = np.flatnonzero(flat > 0)
    return flat[found], np.stack([found // 4, found % 4]).astype(np.int64)


class DataDependentTest(unittest.TestCase):
    """extent_model (models/extent_model.c): kept: float32[n] and where:
    int64[2,n], n decided by each run, written at their bounds [8] and
    [2,8]; runs return the corners the runs found, without copies."""

    CASES = [np.array([[1, -2, 3, 0], [-5, 6, 7, -8]], np.float32),
             np.full((2, 4), -1, np.float32),
             np.arange(1, 9, dtype=np.float32).reshape(2, 4)]

    def setUp(self):
        self.model = graphc.load(model_path("extent_model"))

    def tearDown(self):
        self.model.close()

    def check(self, outputs, x):
        kept, where = outputs
        want_kept, want_where = keep_positive(x)
        np.testing.assert_array_equal(np.asarray(kept), want_kept)
        np.testing.assert_array_equal(np.asarray(where), want_where)
        self.assertEqual(tuple(kept.shape), want_kept.shape)
        self.assertEqual(tuple(where.shape), want_where.shape)

    def test_describes_data_dependent_dims_and_bounds(self):
        kept, where = self.model.outputs
        self.assertEqual(kept.data_dependent, (True,))
        self.assertEqual(where.data_dependent, (False, True))
        self.assertEqual(where.shape, (2, "where_count"))
        self.assertEqual(self.model.inputs[0].data_dependent, (False, False))
        self.assertEqual(self.model.buckets[0].output_shapes,
                         {"kept": (8,), "where": (2, 8)})

    def test_outputs_are_views_of_the_bounds(self):
        for x in self.CASES:
            kept, where = self.model.run(x)
            self.check((kept, where), x)
            n = kept.shape[0]
            self.assertEqual(where.shape, (2, n))
            # where's corner keeps the rows of its bound [2, 8]: the same
            # memory as the run wrote, seen through DLPack without a copy.
            # (An empty corner, or the whole, is dense.)
            self.assertEqual(where.contiguous, n in (0, 8))
            self.assertTrue(kept.contiguous)
            view = np.from_dlpack(where)
            self.assertEqual(view.ctypes.data, where.data_ptr)
            if n:
                self.assertEqual(where.strides, (8, 1))
                self.assertEqual(view.strides, (64, 8))
            self.assertEqual(where.numpy().ctypes.data, where.data_ptr)
            self.assertEqual(where.nbytes, 2 * n * 8)
            # A slice of the first axis stays a view with the bound rows.
            second = where[1:]
            self.assertEqual(second.shape, (1, n))
            if n:
                self.assertEqual(second.data_ptr, where.data_ptr + 64)
            np.testing.assert_array_equal(np.asarray(second),
                                          keep_positive(x)[1][1:])

    def test_out_arrays_come_back_cut(self):
        x = self.CASES[0]
        kept = np.full(8, 99, np.float32)
        where = np.full((2, 8), 99, np.int64)
        got = self.model.run(x, out={"where": where, "kept": kept})
        self.check(got, x)
        # Slices of the arrays given, which hold zeros past the corner.
        self.assertTrue(np.shares_memory(got[0], kept))
        self.assertTrue(np.shares_memory(got[1], where))
        self.assertEqual(got[1].ctypes.data, where.ctypes.data)
        np.testing.assert_array_equal(where[:, 4:], 0)
        # Outputs must be given at their bounds.
        with self.assertRaises(graphc.InvalidArgumentError):
            self.model.run(x, out=[np.empty(4, np.float32),
                                   np.empty((2, 4), np.int64)])

    def test_session_runs_and_batches_of_one(self):
        with self.model.session() as session:
            for x in self.CASES:
                self.check(session.run(x=x), x)
                (outputs,) = session.run_batch([{"x": x}])
                self.check(outputs, x)
            with self.assertRaises(graphc.InvalidArgumentError) as caught:
                session.run_batch([{"x": x}, {"x": x}])
            self.assertIn("output 'kept' has data-dependent dim 0",
                          str(caught.exception))

    def test_an_extent_past_the_bound_is_an_internal_error(self):
        x = self.CASES[2].copy()
        x[0, 0] = 1000  # extent_kernel.h's hook: a count of 9 for 8
        with self.assertRaises(graphc.GraphcError) as caught:
            self.model.run(x)
        self.assertEqual(caught.exception.code, "internal")
        self.assertIn("the run found extent 9, outside [0, 8]",
                      str(caught.exception))

    def test_a_corner_is_no_output_buffer(self):
        kept, where = self.model.run(self.CASES[0])
        with self.assertRaises(graphc.InvalidArgumentError) as caught:
            self.model.run(self.CASES[0], out=[
                np.empty(8, np.float32), where])
        self.assertIn("output 'where'", str(caught.exception))

    def test_triton_python_backend_answers_dense_corners(self):
        import json
        import shutil
        import tempfile

        from graphc import triton

        class DenseOnly(TritonBatchTest.FakeUtils):
            class Tensor(TritonBatchTest.FakeUtils.Tensor):
                # Inputs reach graphc through DLPack, as Triton's do.
                def __dlpack__(self, **kwargs):
                    return self.value.__dlpack__(**kwargs)

                def __dlpack_device__(self):
                    return self.value.__dlpack_device__()

                @classmethod
                def from_dlpack(cls, name, tensor):
                    # As Triton: dense C-order tensors only.
                    array = np.from_dlpack(tensor)
                    if not array.flags.c_contiguous:
                        raise ValueError("not contiguous")
                    return cls(name, array.copy())

            @staticmethod
            def get_input_tensor_by_name(request, name):
                value = request.get(name)
                return None if value is None else DenseOnly.Tensor(name, value)

        sys.modules["triton_python_backend_utils"] = DenseOnly
        repository = tempfile.mkdtemp()
        try:
            os.mkdir(os.path.join(repository, "1"))
            shutil.copy(model_path("extent_model"),
                        os.path.join(repository, "1", "model.so"))
            config = {"name": "extent", "max_batch_size": 0, "parameters": {
                "graphc_artifact": {"string_value": "model.so"}}}
            backend = triton.TritonPythonModel()
            backend.initialize({
                "model_config": json.dumps(config),
                "model_repository": repository, "model_version": "1",
                "model_instance_kind": "CPU"})
            responses = backend.execute([{"x": x} for x in self.CASES])
            for x, response in zip(self.CASES, responses):
                self.assertIsNone(response.error)
                kept, where = response.output_tensors
                self.assertEqual((kept.name, where.name), ("kept", "where"))
                want_kept, want_where = keep_positive(x)
                np.testing.assert_array_equal(kept.value, want_kept)
                np.testing.assert_array_equal(where.value, want_where)
            backend.finalize()
        finally:
            del sys.modules["triton_python_backend_utils"]
            shutil.rmtree(repository)


class TritonBatchTest(unittest.TestCase):
    """graphc.triton's TritonPythonModel batching requests through
    Session.run_batch, with a stand-in for Triton's
    triton_python_backend_utils module."""

    class FakeUtils:
        class Tensor:
            def __init__(self, name, value):
                self.name, self.value = name, value

            @classmethod
            def from_dlpack(cls, name, tensor):
                return cls(name, np.from_dlpack(tensor).copy())

            def as_numpy(self):
                return self.value

        class InferenceResponse:
            def __init__(self, output_tensors=None, error=None):
                self.output_tensors, self.error = output_tensors, error

        class TritonError:
            def __init__(self, message):
                self.message = message

        @staticmethod
        def get_input_tensor_by_name(request, name):
            value = request.get(name)
            if value is None:
                return None
            return TritonBatchTest.FakeUtils.Tensor(name, value)

    def test_requests_run_as_one_batch(self):
        import json
        import shutil
        import tempfile

        from graphc import triton
        sys.modules["triton_python_backend_utils"] = self.FakeUtils
        repository = tempfile.mkdtemp()
        try:
            os.mkdir(os.path.join(repository, "1"))
            shutil.copy(model_path("batch_model"),
                        os.path.join(repository, "1", "model.so"))
            config = {"name": "batch", "max_batch_size": 8, "parameters": {
                "graphc_artifact": {"string_value": "model.so"}}}
            backend = triton.TritonPythonModel()
            backend.initialize({
                "model_config": json.dumps(config),
                "model_repository": repository, "model_version": "1",
                "model_instance_kind": "CPU"})
            requests = [RunBatchTest.request(n, 10 * n) for n in (1, 3, 2)]
            responses = backend.execute(requests)
            for request, response in zip(requests, responses):
                self.assertIsNone(response.error)
                y, r = response.output_tensors
                self.assertEqual((y.name, r.name), ("y", "r"))
                np.testing.assert_array_equal(
                    y.value, request["x"] * WEIGHTS + request["s"])
                np.testing.assert_array_equal(
                    r.value, request["x"].sum(axis=1, keepdims=True))
            # One bad request fails the batch, named in every response.
            requests[2] = {"x": requests[2]["x"]}
            responses = backend.execute(requests)
            self.assertEqual(len(responses), 3)
            for response in responses:
                self.assertEqual(response.error.message,
                                 "graphc: input 's' is missing")
            backend.finalize()
        finally:
            del sys.modules["triton_python_backend_utils"]
            shutil.rmtree(repository)


def cuda_unavailable_reason():
    """Why the CUDA tests cannot run here, or None when they can."""
    try:
        graphc.load(model_path("scale_model")).close()
    except graphc.GraphcError as error:
        return f"no usable CUDA device: {error}"
    return None


CUDA_SKIP = cuda_unavailable_reason()
if CUDA_SKIP:
    print(f"skipping the CUDA tests: {CUDA_SKIP}", file=sys.stderr)


@unittest.skipIf(CUDA_SKIP, CUDA_SKIP)
class CudaTest(unittest.TestCase):
    def setUp(self):
        self.model = graphc.load(model_path("scale_model"), device="cuda:0")
        self.x = np.arange(6, dtype=np.float32).reshape(2, 3)

    def test_numpy_in_device_tensor_out(self):
        y, = self.model.run(self.x)
        self.assertEqual(y.__dlpack_device__(), (2, 0))
        np.testing.assert_array_equal(y.numpy(), self.x * WEIGHTS)
        with self.assertRaises(TypeError):
            np.asarray(y)
        # A device output fed back as a device input (DLPack, no copy).
        again, = self.model.run(y)
        np.testing.assert_array_equal(again.numpy(), self.x * WEIGHTS ** 2)
        out = np.empty_like(self.x)
        self.assertIs(self.model.run(self.x, out=out)[0], out)
        np.testing.assert_array_equal(out, self.x * WEIGHTS)

    def test_torch_tensors_and_streams(self):
        try:
            import torch
        except ImportError:
            self.skipTest("torch is not installed")
        x = torch.arange(6, dtype=torch.float32, device="cuda").reshape(2, 3)
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            y, = self.model.run(x * 1, stream=stream)
            z = torch.from_dlpack(y) + 1
        stream.synchronize()
        np.testing.assert_array_equal(z.cpu().numpy(),
                                      self.x * WEIGHTS + 1)
        out = torch.empty(2, 3, device="cuda")
        self.model.run(x=x, out=out)
        np.testing.assert_array_equal(out.cpu().numpy(), self.x * WEIGHTS)

    def test_cupy_tensors(self):
        try:
            import cupy
        except ImportError:
            self.skipTest("cupy is not installed")
        x = cupy.asarray(self.x)
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            y, = self.model.run(x, stream=stream)
            z = cupy.from_dlpack(y) * 2
        stream.synchronize()
        np.testing.assert_array_equal(cupy.asnumpy(z), self.x * WEIGHTS * 2)


class FourBitTest(unittest.TestCase):
    """uint4 and int4 cross the runtime packed (two a byte, the first in
    the low nibble); numpy holds them one a byte in onnx's dtypes."""

    def test_packs_like_onnx_and_unpacks_back(self):
        from graphc import _tensor
        int4 = _tensor.NUMPY_DTYPES[22]
        values = np.array([-8, -1, 0, 7, 3], dtype=np.int8).view(int4)
        packed = _tensor.pack_four_bit(values, 22, "x")
        # ONNX's layout: 0xf8 (-8 low, -1 high), 0x70, then 3 in the low
        # nibble of a last half byte.
        self.assertEqual(packed.tolist(), [0xf8, 0x70, 0x03])
        back = _tensor.unpack_four_bit(packed, 5, 22)
        self.assertEqual(back.dtype, int4)
        self.assertEqual(back.view(np.int8).tolist(), [-8, -1, 0, 7, 3])
        uint4 = _tensor.NUMPY_DTYPES[21]
        u = np.array([[15, 0], [9, 1]], dtype=np.uint8).view(uint4)
        packed = _tensor.pack_four_bit(u, 21, "u")
        self.assertEqual(packed.tolist(), [0x0f, 0x19])
        self.assertEqual(_tensor.unpack_four_bit(packed, 4, 21)
                         .view(np.uint8).tolist(), [15, 0, 9, 1])

    def test_recognises_onnx_and_ml_dtypes_but_not_plain_bytes(self):
        from graphc import _tensor
        self.assertEqual(_tensor.four_bit_onnx_dtype(_tensor.NUMPY_DTYPES[22]),
                         22)
        self.assertEqual(_tensor.four_bit_onnx_dtype(_tensor.NUMPY_DTYPES[21]),
                         21)
        # Plain int8/uint8 could be packed bytes or values: not 4-bit.
        self.assertIsNone(_tensor.four_bit_onnx_dtype(np.dtype(np.int8)))
        self.assertIsNone(_tensor.four_bit_onnx_dtype(np.dtype(np.uint8)))
        try:
            from onnx import _custom_element_types as onnx_types
        except ImportError:
            return
        self.assertEqual(_tensor.four_bit_onnx_dtype(onnx_types.int4), 22)
        self.assertEqual(_tensor.four_bit_onnx_dtype(onnx_types.uint4), 21)

    def test_refuses_values_out_of_range(self):
        from graphc import _tensor
        values = np.array([3, 8], dtype=np.int8).view(_tensor.NUMPY_DTYPES[22])
        with self.assertRaisesRegex(graphc.InvalidArgumentError,
                                    r"input 'x': int4 values lie in \[-8, 7\]"):
            _tensor.pack_four_bit(values, 22, "x")
        values = np.array([16], dtype=np.uint8).view(_tensor.NUMPY_DTYPES[21])
        with self.assertRaisesRegex(graphc.InvalidArgumentError, "uint4"):
            _tensor.pack_four_bit(values, 21, "u")

    def test_dlpack_dtype_has_four_bits(self):
        from graphc import _tensor
        for onnx_dtype, code in ((21, 1), (22, 0)):
            dtype = _tensor.dlpack_dtype(onnx_dtype)
            self.assertEqual((dtype.code, dtype.bits, dtype.lanes), (code, 4, 1))


if __name__ == "__main__":
    unittest.main()
