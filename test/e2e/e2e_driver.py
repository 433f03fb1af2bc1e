"""The command line and check loop the e2e model tests share: --graphc,
--runtime, --target, --cuda-emulation (the fake driver stands in for the
CUDA driver, cuBLASLt and cuDNN), --only and --work-dir; each check runs in
a temporary folder and prints "ok: NAME: summary" or "FAILED: NAME: why",
then the count."""
import argparse
import os
import re
import tempfile


class CheckFailed(Exception):
    pass


def run_checks(description, make_checks, prefix):
    """Parses the command line, sets the runtime's environment, and runs
    make_checks() -> [(name, check(args, name, work_dir) -> summary)].
    Returns the exit status."""
    parser = argparse.ArgumentParser(
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--runtime", help="path of libgraphc_runtime.so")
    parser.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--cuda-emulation", metavar="DRIVER",
                        help="compile with --cuda-emulation and run on this "
                        "fake CUDA driver (libgraphc_fake_cuda.so)")
    parser.add_argument("--only", help="run the cases whose name matches REGEX")
    parser.add_argument("--work-dir")
    args = parser.parse_args()
    args.graphc = os.path.abspath(args.graphc)
    if args.runtime:
        os.environ["GRAPHC_RUNTIME_LIBRARY"] = os.path.abspath(args.runtime)
    if args.cuda_emulation:
        if args.target != "cuda":
            parser.error("--cuda-emulation needs --target cuda")
        driver = os.path.abspath(args.cuda_emulation)
        for variable in ("GRAPHC_CUDA_DRIVER_LIBRARY", "GRAPHC_CUBLASLT_LIBRARY",
                         "GRAPHC_CUDNN_LIBRARY"):
            os.environ[variable] = driver
    import graphc
    checks = make_checks()
    if args.only:
        checks = [(n, f) for n, f in checks if re.search(args.only, n)]
        if not checks:
            parser.error(f"no case matches '{args.only}'")
    failed = 0
    for name, check in checks:
        with tempfile.TemporaryDirectory(prefix=f"{prefix}-{name}-",
                                         dir=args.work_dir) as work_dir:
            try:
                print(f"ok: {name}: {check(args, name, work_dir)}", flush=True)
            except (CheckFailed, graphc.GraphcError) as error:
                print(f"FAILED: {name}: {error}", flush=True)
                failed += 1
    print(f"{len(checks) - failed} of {len(checks)} checks pass")
    return 1 if failed else 0
