"""Compile-only check of the cuda target on the ONNX node tests that pass on
cpu (cpu_passing.txt): every emitted kernel must compile with NVRTC for
sm_80 and sm_90.

NVRTC-compiling each model separately would take far too long, so:
  1. `graphc compile --target cuda --libraries none --emit source` prints
     each model's CUDA source (no NVRTC, fast); without libraries, so that
     every GEMM and convolution emits the template cuBLASLt and cuDNN
     replace by default (the kernels finishing a cuDNN convolution are
     checked by test/Pipeline/cudnn-conv.test);
  2. every source is split into its kernels after the shared preamble; the
     kernels are de-duplicated by their text (with the name blanked), and each
     distinct kernel gets a unique name;
  3. the distinct kernels go, in a few batches, through
     graphc-cuda-batch-compile, which NVRTC-compiles preamble + batch with the
     compiler's own driver and options;
  4. a failing batch is bisected down to the failing kernels, which are named
     with the tests and ONNX nodes that emitted them.

The run fails when a kernel does not compile, or when a test listed in
cuda_emitting.txt no longer emits (the list may only grow; --write-lists
rewrites it).

    python cuda_compile_node_tests.py --graphc build/bin/graphc \
        --batch-compiler build/bin/graphc-cuda-batch-compile [--jobs 2]
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import onnx  # noqa: E402

import node_tests  # noqa: E402
from run_node_tests import (PASSING_LIST, SHAPE_FROM_VALUES, const_input_flags,  # noqa: E402
                             first_error_line, read_list, shape_inputs)

EMITTING_LIST = os.path.join(HERE, "cuda_emitting.txt")
EMIT_TIMEOUT_S = 120
BATCH_TIMEOUT_S = 600
KERNEL = re.compile(r'^extern "C" __global__ .*?^}\n', re.DOTALL | re.MULTILINE)
KERNEL_NAME = re.compile(r'__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s*)?(\w+)\s*\(')
ORIGIN = re.compile(r"^// (.*)$", re.MULTILINE)


def emit_source(args, name):
    """(source, None) or (None, reason) for one node test. Inputs whose
    values determine shapes are bound to the first data set's values, as
    run_node_tests.py binds them."""
    model = onnx.load(node_tests.model_path(name), load_external_data=False)
    sets = node_tests.data_sets(name)
    inputs = node_tests.graph_inputs(model)
    bound = set()
    while True:
        flags = []
        if sets:
            flags = node_tests.shape_flags(model, sets[0][1], skip=bound)
            flags += const_input_flags(args, inputs, sets[0][1], bound,
                                       name.replace("/", "__"))
        try:
            proc = subprocess.run([args.graphc, "compile", node_tests.model_path(name),
                                   "--target", "cuda", "--libraries", "none",
                                   "--emit", "source", *flags],
                                  capture_output=True, text=True, timeout=EMIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return None, f"graphc compile --emit source timed out after {EMIT_TIMEOUT_S} s"
        if proc.returncode == 0:
            return proc.stdout, None
        reason = first_error_line(proc.stderr + proc.stdout)
        if bound or not sets or SHAPE_FROM_VALUES not in reason:
            return None, reason
        bound = shape_inputs(args, name) & {v.name for v in inputs}
        if not bound:
            return None, reason


class Kernel:
    """One distinct kernel: its text with the name blanked, the name it
    gets in a batch, and every (test, emitted name, comment) that uses it."""

    def __init__(self, text, unique_name):
        self.text = text
        self.name = unique_name
        self.origins = []

    def source(self):
        return self.text.replace("@KERNEL@", self.name)

    def describe(self):
        test, emitted, comment = self.origins[0]
        more = f" (and {len(self.origins) - 1} more)" if len(self.origins) > 1 else ""
        return f"kernel {emitted} of {test}{more}: {comment}"


def split_kernels(test, body):
    """[(name, text with the name blanked, comment)] of one model's kernels,
    or a reason when the body holds something that is not a kernel."""
    kernels = []
    for match in KERNEL.finditer(body):
        text = match.group(0)
        name = KERNEL_NAME.search(text)
        if not name:
            return f"cannot find the kernel name in:\n{text[:200]}"
        before = body[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        comment = before[3:] if before.startswith("// ") else ""
        kernels.append((name.group(1),
                        re.sub(rf"\b{name.group(1)}\b", "@KERNEL@", text), comment))
    rest = KERNEL.sub("", body)
    rest = "\n".join(line for line in rest.splitlines()
                     if line.strip() and not line.startswith("//"))
    if rest:
        return f"unexpected text between kernels: {rest[:200]!r}"
    return kernels


def compile_batches(compiler, sms, work_dir, batches, jobs):
    """{batch index: None or error text} for lists of Kernels."""
    paths = []
    for i, batch in enumerate(batches):
        path = os.path.join(work_dir, f"batch{i}_{len(batch)}.cu")
        with open(path, "w") as f:
            f.write("\n".join(kernel.source() for kernel in batch))
        paths.append(path)

    def compile_one(path):
        try:
            proc = subprocess.run([compiler, "--sm", sms, path], capture_output=True,
                                  text=True, timeout=BATCH_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return f"nvrtc timed out after {BATCH_TIMEOUT_S} s"
        if proc.returncode == 0:
            return None
        return (proc.stdout + proc.stderr).strip() or f"exit status {proc.returncode}"

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(enumerate(pool.map(compile_one, paths)))


def bisect(compiler, sms, work_dir, kernels, jobs):
    """[(Kernel, error)] for the kernels of a failing batch that fail alone."""
    if len(kernels) == 1:
        error = compile_batches(compiler, sms, work_dir, [kernels], 1)[0]
        return [(kernels[0], error)] if error else []
    half = len(kernels) // 2
    halves = [kernels[:half], kernels[half:]]
    errors = compile_batches(compiler, sms, work_dir, halves, jobs)
    failing = []
    for i, part in enumerate(halves):
        if errors[i]:
            failing += bisect(compiler, sms, work_dir, part, jobs)
    return failing


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--batch-compiler", required=True,
                        help="path of graphc-cuda-batch-compile")
    parser.add_argument("--sm", default="80,90", help="SMs to compile for")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--batches", type=int, default=4,
                        help="how many modules the distinct kernels go into")
    parser.add_argument("--tests", default=PASSING_LIST,
                        help="file listing the tests to check (default: cpu_passing.txt)")
    parser.add_argument("--filter", help="only tests whose name matches this regex")
    parser.add_argument("--work-dir")
    parser.add_argument("--write-lists", action="store_true",
                        help="rewrite cuda_emitting.txt")
    args = parser.parse_args()

    tests = [t for t in read_list(args.tests)
             if os.path.isfile(node_tests.model_path(t))]
    if args.filter:
        tests = [t for t in tests if re.search(args.filter, t)]
    temporary = None
    if args.work_dir:
        shutil.rmtree(args.work_dir, ignore_errors=True)
        os.makedirs(args.work_dir)
    else:
        temporary = args.work_dir = tempfile.mkdtemp(prefix="graphc-cuda-compile-")

    preamble = subprocess.run([args.batch_compiler, "--print-preamble"],
                              capture_output=True, text=True, check=True).stdout
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        emitted = dict(zip(tests, pool.map(lambda t: emit_source(args, t), tests)))
    emit_s = time.monotonic() - start

    kernels = {}  # blanked text -> Kernel
    not_emitting = {}
    total_kernels = 0
    for test in tests:
        source, reason = emitted[test]
        if source is None:
            not_emitting[test] = reason
            continue
        if not source.startswith(preamble):
            not_emitting[test] = "the emitted source does not start with the preamble"
            continue
        parsed = split_kernels(test, source[len(preamble):])
        if isinstance(parsed, str):
            not_emitting[test] = parsed
            continue
        for emitted_name, text, comment in parsed:
            total_kernels += 1
            kernel = kernels.get(text)
            if kernel is None:
                kernel = kernels[text] = Kernel(text, f"gc_k{len(kernels)}")
            kernel.origins.append((test, emitted_name, comment))
    emitting = [t for t in tests if t not in not_emitting]

    distinct = list(kernels.values())
    count = max(1, min(args.batches, len(distinct)))
    batches = [distinct[i::count] for i in range(count)]
    start = time.monotonic()
    errors = compile_batches(args.batch_compiler, args.sm, args.work_dir, batches, args.jobs)
    failing = []
    for i, error in errors.items():
        if error:
            print(f"batch {i} ({len(batches[i])} kernels) failed; bisecting")
            failing += bisect(args.batch_compiler, args.sm, args.work_dir, batches[i],
                              args.jobs)
    nvrtc_s = time.monotonic() - start
    if temporary:
        shutil.rmtree(temporary, ignore_errors=True)

    sm_names = ",".join(f"sm_{sm}" for sm in args.sm.split(","))
    print(f"cuda source: {len(emitting)} of {len(tests)} tests emit "
          f"({total_kernels} kernels, {len(distinct)} distinct) in {emit_s:.0f} s")
    print(f"nvrtc ({sm_names}): {len(distinct) - len(failing)} of {len(distinct)} "
          f"distinct kernels compile, {len(batches)} modules in {nvrtc_s:.0f} s")
    reasons = collections.Counter(re.sub(r"'[^']*'", "'*'", r)[:140]
                                  for r in not_emitting.values())
    if reasons:
        print("not emitting, most common reasons:")
        for reason, n in reasons.most_common(12):
            print(f"  {n:4d}  {reason}")

    ok = True
    for kernel, error in failing:
        ok = False
        tests_using = sorted({origin[0] for origin in kernel.origins})
        print(f"error: {kernel.describe()} does not compile; used by "
              f"{', '.join(tests_using[:5])}{' ...' if len(tests_using) > 5 else ''}")
        for line in error.splitlines()[:15]:
            print(f"    {line}")
    if any(errors.values()) and not failing:
        ok = False
        print("error: a batch fails but no kernel fails alone (kernels clash "
              "with each other):")
        for i, error in errors.items():
            if error:
                print(f"    batch {i}: {error.splitlines()[0]}")
    listed = read_list(EMITTING_LIST)
    for test in listed:
        if test in not_emitting:
            ok = False
            print(f"error: {test} is listed in cuda_emitting.txt but no longer "
                  f"emits: {not_emitting[test]}")
    new = sorted(set(emitting) - set(listed))
    if new and not args.write_lists:
        print(f"{len(new)} tests emit cuda source that cuda_emitting.txt does not "
              "list (add them with --write-lists)")
    if args.write_lists:
        if args.filter:
            print("error: --write-lists needs the full list (no --filter)")
            return 1
        with open(EMITTING_LIST, "w") as f:
            f.write("".join(f"{t}\n" for t in sorted(set(emitting) | set(listed))))
        print(f"wrote {EMITTING_LIST}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
