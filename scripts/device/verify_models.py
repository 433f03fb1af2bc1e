"""The bundle's model tests under graphc verify: for each model bucket of
models/manifest.json, the artifacts model_tests.py compiled (one per
precision, in its work dirs) are checked with

    graphc verify MODEL.onnx ARTIFACT --all --json --input NAME=FILE ...

on the stored inputs: every output against graphc's float32 cpu reference,
and every step's result (probed on the GPU: the same kernels and plan)
against the reference of the ONNX tensor it holds. Writes one JSON record
per model bucket and precision to --json; exits 1 when an artifact fails
verify or a step leaves its tolerance.

    python verify_models.py --graphc bin/graphc --models models --target cuda \
        --work-dirs fp32=DIR fp16=DIR ... --json verify.json
"""
import argparse
import json
import os
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--models", required=True, help="folder with manifest.json")
    parser.add_argument("--target", default="cuda")
    parser.add_argument("--work-dirs", nargs="+", required=True,
                        help="PRECISION=DIR: where model_tests.py compiled that precision")
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    with open(os.path.join(args.models, "manifest.json")) as f:
        manifest = json.load(f)
    records, failed = [], False
    for item in args.work_dirs:
        precision, _, work_dir = item.partition("=")
        for entry in manifest["models"]:
            so = os.path.join(work_dir, f"{entry['tag']}.{args.target}.{precision}.so")
            record = {"model": entry["tag"], "precision": precision}
            if not os.path.exists(so):
                record["status"] = "no artifact (model_tests.py did not compile it)"
                records.append(record)
                failed = True
                continue
            command = [args.graphc, "verify", os.path.join(args.models, entry["onnx"]), so,
                       "--all", "--json"]
            for name, path in entry["inputs"].items():
                command += ["--input", f"{name}={os.path.join(args.models, path)}"]
            proc = subprocess.run(command, capture_output=True, text=True)
            try:
                report = json.loads(proc.stdout)
            except ValueError:
                lines = (proc.stderr + proc.stdout).strip().splitlines()
                record["status"] = "error: " + (lines[0] if lines else f"exit {proc.returncode}")
                records.append(record)
                failed = True
                continue
            runs = report["runs"]
            steps = [s for r in runs for s in r.get("steps", [])]
            out_of_tolerance = [s for s in steps
                                if s.get("compared") and not s.get("within_tolerance")]
            record.update(
                status="pass" if report["passed"] and not out_of_tolerance else "FAIL",
                rel_errors={o["name"]: o.get("rel_error") for r in runs for o in r["outputs"]},
                steps_compared=sum(r["compared_results"] for r in runs),
                steps_out_of_tolerance=[f"step {s['step']} {s['kernel']} ({s['tensor']})"
                                        for s in out_of_tolerance])
            failed |= record["status"] != "pass"
            records.append(record)
            print(f"{entry['tag']} {precision}: {record['status']}, "
                  f"{record['steps_compared']} steps compared", flush=True)
    with open(args.json, "w") as f:
        json.dump(records, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
