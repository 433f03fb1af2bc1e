"""Compiles every ONNX backend node test with graphc, runs it on each of its
data sets through the Python runtime and compares every output with the
expected one (tolerances per dtype, see node_tests.py).

Each test is classified as pass, unsupported-op, unsupported-dtype,
compile-error, run-error, wrong-result or disputed-expected (the stored
expected data contradicts the ONNX operator document, node_tests.py's
DISPUTED_EXPECTED, and graphc computes what onnxruntime does), with the
reason. The run fails when
a test listed in cpu_passing.txt no longer passes; the list may only grow:
tests that newly pass are printed, and --write-lists rewrites it together with
cpu_failures.md (every failing test with its category and reason).

    python run_node_tests.py --graphc build/bin/graphc \
        [--runtime build/lib/libgraphc_runtime.so] [--target cpu|cuda] \
        [--cuda-emulation DRIVER] [--jobs 2] [--filter REGEX] [--write-lists]

--cuda-emulation runs the cuda target without a GPU: graphc compiles the
generated CUDA for the host (graphc compile --cuda-emulation) and DRIVER, the
test driver libgraphc_fake_cuda.so, runs it (and, as the fake cuBLASLt, its
library steps). That flavour has its own lists
(cuda_emulated_*), which may only grow too.

A test whose compile fails because an input's values determine a shape, or
whose error names inputs to bind (`--const-input NAME=FILE.npy`: a Dropout's
training_mode), is compiled again as a user would: those inputs and the ones
`graphc check --json` lists under shape_inputs are bound to the data set's
values (--const-input, .npy files in the work dir) and the run takes the
others.

Work is done by worker processes (one per job) that compile with `graphc
compile` and run the .so in-process; a worker that crashes or hangs costs only
the test it was on, which is classified as a run error.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import node_tests  # noqa: E402

# Per suite and flavour (cpu, or the cuda target on the CUDA emulator): the
# tests that must pass and the failures with their reasons.
LISTS = {
    ("node", "cpu"): (os.path.join(HERE, "cpu_passing.txt"),
                      os.path.join(HERE, "cpu_failures.md")),
    ("models", "cpu"): (os.path.join(HERE, "cpu_models_passing.txt"),
                        os.path.join(HERE, "cpu_models_failures.md")),
    ("node", "cuda-emulated"): (
        os.path.join(HERE, "cuda_emulated_passing.txt"),
        os.path.join(HERE, "cuda_emulated_failures.md")),
    ("models", "cuda-emulated"): (
        os.path.join(HERE, "cuda_emulated_models_passing.txt"),
        os.path.join(HERE, "cuda_emulated_models_failures.md")),
}
SUITES = sorted({suite for suite, _ in LISTS})
PASSING_LIST, FAILURES_FILE = LISTS[("node", "cpu")]
CATEGORIES = ["pass", "unsupported-op", "unsupported-dtype", "compile-error",
              "run-error", "wrong-result", "disputed-expected"]
BATCH_SIZE = 100
COMPILE_TIMEOUT_S = 180
# A worker that prints nothing for this long is stuck on its current test.
TEST_TIMEOUT_S = 240


def classify_compile_error(message):
    if "unsupported ONNX op" in message or "unsupported opset" in message:
        return "unsupported-op"
    if re.search(r"unsupported (\w+ )?(element |data |tensor )?(type|dtype)"
                 r"|unsupported (input|output) '[^']*' of element type", message):
        return "unsupported-dtype"
    return "compile-error"


def first_error_line(text):
    """The first line of graphc's diagnostics that says what went wrong."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if "error" in line:
            return line
    return lines[0] if lines else "(no message)"


# ---------------------------------------------------------------- worker ----

