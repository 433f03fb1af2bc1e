#!/usr/bin/env python3
"""Compiles a long Relu chain for the cpu target and checks that it works and
that the compile's peak memory stays under a bound linear in the node count.

    python compile_scaling_test.py --graphc build/bin/graphc [--nodes 20000]
        [--work-dir DIR]

The bound is generous (a fixed base for the process and the host compiler,
plus a per-node allowance several times what one node costs); a compile step
whose memory grows quadratically with the node count exceeds it. The
compiled chain's alike fusions must share one kernel, and running it must give relu(x).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_relu_chain import make_relu_chain  # noqa: E402

import onnx  # noqa: E402

# Peak resident memory allowed: the base covers graphc's own start-up (MLIR
# context, dialects) and the host compiler; the per-node allowance covers
# the IR of one node at each stage.
BASE_BYTES = 400 << 20
BYTES_PER_NODE = 16 << 10


def peak_rss_of(command):
    """Runs `command`, returns (exit status, stderr, peak RSS in bytes of the
    process and the children it waited for)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    stderr = process.stderr.read()
    process.stderr.close()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, stderr.decode(errors="replace"), usage.ru_maxrss * 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--nodes", type=int, default=20000)
    parser.add_argument("--work-dir")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=args.work_dir) as work:
        model = os.path.join(work, "chain.onnx")
        onnx.save(make_relu_chain(args.nodes), model)
        output = os.path.join(work, "chain.so")
        status, stderr, peak = peak_rss_of(
            [args.graphc, "compile", model, "--target", "cpu", "-o", output])
        if status != 0:
            sys.exit(f"FAIL: compiling a {args.nodes}-node Relu chain exited "
                     f"with {status}: {stderr.strip()}")
        bound = BASE_BYTES + BYTES_PER_NODE * args.nodes
        print(f"{args.nodes} nodes: peak RSS {peak / 2**20:.1f} MiB "
              f"(bound {bound / 2**20:.1f} MiB)")
        if peak > bound:
            sys.exit(f"FAIL: peak RSS {peak / 2**20:.1f} MiB exceeds the "
                     f"linear bound {bound / 2**20:.1f} MiB")

        inspect = subprocess.run([args.graphc, "inspect", output, "--json"],
                                 check=True, capture_output=True, text=True)
        description = json.loads(inspect.stdout)
        kernels = description["kernels"]
        # The chain becomes fusions of one length and perhaps a shorter
        # rest: alike fusions share a kernel, so at most two remain.
        if len(kernels) > 2:
            sys.exit(f"FAIL: {args.nodes} identical Relu nodes gave "
                     f"{len(kernels)} kernels, expected alike fusions to "
                     f"share one")

        x = np.array([-1.5, 0.0, 2.5, -0.0], np.float32)
        np.save(os.path.join(work, "x.npy"), x)
        subprocess.run([args.graphc, "run", output, "--input",
                        "x=" + os.path.join(work, "x.npy"), "--output-dir",
                        os.path.join(work, "out")],
                       check=True, stdout=subprocess.DEVNULL)
        y = np.load(os.path.join(work, "out", "y.npy"))
        if not np.array_equal(y, np.maximum(x, 0)):
            sys.exit(f"FAIL: the chain computed {y}, expected {np.maximum(x, 0)}")
    print("PASS")


if __name__ == "__main__":
    main()
