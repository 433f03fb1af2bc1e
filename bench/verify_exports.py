"""graphc verify on real torch exports: every artifact against graphc's
float32 cpu reference of its own ONNX file.

Builds the bench models with random weights (see run_bench.py), exports each
with the torch.onnx exporters asked for, compiles it with graphc (cpu target
by default: no GPU needed) at each --precision, and runs

    graphc verify MODEL.onnx MODEL.so --random-inputs N --json [--all]

Per row: whether verify passed (every output within the precision's
tolerance: lib/Support/TensorCompare.h), each output's max |error| / max
|reference|, the steps compared through the probes, and on a failure the
first step out of tolerance with its ONNX nodes and diagnosis.

    .venv-torch/bin/python bench/verify_exports.py --graphc build/bin/graphc
        [--models resnet50,vit_b_16,bert,gpt2] [--exporters torchscript,dynamo]
        [--precisions fp16,bf16] [--target cpu|cuda] [--random-inputs 1]
        [--all] [--out bench/results]

Writes OUT/<date>-<host>-verify-exports.md and .json (host: "vm" for the cpu
target, else "gpu").
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_bench import SEQ_LEN, TEXT_MODELS, build_model, export_onnx  # noqa: E402


def run(command):
    proc = subprocess.run(command, capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def first_line(stdout, stderr, returncode):
    lines = (stderr + stdout).strip().splitlines()
    return lines[0] if lines else f"exit status {returncode}"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--models", default="resnet50,vit_b_16,bert,gpt2")
    parser.add_argument("--exporters", default="torchscript,dynamo")
    parser.add_argument("--precisions", default="fp16,bf16")
    parser.add_argument("--target", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--random-inputs", type=int, default=1)
    parser.add_argument("--all", action="store_true",
                        help="compare every step, not only after a failure")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    args = parser.parse_args()
    args.graphc = os.path.abspath(args.graphc)
    import torch

    rows = []
    started = datetime.datetime.now()
    with tempfile.TemporaryDirectory(prefix="graphc-verify-exports-") as work:
        for name in args.models.split(","):
            module, make_input = build_model(name)
            module.eval()
            x = make_input(1)
            for exporter in args.exporters.split(","):
                onnx_path = os.path.join(work, f"{name}_{exporter}.onnx")
                base = {"model": name, "exporter": exporter, "batch": 1}
                if name in TEXT_MODELS:
                    base["seq"] = SEQ_LEN
                try:
                    export_onnx(module, x, onnx_path, exporter)
                except Exception as error:  # one failing export must not end the run
                    rows.append(dict(base, status=f"export failed: {error}"[:300]))
                    print(rows[-1], flush=True)
                    continue
                for precision in args.precisions.split(","):
                    so_path = os.path.join(work, f"{name}_{exporter}_{precision}.so")
                    row = dict(base, precision=precision)
                    shape = "x".join(map(str, x.shape))
                    compile_cmd = [args.graphc, "compile", onnx_path, "-o", so_path,
                                   "--target", args.target, f"--shape=input={shape}",
                                   "--precision", precision]
                    start = time.monotonic()
                    code, out, err = run(compile_cmd)
                    row["compile_s"] = time.monotonic() - start
                    if code != 0:
                        row["status"] = "compile failed: " + first_line(out, err, code)
                        rows.append(row)
                        print(row, flush=True)
                        continue
                    verify_cmd = [args.graphc, "verify", onnx_path, so_path,
                                  "--random-inputs", str(args.random_inputs), "--json"]
                    if args.all:
                        verify_cmd.append("--all")
                    start = time.monotonic()
                    code, out, err = run(verify_cmd)
                    row["verify_s"] = time.monotonic() - start
                    try:
                        report = json.loads(out)
                    except ValueError:
                        row["status"] = "verify failed: " + first_line(out, err, code)
                        rows.append(row)
                        print(row, flush=True)
                        continue
                    row["passed"] = bool(report["passed"]) and code == 0
                    row["tolerance"] = report["rtol"]
                    row["outputs"] = [
                        {"name": o.get("name"), "rel_error": o.get("rel_error"),
                         "nan": o.get("nan"), "inf": o.get("inf")}
                        for r in report["runs"] for o in r["outputs"]]
                    row["compared_steps"] = sum(r["compared_results"] for r in report["runs"])
                    row["uncompared_steps"] = sum(r["uncompared_results"] for r in report["runs"])
                    failing = [r.get("first_failing_step") for r in report["runs"]
                               if r.get("first_failing_step")]
                    if failing:
                        step = failing[0]
                        diagnosis = step.get("diagnosis") or {}
                        row["first_failing_step"] = (
                            f"step {step['step']} {step['kernel']} ({step['tensor']}, "
                            f"nodes {','.join(step['onnx_nodes'])})"
                            + (f": {diagnosis['kind']}" if diagnosis else ""))
                    rows.append(row)
                    print({k: v for k, v in row.items() if k != "outputs"}, flush=True)
                os.remove(onnx_path)

    os.makedirs(args.out, exist_ok=True)
    host = "vm" if args.target == "cpu" else "gpu"
    stem = os.path.join(args.out, f"{started:%Y-%m-%d}-{host}-verify-exports")
    meta = {"date": started.isoformat(timespec="seconds"), "torch": torch.__version__,
            "target": args.target, "command": " ".join(sys.argv)}
    with open(stem + ".json", "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    with open(stem + ".md", "w") as f:
        f.write(f"# graphc verify on torch exports, {args.target} target ({meta['date']})\n\n")
        f.write(f"`{meta['command']}`; torch {meta['torch']}. Each artifact against "
                "graphc's float32 cpu reference of its ONNX file, batch 1, seeded random "
                "inputs. Error: max |artifact - reference| / max |reference| per output.\n\n")
        f.write("| model | exporter | precision | verify | output rel error (tolerance) | "
                "steps compared | compile s | verify s |\n|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            if "passed" in r:
                errors = ", ".join(f"{o['rel_error']:.2e}" if isinstance(o["rel_error"], float)
                                   else str(o["rel_error"]) for o in r["outputs"])
                verdict = "pass" if r["passed"] else "FAIL"
                if r.get("first_failing_step"):
                    verdict += f" (first step: {r['first_failing_step']})"
                f.write(f"| {r['model']} | {r['exporter']} | {r['precision']} | {verdict} | "
                        f"{errors} (< {r['tolerance']:g}) | {r['compared_steps']} | "
                        f"{r['compile_s']:.1f} | {r['verify_s']:.1f} |\n")
            else:
                f.write(f"| {r['model']} | {r['exporter']} | {r.get('precision', '')} | "
                        f"{r['status']} | | | | |\n")
    print(f"wrote {stem}.md and .json")
    return 0 if rows and all(r.get("passed") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
