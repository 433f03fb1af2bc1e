"""graphc's reduced precisions on real torch exports, against onnxruntime.

Builds the bench models with random weights (see run_bench.py), exports each
with both torch.onnx exporters, compiles it with graphc for the cpu target
(the reference kernels, which round as the cuda kernels do) at every
--precision, runs one seeded random input and compares the output with
onnxruntime's float32 run of the same ONNX file. Per row: max |error| /
max |reference| (the bench's relative error), whether that is within the
precision's tolerance (the one test/e2e checks: 1e-4 for fp32, 1e-2 for
fp16 and tf32, 6e-2 for bf16), and the weights the artifact stores.

    .venv-torch/bin/python bench/export_accuracy.py --graphc build/bin/graphc
        [--models resnet50,bert] [--exporters torchscript,dynamo]
        [--precisions fp32,fp16,bf16,tf32] [--out bench/results]

tf32 compiles with --libraries cublaslt, so that the GEMMs are library steps
(the runtime's reference GEMM rounds their operands to tf32). No GPU is
needed. Writes OUT/<date>-vm-export-accuracy.md and .json.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
from run_bench import SEQ_LEN, TEXT_MODELS, build_model, export_onnx  # noqa: E402

TOLERANCES = {"fp32": 1e-4, "fp16": 1e-2, "tf32": 1e-2, "bf16": 6e-2}


def compile_model(graphc, onnx_path, so_path, shape, precision):
    command = [graphc, "compile", onnx_path, "-o", so_path, "--target", "cpu",
               f"--shape=input={'x'.join(map(str, shape))}", "--precision", precision]
    if precision == "tf32":
        command += ["--libraries", "cublaslt"]
    start = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = (proc.stderr + proc.stdout).strip().splitlines()
        raise RuntimeError(lines[0] if lines else f"exit status {proc.returncode}")
    return time.monotonic() - start, proc.stdout


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--models", default="resnet50,vit_b_16,bert,gpt2,llama")
    parser.add_argument("--exporters", default="torchscript,dynamo")
    parser.add_argument("--precisions", default="fp32,fp16,bf16,tf32")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    args = parser.parse_args()
    args.graphc = os.path.abspath(args.graphc)
    import graphc
    import onnxruntime as ort
    import torch

    rows = []
    started = datetime.datetime.now()
    with tempfile.TemporaryDirectory(prefix="graphc-export-accuracy-") as work:
        for name in args.models.split(","):
            module, make_input = build_model(name)
            module.eval()
            x = make_input(1)
            feed = x.numpy()
            for exporter in args.exporters.split(","):
                onnx_path = os.path.join(work, f"{name}_{exporter}.onnx")
                base = {"model": name, "exporter": exporter, "batch": 1}
                if name in TEXT_MODELS:
                    base["seq"] = SEQ_LEN
                try:
                    # Outside no_grad: there torch's fast path for attention
                    # has no ONNX export.
                    export_onnx(module, x, onnx_path, exporter)
                    session = ort.InferenceSession(onnx_path,
                                                   providers=["CPUExecutionProvider"])
                    want = session.run(None, {session.get_inputs()[0].name: feed})[0]
                except Exception as error:  # one failing export must not end the run
                    rows.append(dict(base, status=f"export failed: {error}"[:300]))
                    print(rows[-1], flush=True)
                    continue
                scale = float(np.max(np.abs(want))) or 1.0
                for precision in args.precisions.split(","):
                    so_path = os.path.join(work, f"{name}_{exporter}_{precision}.so")
                    row = dict(base, precision=precision)
                    try:
                        row["compile_s"], summary = compile_model(
                            args.graphc, onnx_path, so_path, list(x.shape), precision)
                        with graphc.load(so_path) as model:
                            got = model.run({model.inputs[0].name: feed})[0]
                            got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
                        error = float(np.max(np.abs(got.astype(np.float64) - want))) / scale
                        row.update(rel_error=error,
                                   within_tolerance=error <= TOLERANCES[precision],
                                   summary=summary.strip().splitlines())
                    except Exception as error:
                        row["status"] = f"failed: {type(error).__name__}: {error}"[:300]
                    rows.append(row)
                    shown = {k: v for k, v in row.items() if k != "summary"}
                    print(shown, flush=True)
                os.remove(onnx_path)

    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, f"{started:%Y-%m-%d}-vm-export-accuracy")
    meta = {"date": started.isoformat(timespec="seconds"), "torch": torch.__version__,
            "onnxruntime": ort.__version__, "tolerances": TOLERANCES,
            "command": " ".join(sys.argv)}
    with open(stem + ".json", "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    with open(stem + ".md", "w") as f:
        f.write(f"# graphc --precision on torch exports, cpu target ({meta['date']})\n\n")
        f.write(f"`{meta['command']}`; torch {meta['torch']}, onnxruntime "
                f"{meta['onnxruntime']}. Error: max |graphc - onnxruntime fp32| / "
                "max |onnxruntime fp32|, batch 1, one seeded random input.\n\n")
        f.write("| model | exporter | precision | rel error | within tolerance | "
                "compile s |\n|---|---|---|---|---|---|\n")
        for r in rows:
            if "rel_error" in r:
                f.write(f"| {r['model']} | {r['exporter']} | {r['precision']} | "
                        f"{r['rel_error']:.2e} | {'yes' if r['within_tolerance'] else 'NO'} "
                        f"(< {TOLERANCES[r['precision']]:g}) | {r['compile_s']:.1f} |\n")
            else:
                f.write(f"| {r['model']} | {r['exporter']} | {r.get('precision', '')} | "
                        f"{r['status']} | | |\n")
    print(f"wrote {stem}.md and .json")
    return 0 if all(r.get("within_tolerance") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
