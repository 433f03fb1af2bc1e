"""One artifact for many shapes, on real torch exports: BERT-base (with an
attention mask) and GPT-2 (no mask input, causal; --assume-pad-safe seq)
with random weights,
exported with dynamic batch and seq, compiled once with shape buckets for the
cpu target, and run at (batch, seq) pairs between and past the buckets
against onnxruntime on the unpadded inputs. Also times the compile: one
bucket against all of them, for cpu and for cuda (NVRTC, no GPU needed).

    .venv-torch/bin/python bench/bucket_runs.py --graphc build/bin/graphc
        [--models bert,gpt2] [--exporter auto|torchscript|dynamo] [--json out.json]

The auto exporter is TorchScript for BERT and torch.export for GPT-2, whose
TorchScript export fails inside torch 2.11 (unordered_map::at).

bash scripts/setup-torch.sh installs torch and transformers into .venv-torch
(several GB; never part of the test command).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))

BATCH_BUCKETS = "batch=1,2,4"
SEQ_BUCKETS = "seq=16,32,64"
PAIRS = [(1, 16), (1, 10), (2, 32), (3, 20), (2, 50), (6, 7)]


def build(name):
    import torch
    import transformers as tf
    torch.manual_seed(0)
    if name == "bert":
        config = tf.BertConfig()
        backbone = tf.BertModel(config, add_pooling_layer=False)
    elif name == "gpt2":
        config = tf.GPT2Config()
        backbone = tf.GPT2Model(config)
    else:
        raise ValueError(name)
    config.use_cache = False
    backbone.eval()

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = backbone

        def forward(self, input_ids, attention_mask):
            return self.backbone(input_ids=input_ids, attention_mask=attention_mask,
                                 return_dict=True).last_hidden_state

    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = backbone

        def forward(self, input_ids):
            return self.backbone(input_ids=input_ids, return_dict=True).last_hidden_state

    return (Encoder() if name == "bert" else Decoder()), config.vocab_size


def export(name, module, vocab, path, exporter):
    import torch
    ids = torch.randint(0, vocab, (2, 16))
    inputs = (ids, torch.ones_like(ids)) if name == "bert" else (ids,)
    names = ["input_ids", "attention_mask"][:len(inputs)]
    if exporter == "torchscript":
        axes = {n: {0: "batch", 1: "seq"} for n in names}
        axes["output"] = {0: "batch", 1: "seq"}
        torch.onnx.export(module, inputs, path, dynamo=False, opset_version=17,
                          input_names=names, output_names=["output"],
                          dynamic_axes=axes)
    else:
        batch, seq = torch.export.Dim("batch"), torch.export.Dim("seq", max=512)
        shapes = tuple({0: batch, 1: seq} for _ in names)
        program = torch.onnx.export(module, inputs, dynamo=True, input_names=names,
                                    output_names=["output"], dynamic_shapes=shapes)
        program.save(path)


def compile_model(graphc, onnx_path, so_path, target, buckets, extra=()):
    command = [graphc, "compile", onnx_path, "-o", so_path, "--target", target,
               "--force", *sum((["--buckets", b] for b in buckets), []), *extra]
    start = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip())
    return seconds, proc.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--runtime", default=os.path.join(ROOT, "build", "lib",
                                                          "libgraphc_runtime.so"))
    parser.add_argument("--models", default="bert,gpt2")
    parser.add_argument("--exporter", default="auto",
                        choices=["auto", "torchscript", "dynamo"])
    parser.add_argument("--json")
    args = parser.parse_args()
    os.environ.setdefault("GRAPHC_RUNTIME_LIBRARY", os.path.abspath(args.runtime))
    import graphc
    import onnxruntime as ort

    results = []
    with tempfile.TemporaryDirectory(prefix="graphc-buckets-") as work:
        for name in args.models.split(","):
            module, vocab = build(name)
            onnx_path = os.path.join(work, f"{name}.onnx")
            exporter = args.exporter
            if exporter == "auto":
                exporter = "torchscript" if name == "bert" else "dynamo"
            export(name, module, vocab, onnx_path, exporter)
            # BERT's mask makes its seq provably pad-safe. GPT-2's causal
            # mask, built inside the model, is exact under padding too, but
            # the analysis cannot prove it: --assume-pad-safe checks it.
            extra = (["--pad-value", "attention_mask=0"] if name == "bert"
                     else ["--assume-pad-safe", "seq"])
            so = os.path.join(work, f"{name}.so")
            record = {"model": name, "exporter": exporter,
                      "buckets": [BATCH_BUCKETS, SEQ_BUCKETS]}
            record["cpu_compile_s"], summary = compile_model(
                args.graphc, onnx_path, so, "cpu", [BATCH_BUCKETS, SEQ_BUCKETS], extra)
            record["summary"] = summary.strip().splitlines()
            print("\n".join(record["summary"]))
            record["cpu_compile_one_bucket_s"], _ = compile_model(
                args.graphc, onnx_path, os.path.join(work, "one.so"), "cpu",
                ["batch=1", "seq=16"], extra)
            for label, buckets in (("cuda_compile_one_bucket_s", ["batch=1", "seq=16"]),
                                   ("cuda_compile_s", [BATCH_BUCKETS, SEQ_BUCKETS])):
                record[label], _ = compile_model(
                    args.graphc, onnx_path, os.path.join(work, "cuda.so"), "cuda",
                    buckets, extra + ["--arch", "sm_90"])
            reference = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
            rng = np.random.default_rng(0)
            record["runs"] = []
            with graphc.load(so) as model:
                for batch, seq in PAIRS:
                    feeds = {"input_ids": rng.integers(0, vocab, (batch, seq), dtype=np.int64)}
                    if name == "bert":
                        mask = np.ones((batch, seq), np.int64)
                        mask[-1, seq // 2:] = 0
                        feeds["attention_mask"] = mask
                    run = {"batch": batch, "seq": seq}
                    try:
                        got = model.run(feeds)[0].numpy()
                        want = reference.run(None, feeds)[0]
                        run["max_abs_error"] = float(np.max(np.abs(got - want)))
                        run["max_abs_reference"] = float(np.max(np.abs(want)))
                    except graphc.GraphcError as error:
                        run["refused"] = str(error)
                    record["runs"].append(run)
                    print(f"  {name} batch {batch} seq {seq}: "
                          f"{run.get('max_abs_error', run.get('refused'))}")
            print(f"  compile cpu: {record['cpu_compile_one_bucket_s']:.1f} s for one "
                  f"bucket, {record['cpu_compile_s']:.1f} s for all; cuda sm_90: "
                  f"{record['cuda_compile_one_bucket_s']:.1f} s, "
                  f"{record['cuda_compile_s']:.1f} s")
            results.append(record)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
