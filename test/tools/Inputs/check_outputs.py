"""Compares every expected/<name>.npy under DIR with <name>.npy in OUT.

usage: check_outputs.py DIR OUT [RTOL]
Prints one line per output and exits 1 on a mismatch or a missing output.
"""
import os
import sys

import numpy as np

directory, out = sys.argv[1:3]
rtol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-5
expected_dir = os.path.join(directory, "expected")
failed = False
for entry in sorted(os.listdir(expected_dir)):
    name = entry[:-len(".npy")]
    want = np.load(os.path.join(expected_dir, entry))
    path = os.path.join(out, entry)
    if not os.path.exists(path):
        print("missing output", name)
        failed = True
        continue
    got = np.load(path).astype(np.float64)
    scale = max(float(np.max(np.abs(want))), 1.0)
    error = float(np.max(np.abs(got - want))) / scale if want.size else 0.0
    ok = got.shape == want.shape and error <= rtol
    print("%s %s %s error %.3g" % ("ok" if ok else "MISMATCH", name,
                                   list(got.shape), error))
    failed |= not ok
sys.exit(1 if failed else 0)
