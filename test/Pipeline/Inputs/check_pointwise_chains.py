"""Checks cpu-loops.test's outputs: the fused model against the unfused one
(host kernels), and against numpy where numpy computes the same thing."""
import os
import sys

import numpy as np

root = sys.argv[1]


def load(kind, name):
    return np.load(os.path.join(root, kind, name + ".npy"))


x = np.load(os.path.join(root, "in", "x.npy"))
k = np.load(os.path.join(root, "in", "k.npy"))
expected_int = np.broadcast_to((k + 7) * k, (2, 3, 4, 5))
assert np.array_equal(load("fused", "y_int"), expected_int)
for name in ["y_chain", "y_int"]:
    fused, unfused = load("fused", name), load("unfused", name)
    assert fused.dtype == unfused.dtype and fused.shape == unfused.shape
    assert np.array_equal(fused.view(np.uint8), unfused.view(np.uint8)), name
    print(name, "bit-identical")
fused, unfused = load("fused", "y_linear"), load("unfused", "y_linear")
assert np.allclose(fused, unfused, rtol=1e-6, atol=1e-6), abs(fused - unfused).max()
print("y_linear within 1e-6")