def compile_model(args, name, flags, output):
    command = [args.graphc, "compile", node_tests.model_path(name), "-o", output,
               "--target", args.target, *flags]
    if args.target == "cuda" and args.arch:
        command += ["--arch", args.arch]
    if args.cuda_emulation:
        command += ["--cuda-emulation"]
    try:
        proc = subprocess.run(command, capture_output=True, text=True,
                              timeout=COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "compile-error", f"graphc compile timed out after {COMPILE_TIMEOUT_S} s"
    if proc.returncode != 0:
        message = first_error_line(proc.stderr + proc.stdout)
        if proc.returncode < 0:
            message = f"graphc crashed (signal {-proc.returncode}): {message}"
        return classify_compile_error(message), message
    return None


# How graphc says that an input's values, not its shape, determine a shape.
SHAPE_FROM_VALUES = "fixed input shapes do not determine"
# How graphc names inputs that must be bound at compile time (the shapes'
# and others, such as a Dropout's training_mode).
CONST_INPUT_HINT = re.compile(r"--const-input (\S+)=FILE\.npy")


def shape_inputs(args, name):
    """The inputs `graphc check --json` lists as determining shapes."""
    proc = subprocess.run([args.graphc, "check", "--json",
                           node_tests.model_path(name)],
                          capture_output=True, text=True,
                          timeout=COMPILE_TIMEOUT_S)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        return set()
    return {use["input"] for use in report.get("shape_inputs", [])}


def const_input_flags(args, inputs, input_protos, bound, stem):
    """--const-input flags binding the `bound` inputs to a data set's values,
    written as .npy files into the work dir."""
    import numpy as np
    flags = []
    for index, (value, proto) in enumerate(zip(inputs, input_protos)):
        if value.name not in bound:
            continue
        array = node_tests.to_array(proto)
        if array is None or array.dtype.names is not None:
            # No .npy for it (bfloat16, 8-bit floats): graphc then reports
            # the input as a shape's source.
            continue
        path = os.path.join(args.work_dir, f"{stem}.input_{index}.npy")
        np.save(path, array)
        flags += ["--const-input", f"{value.name}={path}"]
    return flags


def run_test(args, name, graphc):
    """(category, reason) for one node test."""
    import onnx
    model = onnx.load(node_tests.model_path(name), load_external_data=False)
    sets = node_tests.data_sets(name)
    if not sets:
        return "run-error", "the test has no data set"
    inputs = node_tests.graph_inputs(model)
    output_names = [value.name for value in model.graph.output]
    runtime_dtypes = node_tests.RUNTIME_DTYPES
    compiled = {}  # compile flags -> .so path
    bound = set()  # inputs bound at compile time (--const-input)
    for set_index, (set_name, input_protos, output_protos) in enumerate(sets):
        stem = name.replace("/", "__")  # model suite tests are <suite>/<test>
        flags = node_tests.shape_flags(model, input_protos, skip=bound)
        flags += const_input_flags(args, inputs, input_protos, bound,
                                   f"{stem}.{set_index}")
        key = tuple(flags)
        if key not in compiled:
            path = os.path.join(args.work_dir, f"{stem}.{len(compiled)}.so")
            failure = compile_model(args, name, flags, path)
            hinted = set(CONST_INPUT_HINT.findall(failure[1])) if failure else set()
            if failure and not bound and (SHAPE_FROM_VALUES in failure[1] or hinted):
                # As a user would: ask graphc which inputs' values determine
                # shapes (and bind those its error names) to this data set's
                # values.
                bound = ((shape_inputs(args, name) | hinted)
                         & {v.name for v in inputs})
                if bound:
                    flags = node_tests.shape_flags(model, input_protos,
                                                   skip=bound)
                    flags += const_input_flags(args, inputs, input_protos,
                                               bound, f"{stem}.{set_index}")
                    key = tuple(flags)
                    failure = compile_model(args, name, flags, path)
            if failure:
                return failure
            compiled[key] = path
        for kind, values in (("input", inputs), ("output", model.graph.output)):
            for value in values:
                elem_type = value.type.tensor_type.elem_type
                if elem_type not in runtime_dtypes:
                    verb = "take" if kind == "input" else "return"
                    return ("unsupported-dtype", f"{kind} '{value.name}' is "
                            f"{onnx.TensorProto.DataType.Name(elem_type).lower()}, "
                            f"which the Python runtime cannot {verb} (no numpy dtype)")
        feeds = {}
        for value, proto in zip(inputs, input_protos):
            if value.name in bound:
                continue
            array = node_tests.to_array(proto,
                                        value.type.tensor_type.elem_type)
            if array is None:
                return ("unsupported-dtype", f"input '{value.name}' is "
                        f"{node_tests.dtype_name(proto)}, which the Python runtime "
                        "cannot pass")
            feeds[value.name] = array
        expected = []
        for value, proto in zip(model.graph.output, output_protos):
            array = node_tests.to_array(proto, value.type.tensor_type.elem_type)
            value = value.name
            if array is None:
                return ("unsupported-dtype", f"output '{value}' is "
                        f"{node_tests.dtype_name(proto)}, which the Python runtime "
                        "cannot return")
            expected.append(array)
        try:
            with graphc.load(compiled[key]) as loaded:
                names = [info.name for info in loaded.outputs]
                if names != output_names:
                    return ("wrong-result", f"the model's outputs are {names}, "
                            f"expected {output_names}")
                actual = [tensor.numpy() for tensor in loaded.run(feeds)]
        except graphc.GraphcError as error:
            message = str(error).splitlines()[0] if str(error) else error.code
            return "run-error", f"{set_name}: {error.code}: {message}"
        disputed = None
        for value, got, want in zip(output_names, actual, expected):
            mismatch = node_tests.compare(name, value, got, want)
            if mismatch and name in node_tests.DISPUTED_EXPECTED:
                disputed = mismatch
            elif mismatch:
                return "wrong-result", f"{set_name}: {mismatch}"
        if disputed:
            # The stored data is wrong (DISPUTED_EXPECTED): graphc must then
            # compute what onnxruntime computes.
            import onnxruntime
            session = onnxruntime.InferenceSession(
                model.SerializeToString(), providers=["CPUExecutionProvider"])
            reference = session.run(None, {
                value.name: node_tests.to_array(
                    proto, value.type.tensor_type.elem_type)
                for value, proto in zip(inputs, input_protos)})
            for value, got, want in zip(output_names, actual, reference):
                mismatch = node_tests.compare(name, value, got, want)
                if mismatch:
                    return ("wrong-result", f"{set_name}: against onnxruntime: "
                            f"{mismatch}")
            return ("disputed-expected",
                    f"{set_name}: {node_tests.DISPUTED_EXPECTED[name]}; graphc "
                    f"equals onnxruntime ({disputed})")
    for path in compiled.values():
        os.remove(path)
    return "pass", ""


def worker_main(args):
    sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
    import graphc
    for name in args.tests:
        print(json.dumps({"start": name}), flush=True)
        try:
            category, reason = run_test(args, name, graphc)
        except Exception as error:  # a harness problem must not hide the rest
            category, reason = "run-error", f"harness: {type(error).__name__}: {error}"
        print(json.dumps({"test": name, "category": category, "reason": reason}),
              flush=True)
    return 0


# ------------------------------------------------------------------ main ----

def run_batch(args, tests):
    """{test: (category, reason)} for a batch, restarting the worker after a
    crash or a hang on the remaining tests."""
    results = {}
    while tests:
        command = [sys.executable, os.path.abspath(__file__), "--worker",
                   "--graphc", args.graphc, "--target", args.target,
                   "--work-dir", args.work_dir, *tests]
        if args.arch:
            command += ["--arch", args.arch]
        if args.cuda_emulation:
            command += ["--cuda-emulation", args.cuda_emulation]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        lines = queue.Queue()

        def pump(stream=proc.stdout):
            for line in stream:
                lines.put(line)
            lines.put(None)

        stderr_tail = collections.deque(maxlen=5)

        def drain(stream=proc.stderr):
            for line in stream:
                stderr_tail.append(line.rstrip())

        threading.Thread(target=pump, daemon=True).start()
        threading.Thread(target=drain, daemon=True).start()
        current, hung = None, False
        while True:
            try:
                line = lines.get(timeout=TEST_TIMEOUT_S)
            except queue.Empty:
                hung = True
                proc.kill()
                break
            if line is None:
                break
            record = json.loads(line)
            if "start" in record:
                current = record["start"]
            else:
                results[record["test"]] = (record["category"], record["reason"])
                current = None
        proc.wait()
        remaining = [t for t in tests if t not in results]
        if not remaining:
            break
        victim = current or remaining[0]
        if hung:
            results[victim] = ("run-error", f"timed out after {TEST_TIMEOUT_S} s")
        else:
            tail = stderr_tail[-1] if stderr_tail else ""
            results[victim] = ("run-error", f"crashed the runtime (exit status "
                               f"{proc.returncode}){': ' + tail if tail else ''}")
        tests = [t for t in remaining if t != victim]
    return results


def read_list(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def write_failures(path, results, suite, target):
    by_category = collections.defaultdict(list)
    for name, (category, reason) in sorted(results.items()):
        if category != "pass":
            by_category[category].append((name, reason))
    with open(path, "w") as f:
        title = "node tests" if suite == "node" else "test models"
        f.write(f"# ONNX {title} that do not pass on the {target} target\n\n")
        flags = "" if suite == "node" else f"--suite {suite} "
        if target != "cpu":
            flags += "--target cuda --cuda-emulation DRIVER "
        f.write(f"Generated by `test/conformance/run_node_tests.py {flags}"
                "--write-lists`; do not edit.\n\n")
        for category in CATEGORIES[1:]:
            entries = by_category.get(category, [])
            f.write(f"## {category} ({len(entries)})\n\n")
            for name, reason in entries:
                reason = reason.replace("|", "\\|")
                if len(reason) > 300:
                    reason = reason[:300] + " ..."
                f.write(f"- `{name}`: {reason}\n")
            f.write("\n")


def summarize_reasons(results, category, limit=12):
    """The most common reasons of a category, with node/tensor names and
    numbers blanked so that similar failures group together."""
    counter = collections.Counter()
    for category_, reason in results.values():
        if category_ == category:
            key = re.sub(r"'[^']*'", "'*'", reason)
            key = re.sub(r"\d+", "N", key)
            counter[key[:140]] += 1
    return counter.most_common(limit)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True, help="path of the graphc binary")
    parser.add_argument("--runtime", help="path of libgraphc_runtime.so "
                        "(default: $GRAPHC_RUNTIME_LIBRARY)")
    parser.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--arch", help="--arch for the cuda target (e.g. sm_90)")
    parser.add_argument("--cuda-emulation", metavar="DRIVER",
                        help="compile with --cuda-emulation and run on this "
                        "CUDA driver and cuBLASLt library "
                        "(libgraphc_fake_cuda.so)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--filter", help="only tests whose name matches this regex")
    parser.add_argument("--work-dir", help="where the .so files go (default: a "
                        "temporary directory)")
    parser.add_argument("--suite", choices=SUITES, default="node",
                        help="the ONNX node tests, or the other test models "
                        "onnx ships (pytorch-converted, pytorch-operator, "
                        "simple, light)")
    parser.add_argument("--expected", help="tests that must pass (default: "
                        "the suite's cpu_*passing.txt, or cuda_emulated_* "
                        "with --cuda-emulation)")
    parser.add_argument("--write-lists", action="store_true",
                        help="rewrite the suite's passing list and failures file")
    parser.add_argument("--list", action="append", default=[], choices=CATEGORIES,
                        help="print the tests of this category with reasons")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("tests", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.graphc = os.path.abspath(args.graphc)
    if args.cuda_emulation:
        if args.target != "cuda":
            parser.error("--cuda-emulation needs --target cuda")
        args.cuda_emulation = os.path.abspath(args.cuda_emulation)
        os.environ["GRAPHC_CUDA_DRIVER_LIBRARY"] = args.cuda_emulation
        # The fake driver is the fake cuBLASLt and cuDNN too: library steps
        # (GEMMs, convolutions) run there, on the fake's streams.
        os.environ["GRAPHC_CUBLASLT_LIBRARY"] = args.cuda_emulation
        os.environ["GRAPHC_CUDNN_LIBRARY"] = args.cuda_emulation
    flavour = "cuda-emulated" if args.cuda_emulation else "cpu"
    passing_list, failures_file = LISTS[(args.suite, flavour)]
    if not args.expected:
        args.expected = passing_list
    if args.runtime:
        os.environ["GRAPHC_RUNTIME_LIBRARY"] = os.path.abspath(args.runtime)
    if args.worker:
        return worker_main(args)
    # Every worker needs the runtime: fail once, clearly, rather than once
    # per test.
    sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
    try:
        import graphc  # noqa: F401
    except (ImportError, OSError) as error:
        print(f"error: cannot load the graphc Python runtime: {error}")
        return 1

    temporary = None
    if args.work_dir:
        os.makedirs(args.work_dir, exist_ok=True)
    else:
        temporary = args.work_dir = tempfile.mkdtemp(prefix="graphc-node-tests-")
    tests = (node_tests.node_tests() if args.suite == "node"
             else node_tests.model_tests())
    if args.filter:
        tests = [t for t in tests if re.search(args.filter, t)]
    start = time.monotonic()
    # Interleaved batches spread the slow tests (big convolutions, long
    # sequences of one op family) over the jobs.
    count = max(1, (len(tests) + BATCH_SIZE - 1) // BATCH_SIZE)
    batches = [tests[i::count] for i in range(count)]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for batch_results in pool.map(lambda b: run_batch(args, b), batches):
            results.update(batch_results)
    elapsed = time.monotonic() - start
    if temporary:
        shutil.rmtree(temporary, ignore_errors=True)

    counts = collections.Counter(category for category, _ in results.values())
    for category in args.list:
        for name, (category_, reason) in sorted(results.items()):
            if category_ == category:
                print(f"{category}: {name}: {reason}")
    print(f"{args.suite} tests ({flavour if args.cuda_emulation else args.target}): "
          f"{len(tests)} in {elapsed:.0f} s: " +
          " ".join(f"{c}={counts.get(c, 0)}" for c in CATEGORIES))
    for category in CATEGORIES[1:]:
        common = summarize_reasons(results, category)
        if common:
            print(f"{category}, most common reasons:")
            for reason, n in common:
                print(f"  {n:4d}  {reason}")

    passing = sorted(name for name, (category, _) in results.items()
                     if category == "pass")
    expected = [t for t in read_list(args.expected) if t in results]
    regressions = [t for t in expected if results[t][0] != "pass"]
    new = sorted(set(passing) - set(read_list(args.expected)))
    if new:
        print(f"{len(new)} tests pass that {os.path.basename(args.expected)} "
              "does not list (add them with --write-lists):")
        for name in new:
            print(f"  {name}")
    ok = True
    for name in regressions:
        category, reason = results[name]
        print(f"error: {name} is listed as passing but is now {category}: {reason}")
        ok = False
    if args.write_lists:
        if args.filter or (args.target != "cpu" and not args.cuda_emulation):
            print("error: --write-lists needs a full suite (no --filter) on cpu "
                  "or with --cuda-emulation")
            return 1
        with open(passing_list, "w") as f:
            f.write("".join(f"{name}\n" for name in sorted(set(passing) | set(expected))))
        write_failures(failures_file, results, args.suite, flavour)
        print(f"wrote {passing_list} and {failures_file}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
