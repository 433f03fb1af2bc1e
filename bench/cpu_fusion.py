"""cpu latency of graphc's fusion on real torch exports, side by side.

Builds the bench models with random weights (see run_bench.py), exports each
with a torch.onnx exporter, and compiles it for the cpu target three ways:

  unfused      --no-fusion: one host kernel per graph op
  host-chain   --no-cpu-loops: fused kernels whose ops still run one host
               kernel each, intermediates in temporaries
  loops        the default: a fusion's pointwise ops (a pointwise chain, a
               conv/gemm/mat_mul epilogue) in one generated loop

The three artifacts and onnxruntime (CPUExecutionProvider, one intra-op
thread, as graphc's cpu runtime uses one) run the same seeded input in
rounds, one run of each per round, so that they share the machine's state;
the table gives each one's median. Every graphc output is checked against
the unfused one first (max |difference| / max |unfused|).

    .venv-torch/bin/python bench/cpu_fusion.py --graphc build/bin/graphc
        [--runtime build/lib/libgraphc_runtime.so] [--models resnet50,bert]
        [--exporters torchscript,dynamo] [--rounds 7] [--out bench/results]

Each model is exported with the first of --exporters that can export it
(torch 2.11's TorchScript exporter fails on GPT-2 and Llama).

No GPU is needed. Writes OUT/<date>-vm-cpu-fusion.md and .json.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
from run_bench import TEXT_MODELS, SEQ_LEN, build_model, export_onnx  # noqa: E402

VARIANTS = {"unfused": ["--no-fusion"], "host-chain": ["--no-cpu-loops"],
            "loops": []}


def compile_variant(graphc, onnx_path, so_path, shape, flags):
    command = [graphc, "compile", onnx_path, "-o", so_path, "--target", "cpu",
               "--no-cache", f"--shape=input={'x'.join(map(str, shape))}", *flags]
    start = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = (proc.stderr + proc.stdout).strip().splitlines()
        raise RuntimeError(lines[0] if lines else f"exit status {proc.returncode}")
    return time.monotonic() - start


def as_array(value):
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--models", default="resnet50,vit_b_16,bert,gpt2,llama")
    parser.add_argument("--runtime", help="libgraphc_runtime.so (default: the "
                        "one in lib/ beside graphc's bin/)")
    parser.add_argument("--exporters", default="torchscript,dynamo")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    args = parser.parse_args()
    args.graphc = os.path.abspath(args.graphc)
    runtime = args.runtime or os.path.join(
        os.path.dirname(os.path.dirname(args.graphc)), "lib", "libgraphc_runtime.so")
    os.environ["GRAPHC_RUNTIME_LIBRARY"] = os.path.abspath(runtime)
    import graphc
    import onnxruntime as ort
    import torch

    rows = []
    started = datetime.datetime.now()
    with tempfile.TemporaryDirectory(prefix="graphc-cpu-fusion-") as work:
        for name in args.models.split(","):
            module, make_input = build_model(name)
            module.eval()
            x = make_input(1)
            feed = x.numpy()
            onnx_path = os.path.join(work, f"{name}.onnx")
            row = {"model": name, "batch": 1}
            if name in TEXT_MODELS:
                row["seq"] = SEQ_LEN
            try:
                for exporter in args.exporters.split(","):
                    try:
                        # Outside no_grad: there torch's fast path for
                        # attention has no ONNX export.
                        export_onnx(module, x, onnx_path, exporter)
                        row["exporter"] = exporter
                        break
                    except Exception as error:
                        row[f"{exporter}_export"] = f"failed: {error}"[:200]
                else:
                    raise RuntimeError("no exporter could export it")
                options = ort.SessionOptions()
                options.intra_op_num_threads = 1
                session = ort.InferenceSession(onnx_path, options,
                                               providers=["CPUExecutionProvider"])
                ort_feed = {session.get_inputs()[0].name: feed}
                models = {}
                for variant, flags in VARIANTS.items():
                    so_path = os.path.join(work, f"{name}_{variant}.so")
                    row[f"{variant}_compile_s"] = compile_variant(
                        args.graphc, onnx_path, so_path, list(x.shape), flags)
                    models[variant] = graphc.load(so_path)
                input_name = models["loops"].inputs[0].name
                outputs = {v: as_array(m.run({input_name: feed})[0])
                           for v, m in models.items()}
                reference = outputs["unfused"].astype(np.float64)
                scale = float(np.max(np.abs(reference))) or 1.0
                for variant in ("host-chain", "loops"):
                    row[f"{variant}_rel_diff"] = float(
                        np.max(np.abs(outputs[variant] - reference))) / scale
                runners = {v: (lambda m=m: m.run({input_name: feed}))
                           for v, m in models.items()}
                runners["onnxruntime"] = lambda: session.run(None, ort_feed)
                times = {v: [] for v in runners}
                for _ in range(args.rounds):
                    for variant, run in runners.items():
                        start = time.perf_counter()
                        run()
                        times[variant].append(time.perf_counter() - start)
                for variant, samples in times.items():
                    row[f"{variant}_ms"] = statistics.median(samples) * 1e3
                for model in models.values():
                    model.close()
            except Exception as error:  # one failing model must not end the run
                row["status"] = f"failed: {type(error).__name__}: {error}"[:300]
            rows.append(row)
            print(row, flush=True)
            if os.path.exists(onnx_path):
                os.remove(onnx_path)

    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, f"{started:%Y-%m-%d}-vm-cpu-fusion")
    meta = {"date": started.isoformat(timespec="seconds"), "torch": torch.__version__,
            "onnxruntime": ort.__version__, "cpu": platform.processor() or
            platform.machine(), "cores": os.cpu_count(), "rounds": args.rounds,
            "command": " ".join(sys.argv)}
    with open(stem + ".json", "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    with open(stem + ".md", "w") as f:
        f.write(f"# graphc fusion on the cpu target, torch exports ({meta['date']})\n\n")
        f.write(f"`{meta['command']}`; torch {meta['torch']}, onnxruntime "
                f"{meta['onnxruntime']} (1 intra-op thread); {meta['cores']} "
                f"cores. Batch 1 (seq {SEQ_LEN} for text models); median of {args.rounds} rounds, each running every "
                "column once. Diff: max |output - unfused| / max |unfused|.\n\n")
        f.write("| model | exporter | unfused ms | host-chain ms | loops ms | "
                "loops vs unfused | onnxruntime ms | loops diff |\n"
                "|---|---|---|---|---|---|---|---|\n")
        for row in rows:
            if "status" in row:
                f.write(f"| {row['model']} | {row.get('exporter', '')} | "
                        f"{row['status']} | | | | | |\n")
                continue
            f.write(f"| {row['model']} | {row['exporter']} | {row['unfused_ms']:.1f} | "
                    f"{row['host-chain_ms']:.1f} | {row['loops_ms']:.1f} | "
                    f"{row['unfused_ms'] / row['loops_ms']:.2f}x | "
                    f"{row['onnxruntime_ms']:.1f} | {row['loops_rel_diff']:.1e} |\n")
    print(f"wrote {stem}.md and .json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
