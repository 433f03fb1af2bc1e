"""Imports every ONNX backend node test model with `graphc import --verify-only`.

Each model is classified as imported (imported and verified), unsupported (an
"unsupported ..." error: an op, opset, type or attribute graphc does not take),
needs-inputs (an error naming the model inputs whose values graphc needs at
compile time, which `graphc compile --const-input` binds and this import
without data does not) or failed (any other error). The run fails when a model crashes graphc or when
fewer models import than the figure committed in import_node_tests.count,
which may only grow (pass --update to raise it).

    python import_node_tests.py --graphc build/bin/graphc [--list failed] [--update]
"""
import argparse
import collections
import concurrent.futures
import os
import subprocess
import sys

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
COUNT_FILE = os.path.join(HERE, "import_node_tests.count")
BATCH_SIZE = 64
BATCH_TIMEOUT_S = 300


def node_test_models():
    root = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    models = []
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name, "model.onnx")
        if os.path.isfile(path):
            models.append(path)
    return models


def run_batch(graphc, models):
    """Returns {model: ("ok" | "error" | "crash", message)}. When graphc dies,
    the first model without a result line is the one that crashed; the rest
    are imported again in a new process."""
    results = {}
    while models:
        try:
            proc = subprocess.run([graphc, "import", "--verify-only", *models],
                                  capture_output=True, text=True,
                                  timeout=BATCH_TIMEOUT_S)
            stdout, returncode = proc.stdout, proc.returncode
            stderr = proc.stderr
        except subprocess.TimeoutExpired as timeout:
            stdout = timeout.stdout.decode() if isinstance(timeout.stdout, bytes) \
                else (timeout.stdout or "")
            stderr, returncode = "timed out", -1
        for line in stdout.splitlines():
            status, _, rest = line.partition(" ")
            if status == "ok":
                results[rest] = ("ok", "")
            elif status == "error":
                model, _, message = rest.partition(": ")
                results[model] = ("error", message)
        remaining = [m for m in models if m not in results]
        if not remaining:
            break
        crashed = remaining[0]
        last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        results[crashed] = ("crash", f"exit status {returncode}: {last}")
        models = remaining[1:]
    return results


def classify(status, message):
    if status == "ok":
        return "imported"
    if status == "crash":
        return "crashed"
    if "unsupported" in message:
        return "unsupported"
    return "needs-inputs" if "--const-input NAME=" in message else "failed"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True, help="path of the graphc binary")
    parser.add_argument("--count-file", default=COUNT_FILE)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--list", action="append", default=[],
                        choices=["imported", "unsupported", "needs-inputs", "failed",
                                 "crashed"],
                        help="print the models of this class with their messages")
    parser.add_argument("--update", action="store_true",
                        help="raise the committed count to this run's figure")
    args = parser.parse_args()

    models = node_test_models()
    batches = [models[i:i + BATCH_SIZE] for i in range(0, len(models), BATCH_SIZE)]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for batch_results in pool.map(lambda b: run_batch(args.graphc, b), batches):
            results.update(batch_results)

    classes = collections.defaultdict(list)
    for model in models:
        status, message = results[model]
        name = os.path.basename(os.path.dirname(model))
        classes[classify(status, message)].append((name, message))

    for kind in args.list:
        for name, message in classes[kind]:
            print(f"{kind}: {name}: {message}")
    counts = {kind: len(classes[kind])
              for kind in ("imported", "unsupported", "needs-inputs", "failed",
                           "crashed")}
    print(f"node tests: {len(models)} " +
          " ".join(f"{kind}={count}" for kind, count in counts.items()))

    with open(args.count_file) as f:
        committed = int(f.read().split()[0])
    ok = True
    for name, message in classes["crashed"]:
        print(f"error: graphc crashed on {name}: {message}")
        ok = False
    if counts["imported"] < committed:
        print(f"error: {counts['imported']} node tests imported, fewer than the "
              f"committed {committed}")
        ok = False
    if args.update and counts["imported"] > committed:
        with open(args.count_file, "w") as f:
            f.write(f"{counts['imported']}\n")
        print(f"raised the committed count from {committed} to {counts['imported']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
