#!/usr/bin/env python3
"""Whether a graphc compiles a corpus of models to the same bytes as before.

A refactoring of the compiler (one definition per op, typed attributes, a
pass manager, moved folders) must not change what it writes. This script
compiles a fixed corpus with `graphc compile --emit exec`, `--emit
launches` (cuda) and `--emit source` (the plan with its memory slots, CUDA
codegen's launches, and every generated kernel and cpu loop) and
fingerprints each output; a compile that fails is fingerprinted by its
error message, which must not change either.

The corpus:
  models: every *.onnx in --models (the model tests' models), for cpu,
          cuda and cuda with --libraries none, in fp32, fp16 and bf16
          (launches for cuda only);
  node:   the ONNX backend node tests and model suites of the pinned onnx
          (test/conformance/node_tests.py): the source for cpu and cuda in
          fp32 and for cuda in fp16 (their plans are one or two steps, which
          the models cover), each input fixed to its first data set's shape
          as the conformance suites do.
Each model is compiled from its own directory by its file name, so that
locations in the IR do not name this checkout.

  record  write the fingerprints to --manifest (after a change that means
          to change the output; the diff of the manifest shows which cases
          moved);
  check   compare with --manifest, exit 1 naming each case that differs;
  compare compile with --base and with --graphc and name each case whose
          output differs; with --diff-dir, both outputs of each such case
          are written there.

    scripts/artifact_identity.py check --graphc build/bin/graphc \\
        --models build/test/e2e/device-models \\
        --manifest test/identity/manifest.txt
"""

import argparse
import concurrent.futures
import hashlib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "conformance"))

COMPILE_TIMEOUT_S = 120

# (name, flags) of the compile configurations.
MODEL_CONFIGS = [
    (f"{target}-{precision}-{emit}",
     ["--target", target.split("-")[0], "--precision", precision, "--emit", emit]
     + (["--libraries", "none"] if target == "cuda-generated" else []))
    for target in ("cpu", "cuda", "cuda-generated")
    for precision in ("fp32", "fp16", "bf16")
    for emit in ("exec", "launches", "source")
    if emit != "launches" or target != "cpu"
]
NODE_CONFIGS = [
    (f"{target}-{precision}-{emit}",
     ["--target", target, "--precision", precision, "--emit", emit])
    for target, precision, emit in (
        ("cpu", "fp32", "source"), ("cuda", "fp32", "source"),
        ("cuda", "fp16", "source"))
]


def corpus(models_dir, suites):
    """[(case name, model directory, model file name, extra flags, configs)]"""
    cases = []
    if "models" in suites:
        for name in sorted(os.listdir(models_dir)):
            if name.endswith(".onnx"):
                cases.append((f"models/{name[:-5]}", models_dir, name, [],
                              MODEL_CONFIGS))
    if "node" in suites:
        import onnx
        import node_tests
        for name in node_tests.node_tests() + node_tests.model_tests():
            path = node_tests.model_path(name)
            sets = node_tests.data_sets(name)
            flags = []
            if sets:
                try:
                    model = onnx.load(path, load_external_data=False)
                    flags = node_tests.shape_flags(model, sets[0][1])
                except Exception:  # graphc's own error is what counts
                    flags = []
            cases.append((f"node/{name}", os.path.dirname(path),
                          os.path.basename(path), flags, NODE_CONFIGS))
    return cases


def compile_case(graphc, directory, file_name, flags):
    """The output of one compile, or its error, as bytes."""
    command = [graphc, "compile", file_name, "--no-cache", "-q"] + flags
    try:
        proc = subprocess.run(command, cwd=directory, capture_output=True,
                              timeout=COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return b"timeout\n"
    if proc.returncode == 0:
        return proc.stdout
    return b"error %d\n" % proc.returncode + proc.stderr


def fingerprint(data):
    return hashlib.sha256(data).hexdigest()[:20]


def run_all(graphc, cases, jobs, keep_output=False):
    """{case id: fingerprint} (or the output itself with keep_output)."""
    work = [(f"{name} {config}", directory, file_name, flags + config_flags)
            for name, directory, file_name, flags, configs in cases
            for config, config_flags in configs]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(compile_case, graphc, d, f, fl): case
                   for case, d, f, fl in work}
        for future in concurrent.futures.as_completed(futures):
            data = future.result()
            results[futures[future]] = data if keep_output else fingerprint(data)
    return results


