"""The bundle's model tests: compiles each model of models/manifest.json for
a target, runs it on the stored inputs through the Python runtime and compares
every output with the stored onnxruntime reference (the f32 tolerances of
test/e2e; with --precision fp16, bf16 or tf32, that precision's tolerance
relative to the output's magnitude, as test/e2e has it). Writes one JSON
record per model bucket to --json.

    python model_tests.py --graphc bin/graphc --models models \
        --target cuda --arch sm_90 [--precision fp16] --work-dir DIR --json results.json

--cuda-emulation DRIVER runs the cuda target on the fake driver (which is the
fake cuBLASLt and cuDNN too), as CI does; --only TAG,... picks models.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


# Relative tolerances of the reduced precisions (test/e2e/run_model_tests.py).
NARROW_TOLERANCES = {"fp16": 1e-2, "bf16": 6e-2, "tf32": 1e-2}


def run_one(args, graphc, entry):
    so = os.path.join(args.work_dir, f"{entry['tag']}.{args.target}.{args.precision}.so")
    command = [args.graphc, "compile", os.path.join(args.models, entry["onnx"]),
               "-o", so, "--target", args.target, "--precision", args.precision,
               *[f"--dim={k}={v}" for k, v in entry["dims"].items()]]
    if args.target == "cuda" and args.arch:
        command += ["--arch", args.arch]
    if args.cuda_emulation:
        command += ["--cuda-emulation"]
    start = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True)
    compile_s = time.monotonic() - start
    if proc.returncode != 0:
        lines = (proc.stderr + proc.stdout).strip().splitlines()
        return {"status": "compile-error", "compile_s": compile_s,
                "reason": lines[0] if lines else f"exit status {proc.returncode}"}
    feeds = {name: np.load(os.path.join(args.models, path))
             for name, path in entry["inputs"].items()}
    try:
        with graphc.load(so) as model:
            names = [o.name for o in model.outputs]
            want_names = [o["name"] for o in entry["outputs"]]
            if names != want_names:
                return {"status": "wrong-result", "compile_s": compile_s,
                        "reason": f"outputs {names}, the reference has {want_names}"}
            with model.session() as session:
                # numpy arrays, or graphc.Tensor objects (copied out by
                # .numpy()) from the package versions that return device
                # tensors.
                actual = [t.numpy() if hasattr(t, "numpy") else np.asarray(t)
                          for t in session.run(feeds)]
                libraries = library_summary(session.library_kernels())
    except graphc.GraphcError as error:
        return {"status": "run-error", "compile_s": compile_s,
                "reason": f"{error.code}: {str(error).splitlines()[0] if str(error) else ''}"}
    errors = {}
    for output, got in zip(entry["outputs"], actual):
        want = np.load(os.path.join(args.models, output["file"]))
        if got.shape != want.shape or got.dtype != want.dtype:
            return {"status": "wrong-result", "compile_s": compile_s,
                    "reason": f"output '{output['name']}': {got.dtype}{list(got.shape)}, "
                              f"the reference is {want.dtype}{list(want.shape)}"}
        error = float(np.max(np.abs(got.astype(np.float64) - want))) if got.size else 0.0
        errors[output["name"]] = error
        rtol, atol = args.rtol, args.atol
        if args.precision in NARROW_TOLERANCES and got.dtype.kind == "f":
            rtol = NARROW_TOLERANCES[args.precision]
            atol = rtol * max(1.0, float(np.max(np.abs(want)))) if want.size else rtol
        if not np.allclose(got, want, rtol=rtol, atol=atol):
            return {"status": "wrong-result", "compile_s": compile_s,
                    "max_abs_error": errors,
                    "reason": f"output '{output['name']}' differs from onnxruntime: "
                              f"max |error| {error:.3g} (rtol {rtol:g}, atol {atol:g})"}
    return {"status": "pass", "compile_s": compile_s, "max_abs_error": errors,
            "libraries": libraries}


def e2e_model_tests():
    """test/e2e/run_model_tests.py, from the repository (this file in
    scripts/device/) or from a device bundle (in scripts/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for root in (os.path.dirname(here), os.path.dirname(os.path.dirname(here))):
        e2e = os.path.join(root, "test", "e2e")
        if os.path.exists(os.path.join(e2e, "run_model_tests.py")):
            sys.path.insert(0, e2e)
            import run_model_tests
            return run_model_tests
    raise ImportError("no test/e2e/run_model_tests.py above " + here)


def library_summary(kernels):
    """Per library: its kernels, how many it computes whole (the rest run
    alone and then graphc's finishing kernel, or for attention, cuDNN's SDPA
    counted apart as "cudnn-sdpa", graphc's fallback kernel instead), and
    the kernels whose planned rank is not the one the artifact asked for,
    and why each kernel not computed whole was not (the library's words)."""
    summary = {}
    for k in kernels:
        name = "cudnn-sdpa" if k["kind"] == "attention" else k["library"]
        entry = summary.setdefault(name, {"kernels": 0, "fused": 0,
                                          "rank_differs": [], "not_fused": {}})
        entry["kernels"] += 1
        entry["fused"] += bool(k["fused"])
        if k.get("why_not_fused"):
            entry["not_fused"][k["kernel"]] = k["why_not_fused"]
        if k["rank"] is not None and k["rank"] != k["requested_rank"]:
            entry["rank_differs"].append(k["kernel"])
    return summary


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--models", required=True, help="folder with manifest.json")
    parser.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--arch")
    parser.add_argument("--precision", choices=["fp32", "tf32", "fp16", "bf16"],
                        default="fp32", help="graphc compile --precision")
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--only", help="comma-separated model tags")
    parser.add_argument("--cuda-emulation", metavar="DRIVER",
                        help="run the cuda target on this fake driver library")
    parser.add_argument("--cudnn-refuse-fusion", action="store_true",
                        help="with --cuda-emulation: the fake cuDNN fuses no epilogue")
    parser.add_argument("--cudnn-refuse-sdpa", action="store_true",
                        help="with --cuda-emulation: the fake cuDNN offers no SDPA engine")
    args = parser.parse_args()
    # The emulated driver is set up as the e2e model tests set it up.
    e2e_model_tests().apply_compile_arguments(parser, args)
    args.graphc = os.path.abspath(args.graphc)
    os.makedirs(args.work_dir, exist_ok=True)
    with open(os.path.join(args.models, "manifest.json")) as f:
        manifest = json.load(f)
    args.rtol, args.atol = manifest["rtol"], manifest["atol"]
    import graphc
    results = []
    models = manifest["models"]
    if args.only:
        tags = args.only.split(",")
        unknown = sorted(set(tags) - {e["tag"] for e in models})
        if unknown:
            parser.error(f"--only: no model tagged {', '.join(unknown)}")
        models = [e for e in models if e["tag"] in tags]
    for entry in models:
        try:
            record = run_one(args, graphc, entry)
        except Exception as error:  # one broken model must not hide the rest
            record = {"status": "run-error",
                      "reason": f"harness: {type(error).__name__}: {error}"}
        record.update(tag=entry["tag"], target=args.target, precision=args.precision)
        results.append(record)
        detail = record.get("reason") or ", ".join(
            f"'{k}' max |error| {v:.3g}" for k, v in record["max_abs_error"].items())
        for library, counts in record.get("libraries", {}).items():
            detail += (f"; {library}: {counts['fused']} of {counts['kernels']} kernels "
                       "fused whole")
            if counts["rank_differs"]:
                detail += f" ({len(counts['rank_differs'])} not at their requested rank)"
        print(f"  {entry['tag']} ({args.target}, {args.precision}): {record['status']}: "
              f"{detail}", flush=True)
        for counts in record.get("libraries", {}).values():
            for kernel, why in counts["not_fused"].items():
                print(f"    {kernel} not fused: {why}", flush=True)
    with open(args.json, "w") as f:
        json.dump(results, f, indent=1)
    failed = sum(r["status"] != "pass" for r in results)
    print(f"model tests ({args.target}, {args.precision}): {len(results) - failed} of "
          f"{len(results)} pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
