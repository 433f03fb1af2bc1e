#!/usr/bin/env python3
"""Prints the wall time and peak RSS of `graphc compile --target cpu` on Relu
chains of growing length (10k, 20k, 50k and 100k nodes by default).

    python bench/compile_scaling.py [--graphc build/bin/graphc] [N ...]

Peak RSS is that of graphc and the host compiler it waits for. Not part of
the test command: test/scaling/compile_scaling_test.py checks the memory
bound without timings.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "scaling"))
from make_relu_chain import make_relu_chain  # noqa: E402

import onnx  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphc", default=os.path.join(ROOT, "build", "bin", "graphc"))
    parser.add_argument("lengths", nargs="*", type=int,
                        default=[10000, 20000, 50000, 100000])
    args = parser.parse_args()
    print(f"{'nodes':>8} {'wall s':>8} {'cpu s':>8} {'peak RSS MiB':>13}")
    with tempfile.TemporaryDirectory() as work:
        for length in args.lengths:
            model = os.path.join(work, f"chain{length}.onnx")
            onnx.save(make_relu_chain(length), model)
            start = time.monotonic()
            process = subprocess.Popen(
                [args.graphc, "compile", model, "--target", "cpu", "-o",
                 os.path.join(work, f"chain{length}.so")],
                stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.monotonic() - start
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"graphc compile failed on {length} nodes")
            cpu = usage.ru_utime + usage.ru_stime
            print(f"{length:>8} {wall:>8.2f} {cpu:>8.2f} {usage.ru_maxrss / 1024:>13.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