def read_manifest(path):
    entries = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            digest, case = line.split(" ", 1)
            entries[case] = digest
    return entries


def write_manifest(path, results):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("# graphc compile outputs (scripts/artifact_identity.py record):"
                " sha256 prefix, case\n")
        for case in sorted(results):
            f.write(f"{results[case]} {case}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["record", "check", "compare"])
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--base", help="compare: the graphc to compare with")
    parser.add_argument("--models", required=True,
                        help="directory of the model tests' .onnx files")
    parser.add_argument("--suites", default="models,node",
                        help="comma-separated: models, node")
    parser.add_argument("--manifest", help="record/check: the fingerprints")
    parser.add_argument("--diff-dir", help="compare: write differing outputs")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()

    suites = set(args.suites.split(","))
    unknown = suites - {"models", "node"}
    if unknown:
        parser.error(f"unknown suite(s): {', '.join(sorted(unknown))}")
    cases = corpus(os.path.abspath(args.models), suites)
    if not cases:
        print(f"artifact_identity: no models in {args.models}", file=sys.stderr)
        return 1
    graphc = os.path.abspath(args.graphc)

    if args.mode == "record":
        if not args.manifest:
            parser.error("record needs --manifest")
        results = run_all(graphc, cases, args.jobs)
        write_manifest(args.manifest, results)
        print(f"artifact_identity: recorded {len(results)} compiles in "
              f"{args.manifest}")
        return 0

    if args.mode == "check":
        if not args.manifest:
            parser.error("check needs --manifest")
        expected = read_manifest(args.manifest)
        results = run_all(graphc, cases, args.jobs)
        # Only the suites asked for are compared.
        prefixes = tuple(f"{suite}/" for suite in suites)
        expected = {c: d for c, d in expected.items() if c.startswith(prefixes)}
        changed = sorted(c for c in results if c in expected
                         and results[c] != expected[c])
        added = sorted(c for c in results if c not in expected)
        missing = sorted(c for c in expected if c not in results)
        for label, names in (("differs", changed), ("not in the manifest", added),
                             ("no longer compiled", missing)):
            for case in names[:40]:
                print(f"  {label}: {case}")
            if len(names) > 40:
                print(f"  ... and {len(names) - 40} more that {label.split()[0]}")
        if changed or added or missing:
            print(f"artifact_identity: {len(changed)} of {len(results)} outputs "
                  f"differ, {len(added)} new, {len(missing)} gone. If the "
                  "change means to alter what graphc writes, record the new "
                  "fingerprints (scripts/artifact_identity.py record ...) in "
                  "the same commit; `compare --base OLD_GRAPHC --diff-dir DIR` "
                  "shows how the outputs differ.")
            return 1
        print(f"artifact_identity: {len(results)} outputs as recorded")
        return 0

    if not args.base:
        parser.error("compare needs --base")
    keep = bool(args.diff_dir)
    new = run_all(graphc, cases, args.jobs, keep_output=keep)
    old = run_all(os.path.abspath(args.base), cases, args.jobs, keep_output=keep)
    changed = sorted(c for c in new if new[c] != old[c])
    for case in changed:
        print(f"  differs: {case}")
        if keep:
            stem = os.path.join(args.diff_dir, case.replace("/", "_").replace(" ", "."))
            os.makedirs(args.diff_dir, exist_ok=True)
            for suffix, data in (("base", old[case]), ("new", new[case])):
                with open(f"{stem}.{suffix}", "wb") as f:
                    f.write(data)
    print(f"artifact_identity: {len(changed)} of {len(new)} outputs differ")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
