"""Tests of the graphc Python wrapper on the hand-written test models.

Usage: test_python.py MODEL_DIR (PYTHONPATH must reach runtime/python and
GRAPHC_RUNTIME_LIBRARY name libgraphc_runtime.so; ctest sets both).
"""
import os
import sys
import threading
import unittest

import numpy as np

import graphc

MODEL_DIR = sys.argv.pop(1) if len(sys.argv) > 1 else ""
WEIGHTS = np.array([2, 3, 4], dtype=np.float32)


def affine_path():
    return os.path.join(MODEL_DIR, "affine_model.so")


class PythonWrapperTest(unittest.TestCase):
    def setUp(self):
        self.model = graphc.load(affine_path())

    def tearDown(self):
        self.model.close()

    def test_introspection(self):
        self.assertEqual(self.model.target, "cpu")
        self.assertEqual([t.name for t in self.model.inputs], ["x", "bias"])
        self.assertEqual(self.model.inputs[0].shape, ("batch", 3))
        self.assertEqual(self.model.inputs[0].dtype, np.float32)
        self.assertEqual([t.name for t in self.model.outputs], ["y", "scaled"])
        self.assertEqual([p["name"] for p in self.model.plans],
                         ["batch1", "batch2"])
        self.assertEqual(self.model.plans[1]["outputs"]["y"], (2, 3))

    def test_run_positional_and_named(self):
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        bias = np.array([1, 2, 3], dtype=np.float32)
        y, scaled = self.model.run([x, bias])
        np.testing.assert_array_equal(y, x * WEIGHTS + bias)
        np.testing.assert_array_equal(scaled, x * WEIGHTS)
        y, _ = self.model.run({"bias": bias, "x": x[:1]})
        np.testing.assert_array_equal(y, x[:1] * WEIGHTS + bias)

    def test_non_contiguous_input_is_copied(self):
        x = np.arange(12, dtype=np.float32).reshape(2, 6)[:, ::2]
        bias = np.zeros(3, dtype=np.float32)
        y, _ = self.model.run([x, bias])
        np.testing.assert_array_equal(y, x * WEIGHTS)

    def test_errors(self):
        bias = np.zeros(3, dtype=np.float32)
        with self.assertRaises(graphc.GraphcError) as caught:
            self.model.run([np.zeros((3, 3), np.float32), bias])
        self.assertEqual(caught.exception.code, "invalid_argument")
        self.assertIn("no plan accepts x: float32[3,3]", str(caught.exception))
        with self.assertRaises(graphc.GraphcError) as caught:
            self.model.run({"x": np.zeros((1, 3), np.float64), "bias": bias})
        self.assertEqual(str(caught.exception),
                         "input 'x': expected float32[batch,3], got "
                         "float64[1,3]")
        with self.assertRaises(graphc.GraphcError) as caught:
            graphc.load(os.path.join(MODEL_DIR, "missing.so"))
        self.assertEqual(caught.exception.code, "not_found")

    def test_threads_share_the_model(self):
        failures = []

        def work(seed):
            rng = np.random.default_rng(seed)
            for _ in range(100):
                x = rng.standard_normal((1 + seed % 2, 3)).astype(np.float32)
                bias = rng.standard_normal(3).astype(np.float32)
                y, _ = self.model.run([x, bias])
                if not np.array_equal(y, x * WEIGHTS + bias):
                    failures.append(seed)

        threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(failures, [])


if __name__ == "__main__":
    unittest.main()
