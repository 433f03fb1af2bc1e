"""Runs a slice of the cpu conformance suite with sanitized binaries: every
Nth test of test/conformance/cpu_passing.txt, through run_node_tests.py,
which fails when one of them does not pass.

    python conformance_slice.py --every 10 --graphc GRAPHC --runtime LIB \
        [--preload ASAN_RUNTIME] --work-dir DIR

--preload names the shared ASan runtime that the Python processes (which
load the instrumented runtime library) preload. graphc links its own copy
statically, so it is started through a wrapper that drops the preload.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONFORMANCE = os.path.join(os.path.dirname(HERE), "conformance")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--runtime", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--preload")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    graphc = os.path.join(args.work_dir, "graphc")
    with open(graphc, "w") as f:
        f.write(f"#!/bin/sh\nunset LD_PRELOAD\nexec '{os.path.abspath(args.graphc)}' \"$@\"\n")
    os.chmod(graphc, 0o755)
    env = dict(os.environ)
    if args.preload:
        env["LD_PRELOAD"] = args.preload
    with open(os.path.join(CONFORMANCE, "cpu_passing.txt")) as f:
        passing = [line.strip() for line in f if line.strip()]
    chosen = passing[::args.every]
    print(f"{len(chosen)} of the {len(passing)} cpu-passing tests (every {args.every}th)",
          flush=True)
    pattern = "^(" + "|".join(re.escape(name) for name in chosen) + ")$"
    return subprocess.call([sys.executable, os.path.join(CONFORMANCE, "run_node_tests.py"),
                            "--graphc", graphc, "--runtime", args.runtime,
                            "--jobs", str(args.jobs), "--work-dir", args.work_dir,
                            "--filter", pattern, "--list", "run-error",
                            "--list", "compile-error", "--list", "wrong-result"], env=env)


if __name__ == "__main__":
    sys.exit(main())
