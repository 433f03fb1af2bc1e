"""graphc on QDQ-quantized real models, against onnxruntime.

Builds ResNet-50 and BERT-base (with its pooler) with random weights,
exports them with the TorchScript exporter, quantizes each with
onnxruntime's static QDQ quantizer (int8 per-channel weights; int8
activations, symmetric or with zero points) or its dynamic quantizer
(int8 weights, MatMulInteger of activations quantized at run time),
compiles it with graphc for
the cpu target (and, with --cuda-emulation, for cuda on the fake driver and
libraries), and runs several seeded random inputs. Per output it reports
max |error| / range and mean |error| / range of graphc against onnxruntime
with its optimizations (the fused quantized kernels) and without them (the
QDQ ops as written), beside onnxruntime's two runs against each other: the
spread a quantized model shows between two correct implementations, since
a float rounding that differs moves a value across a quantization step.

    .venv-torch/bin/python bench/quantized_accuracy.py --graphc build/bin/graphc
        [--models resnet50,bert] [--activations symmetric,asymmetric,dynamic]
        [--seeds 5] [--cuda-emulation build/test/runtime/libgraphc_fake_cuda.so]
        [--out bench/results]

No GPU is needed. Writes OUT/<date>-vm-quantized-accuracy.md and .json.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))

SEQ_LEN = 128


def export(name, path):
    """Exports `name` with random weights; returns a feeds maker(rng)."""
    import torch
    torch.manual_seed(0)
    if name == "resnet50":
        import torchvision
        module = torchvision.models.resnet50(weights=None).eval()
        torch.onnx.export(module, (torch.randn(1, 3, 224, 224),), path,
                          dynamo=False, opset_version=17,
                          input_names=["x"], output_names=["y"])
        return lambda rng: {
            "x": rng.standard_normal((1, 3, 224, 224)).astype(np.float32)}
    import transformers
    config = transformers.BertConfig()
    bert = transformers.BertModel(config).eval()

    class Outputs(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask):
            out = self.bert(input_ids=input_ids, attention_mask=attention_mask)
            return out.last_hidden_state, out.pooler_output

    ids = torch.randint(0, config.vocab_size, (1, SEQ_LEN))
    torch.onnx.export(Outputs().eval(), (ids, torch.ones_like(ids)), path,
                      dynamo=False, opset_version=17,
                      input_names=["input_ids", "attention_mask"],
                      output_names=["last_hidden_state", "pooler_output"])
    return lambda rng: {
        "input_ids": rng.integers(0, config.vocab_size,
                                  (1, SEQ_LEN)).astype(np.int64),
        "attention_mask": np.ones((1, SEQ_LEN), np.int64)}


def quantize(float_path, path, feeds_for, activations):
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                          QuantType, quantize_dynamic,
                                          quantize_static)
    if activations == "dynamic":
        quantize_dynamic(float_path, path, weight_type=QuantType.QInt8)
        return

    class Reader(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(100)
            self.batches = iter([feeds_for(rng) for _ in range(2)])

        def get_next(self):
            return next(self.batches, None)

    quantize_static(float_path, path, Reader(), quant_format=QuantFormat.QDQ,
                    per_channel=True, weight_type=QuantType.QInt8,
                    activation_type=QuantType.QInt8,
                    extra_options={
                        "ActivationSymmetric": activations == "symmetric"})


def compile_model(graphc, model, so_path, target, emulation):
    command = [graphc, "compile", model, "-o", so_path, "--target", target]
    if emulation:
        command.append("--cuda-emulation")
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError((proc.stderr + proc.stdout).strip()[-2000:])
    summary = re.search(r"quantized: (\d+) linear op", proc.stdout)
    libraries = re.search(r"\((\d+ cuBLASLt[^)]*|\d+ cuDNN)\)", proc.stdout)
    return {"quantized_linear_ops": int(summary.group(1)) if summary else 0,
            "library_kernels": libraries.group(1) if libraries else ""}


def spread(got, want):
    span = float(want.max() - want.min())
    error = np.abs(got.astype(np.float64) - want)
    return float(error.max()) / span, float(error.mean()) / span


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--models", default="resnet50,bert")
    parser.add_argument("--activations", default="symmetric,asymmetric")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--cuda-emulation", help="the fake CUDA driver library")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    args = parser.parse_args()
    args.graphc = os.path.abspath(args.graphc)
    if args.cuda_emulation:
        library = os.path.abspath(args.cuda_emulation)
        for variable in ("GRAPHC_CUDA_DRIVER_LIBRARY", "GRAPHC_CUBLASLT_LIBRARY",
                         "GRAPHC_CUDNN_LIBRARY"):
            os.environ[variable] = library
    import graphc
    import onnxruntime as ort
    ort.set_default_logger_severity(3)

    def session(path, optimized):
        options = ort.SessionOptions()
        if not optimized:
            options.graph_optimization_level = \
                ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        return ort.InferenceSession(path, options,
                                    providers=["CPUExecutionProvider"])

    targets = [("cpu", False)] + ([("cuda", True)] if args.cuda_emulation else [])
    rows = []
    started = datetime.datetime.now()
    with tempfile.TemporaryDirectory(prefix="graphc-quantized-accuracy-") as work:
        for name in args.models.split(","):
            float_path = os.path.join(work, f"{name}.onnx")
            feeds_for = export(name, float_path)
            for activations in args.activations.split(","):
                path = os.path.join(work, f"{name}_{activations}.onnx")
                quantize(float_path, path, feeds_for, activations)
                optimized, written = session(path, True), session(path, False)
                for target, emulation in targets:
                    so_path = os.path.join(work, f"{name}_{activations}_{target}.so")
                    row = {"model": name, "activations": activations,
                           "target": target + (" (emulated)" if emulation else "")}
                    row.update(compile_model(args.graphc, path, so_path, target,
                                             emulation))
                    outputs = {}
                    with graphc.load(so_path) as compiled:
                        for seed in range(args.seeds):
                            feeds = feeds_for(np.random.default_rng(seed))
                            a = optimized.run(None, feeds)
                            b = written.run(None, feeds)
                            g = [t.numpy() for t in compiled.run(feeds)]
                            for k, output in enumerate(optimized.get_outputs()):
                                pairs = outputs.setdefault(output.name, {
                                    "graphc_vs_ort": [], "graphc_vs_ort_unoptimized": [],
                                    "ort_vs_ort_unoptimized": []})
                                pairs["graphc_vs_ort"].append(spread(g[k], a[k]))
                                pairs["graphc_vs_ort_unoptimized"].append(spread(g[k], b[k]))
                                pairs["ort_vs_ort_unoptimized"].append(spread(a[k], b[k]))
                    row["outputs"] = outputs
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, f"{started:%Y-%m-%d}-vm-quantized-accuracy")
    meta = {"date": started.isoformat(timespec="seconds"),
            "onnxruntime": ort.__version__, "seeds": args.seeds,
            "command": " ".join(sys.argv)}
    with open(stem + ".json", "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)

    def cell(values):
        worst = max(v[0] for v in values)
        median = float(np.median([v[0] for v in values]))
        mean = float(np.mean([v[1] for v in values]))
        return f"{median * 100:.1f} % ({worst * 100:.1f} %) / {mean * 100:.2f} %"

    lines = [f"# graphc on quantized models ({meta['date']}, no GPU)", "",
             f"`{meta['command']}`; onnxruntime {meta['onnxruntime']}, "
             f"{args.seeds} seeded inputs. Cells: median over inputs of max "
             "|error| / output range (worst input in parentheses) / mean "
             "|error| / range. `ort` is onnxruntime with its optimizations, "
             "`ort-u` without them (the QDQ ops as written).", "",
             "| model | activations | target | quantized ops | library kernels "
             "| output | graphc vs ort | graphc vs ort-u | ort vs ort-u |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        for output, pairs in row["outputs"].items():
            lines.append(
                f"| {row['model']} | {row['activations']} | {row['target']} "
                f"| {row['quantized_linear_ops']} | {row['library_kernels']} "
                f"| {output} | {cell(pairs['graphc_vs_ort'])} "
                f"| {cell(pairs['graphc_vs_ort_unoptimized'])} "
                f"| {cell(pairs['ort_vs_ort_unoptimized'])} |")
    with open(stem + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {stem}.md and .json")


if __name__ == "__main__":
    main()
