"""The bundle's conformance stage: the ONNX backend node tests of a list
(cuda_emitting.txt by default) compiled for one target and run through the
Python runtime against their expected outputs, with the workers and the
classification of test/conformance/run_node_tests.py. Writes every result to
--json and the passing tests, sorted, one per line (the format of
test/conformance/cpu_passing.txt), to --passing.

    python node_tests_target.py --conformance test/conformance \
        --graphc bin/graphc --target cuda --arch sm_90 --jobs 8 \
        --work-dir DIR --json results.json --passing cuda_passing.txt

The node tests are read from $GRAPHC_NODE_TEST_ROOT (the bundle's copy).
A graphc built without ONNX's version converter (the static one) cannot
import opsets below 11; those tests are listed as skipped, with that reason,
and neither pass nor fail (CI runs them on cpu with the converter).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

NO_CONVERTER = "needs ONNX's version converter, and this graphc was built without it"


def lacks_converter(graphc):
    version = subprocess.run([graphc, "--version"], capture_output=True, text=True).stdout
    return "which this build lacks" in version


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conformance", required=True,
                        help="folder with run_node_tests.py and the lists")
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--target", choices=["cpu", "cuda"], default="cuda")
    parser.add_argument("--arch")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tests", help="list of tests to run (default: "
                        "cuda_emitting.txt of --conformance)")
    parser.add_argument("--filter", help="only the listed tests matching this regex")
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--passing", required=True)
    args = parser.parse_args()
    sys.path.insert(0, os.path.abspath(args.conformance))
    import run_node_tests as runner

    listed = runner.read_list(args.tests or os.path.join(args.conformance,
                                                         "cuda_emitting.txt"))
    available = set(runner.node_tests.node_tests())
    missing = [t for t in listed if t not in available]
    if args.filter:
        listed = [t for t in listed if re.search(args.filter, t)]
    tests = [t for t in listed if t in available]
    os.makedirs(args.work_dir, exist_ok=True)
    options = argparse.Namespace(graphc=os.path.abspath(args.graphc),
                                 target=args.target, arch=args.arch,
                                 cuda_emulation=None,
                                 work_dir=os.path.abspath(args.work_dir))
    start = time.monotonic()
    count = max(1, (len(tests) + runner.BATCH_SIZE - 1) // runner.BATCH_SIZE)
    count = max(count, min(args.jobs, len(tests)))
    batches = [tests[i::count] for i in range(count)]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for batch in pool.map(lambda b: runner.run_batch(options, b), batches):
            results.update(batch)
    for name in missing:
        results[name] = ("run-error", "the node test is not in the bundle")
    elapsed = time.monotonic() - start
    skipped = {}
    if lacks_converter(options.graphc):
        skipped = {name: reason for name, (category, reason) in results.items()
                   if category == "compile-error" and NO_CONVERTER in reason}
        for name in skipped:
            del results[name]

    counts = collections.Counter(category for category, _ in results.values())
    print(f"node tests ({args.target}{', ' + args.arch if args.arch else ''}): "
          f"{len(results)} in {elapsed:.0f} s: " +
          " ".join(f"{c}={counts.get(c, 0)}" for c in runner.CATEGORIES) +
          (f" skipped={len(skipped)} (opsets below 11: this graphc has no "
           "ONNX version converter)" if skipped else ""))
    for name, (category, reason) in sorted(results.items()):
        if category != "pass":
            print(f"  {category}: {name}: {reason}")
    passing = sorted(n for n, (category, _) in results.items() if category == "pass")
    with open(args.passing, "w") as f:
        f.write("".join(f"{name}\n" for name in passing))
    with open(args.json, "w") as f:
        json.dump({"target": args.target, "arch": args.arch, "seconds": elapsed,
                   "counts": {c: counts.get(c, 0) for c in runner.CATEGORIES},
                   "results": {n: {"category": c, "reason": r}
                               for n, (c, r) in sorted(results.items())},
                   "skipped": dict(sorted(skipped.items()))},
                  f, indent=1)
    return 0 if len(passing) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
