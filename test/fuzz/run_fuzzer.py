"""Runs one libFuzzer target for the test command.

    python run_fuzzer.py FUZZER --work-dir DIR --seconds N [--seeds DIR]
                         [--dict FILE] [--replay DIR] [--jobs N] [--runs N]
                         [--seed N]

--replay runs every file of DIR once (the committed regressions) and fails
on the first that crashes. Otherwise the target fuzzes for N seconds from a
corpus in DIR/corpus (seeded from --seeds, kept between runs) with a 2 GB
memory limit and a 10 s limit per input; any crash, leak, sanitizer report,
timeout or out-of-memory fails the run and prints the reproducer's path
(written under DIR/findings) and the command that replays it. --jobs runs
that many processes side by side and --runs stops after that many
executions in all (or at N seconds, whichever comes first). --seed fixes
libFuzzer's random seed: the test command's runs then follow the same
sequence of mutations on every machine (a faster one gets further along it;
only coverage that depends on memory addresses can make runs differ), so a
longer local run of that seed vouches for CI; such a run starts from the
seeds alone, without the corpus of earlier runs.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

LIMITS = ["-rss_limit_mb=2048", "-timeout=10"]
# The ASan/UBSan options every run uses: reports abort with a stack, leaks
# are reported at exit of each input. Manual poisoning is off: LLVM's
# headers poison allocator slabs that the uninstrumented libLLVM and libMLIR
# hand out unpoisoned (see test/fuzz/CMakeLists.txt).
SANITIZER_ENV = {
    "ASAN_OPTIONS": "allow_user_poisoning=0:abort_on_error=1:detect_leaks=1"
                    ":detect_stack_use_after_return=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}


def environment(scratch):
    env = dict(os.environ)
    env.update(SANITIZER_ENV)
    # Targets that read through a scratch file keep it in the build tree.
    env["TMPDIR"] = scratch
    return env


def replay(args, env):
    inputs = sorted(p for p in glob.glob(os.path.join(args.replay, "*")) if os.path.isfile(p))
    if not inputs:
        print(f"{os.path.basename(args.fuzzer)}: no regressions in {args.replay}")
        return 0
    for path in inputs:
        proc = subprocess.run([args.fuzzer, *LIMITS, path], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace")
        if proc.returncode != 0:
            print(proc.stdout[-20000:])
            print(f"error: regression input {path} fails (exit {proc.returncode}); "
                  f"replay with:\n  {args.fuzzer} {path}")
            return 1
    print(f"{os.path.basename(args.fuzzer)}: {len(inputs)} regression inputs pass")
    return 0


def fuzz(args, env):
    corpus = os.path.join(args.work_dir, "corpus")
    findings = os.path.join(args.work_dir, "findings")
    if args.seed is not None:
        # A seeded run starts from the seeds alone, to be repeatable.
        shutil.rmtree(corpus, ignore_errors=True)
    os.makedirs(corpus, exist_ok=True)
    shutil.rmtree(findings, ignore_errors=True)
    os.makedirs(findings)
    command = [args.fuzzer, *LIMITS, f"-max_total_time={args.seconds}",
               "-print_final_stats=1", f"-artifact_prefix={findings}/"]
    if args.dict:
        command.append(f"-dict={args.dict}")
    if args.jobs > 1:
        command += [f"-jobs={args.jobs}", f"-workers={args.jobs}"]
        for log in glob.glob(os.path.join(args.work_dir, "fuzz-*.log")):
            os.remove(log)
    if args.seed is not None:
        command.append(f"-seed={args.seed}")
    if args.runs:
        command.append(f"-runs={-(-args.runs // args.jobs)}")
    # New inputs go to the first folder; the seeds stay as generated.
    command.append(corpus)
    if args.seeds:
        command.append(args.seeds)
    print(" ".join(command), flush=True)
    start = time.monotonic()
    proc = subprocess.run(command, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace",
                          cwd=args.work_dir)
    elapsed = time.monotonic() - start
    output = proc.stdout
    # Final statistics: of the one process, or of each job from its log.
    outputs = [output]
    if args.jobs > 1:
        outputs = [open(log, errors="replace").read()
                   for log in sorted(glob.glob(os.path.join(args.work_dir, "fuzz-*.log")))]
        output += "".join(outputs)
    execs, rates = [], []
    for text in outputs:
        execs += re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)[-1:]
        rates += re.findall(r"stat::average_exec_per_sec:\s*(\d+)", text)[-1:]
    reproducers = sorted(glob.glob(os.path.join(findings, "*")))
    name = os.path.basename(args.fuzzer)
    total = sum(int(n) for n in execs)
    rate = sum(int(r) for r in rates)
    if proc.returncode != 0 or reproducers:
        print(output[-30000:])
        print(f"error: {name} failed (exit {proc.returncode}) after {total} executions")
        for path in reproducers:
            print(f"  reproducer: {path}\n  replay with: {args.fuzzer} {path}")
        if not reproducers:
            print("  (no reproducer written; see the output above)")
        return 1
    print(f"{name}: {total} executions in {elapsed:.0f} s ({rate} exec/s over "
          f"{args.jobs} jobs), corpus {len(os.listdir(corpus))} inputs, no findings")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("fuzzer")
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--seconds", type=int, default=45)
    parser.add_argument("--seeds")
    parser.add_argument("--dict")
    parser.add_argument("--replay")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--runs", type=int)
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    # The fuzzer runs in the work folder, where it writes its logs.
    args.fuzzer = os.path.abspath(args.fuzzer)
    os.makedirs(args.work_dir, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="scratch-", dir=args.work_dir)
    try:
        env = environment(scratch)
        return replay(args, env) if args.replay else fuzz(args, env)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
