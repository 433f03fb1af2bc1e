"""Kernel launches per run of real torch exports, compiled by graphc for cuda.

Builds the bench models with random weights (see run_bench.py), exports each
with both torch.onnx exporters, and compiles it with graphc for the cuda
target up to the exec stage (no NVRTC, no GPU needed). Per model and
exporter: the ONNX nodes, the graph ops after the graph rewrites, the
launches and copies of the run plan with fusion and without (--no-fusion:
one kernel per op; a cuBLASLt or cuDNN call counts as one launch), the DRAM traffic the cost model estimates for both, the
H100 roofline time of the fused plan, and the arena against the liveness
lower bound (the most intermediate bytes live at once) and the sum of all
intermediates.

    .venv-torch/bin/python bench/launch_counts.py --graphc build/bin/graphc
        [--models resnet50,bert,bert_masked,gpt2] [--exporters torchscript,dynamo]
        [--batch 1] [--libraries auto|none] [--precision fp32|fp16|...]
        [--json out.json]

--libraries none measures fusion alone: every GEMM and convolution a
generated kernel that takes in its whole epilogue. The default (auto) is what
graphc compiles for cuda: GEMMs are cuBLASLt calls and convolutions cuDNN
calls, and the epilogue ops a library cannot fuse become kernels of their own.

bert_masked is BERT-base called with an attention_mask input (ones), as
Hugging Face exports it for serving: the padding mask becomes an additive
bias (Unsqueeze, Expand, Cast, Sub, Cast, Where with the type's lowest value)
that every layer's attention reads.

bash scripts/setup-torch.sh installs torch, torchvision and transformers
into .venv-torch (several GB; never part of the test command).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_bench import MODELS, build_model, export_onnx  # noqa: E402

ARENA = re.compile(r"arena_bytes = (\d+) : i64.*intermediate_bytes = (\d+) : i64")
KERNEL = re.compile(r"^\s*exec\.kernel @(\S+) .*?attributes \{(.*)$", re.M)
# Generated kernel launches and library calls (each at least one launch).
LAUNCH = re.compile(r"^\s*exec\.(?:launch|library_call) @(\S+) \[([^\]]*)\]", re.M)
LIBRARY_CALL = re.compile(r"^\s*exec\.library_call ", re.M)
LIVE_BOUND = re.compile(r"live_bytes_bound = (\d+) : i64")
# The slots a launch reads or writes that are not weights (constants and
# absent arguments are neither).
ACTIVATION_SLOT = re.compile(r"#exec\.slot<(?:input|output|arena), \d+, \d+, (\d+)>")
COPY = re.compile(r"^\s*exec\.copy <\w+, \d+, \d+, (\d+)>", re.M)
# graphc compile --libraries and --precision for every compile (set from
# the command line).
LIBRARIES = "auto"
PRECISION = "fp32"
# graphc inspect's H100 figures: DRAM bandwidth, fp32 peak.
H100_BYTES_PER_S, H100_FP32_FLOPS_PER_S = 3.35e12, 67e12


def attribute(text, name):
    found = re.search(name + r" = (\d+) : i64", text)
    return int(found.group(1)) if found else 0


def plan_cost(exec_ir):
    """DRAM bytes, the part of them that is not weights, flops and H100
    roofline microseconds of the plan, from the cost model's attributes on
    each exec.kernel (graphc-estimate-kernel-cost)."""
    kernels = {name: (attribute(attrs, "bytes_read") + attribute(attrs, "bytes_written"),
                      attribute(attrs, "flops"))
               for name, attrs in KERNEL.findall(exec_ir)}
    moved = flops = activations = 0
    seconds = 0.0
    for name, slots in LAUNCH.findall(exec_ir):
        kernel_bytes, kernel_flops = kernels[name]
        moved += kernel_bytes
        # Each activation argument read or written once: the cost model's
        # bytes less the weights' (which, for a gathered table, are only its
        # rows read).
        activations += sum(int(size) for size in ACTIVATION_SLOT.findall(slots))
        flops += kernel_flops
        seconds += max(kernel_bytes / H100_BYTES_PER_S, kernel_flops / H100_FP32_FLOPS_PER_S)
    for size in COPY.findall(exec_ir):
        moved += 2 * int(size)
        activations += 2 * int(size)
        seconds += 2 * int(size) / H100_BYTES_PER_S
    return moved, activations, flops, seconds * 1e6


def compile_stage(graphc, onnx_path, shapes, stage, *flags):
    proc = subprocess.run(
        [graphc, "compile", onnx_path, "--target", "cuda", *shapes,
         "--emit", stage, f"--libraries={LIBRARIES}", f"--precision={PRECISION}",
         *flags],
        capture_output=True, text=True)
    if proc.returncode != 0:
        lines = (proc.stderr + proc.stdout).strip().splitlines()
        raise RuntimeError(lines[0] if lines else f"graphc exit {proc.returncode}")
    return proc.stdout


def count(graphc, onnx_path, shape):
    import onnx
    model = onnx.load(onnx_path, load_external_data=False)
    # A masked model's attention_mask has the ids' shape.
    shapes = [f"--shape={value.name}={shape}" for value in model.graph.input
              if value.name in ("input", "attention_mask")]
    graph_ir = compile_stage(graphc, onnx_path, shapes, "graph")
    exec_ir = compile_stage(graphc, onnx_path, shapes, "exec")
    unfused_ir = compile_stage(graphc, onnx_path, shapes, "exec", "--no-fusion")
    graph_ops = [m for m in re.findall(r"= graph\.([a-z_0-9]+)", graph_ir)
                 if m != "constant"]
    arena = ARENA.search(exec_ir)
    bound = LIVE_BOUND.search(exec_ir)
    moved, activations, flops, micros = plan_cost(exec_ir)
    unfused_moved, unfused_activations, unfused_flops, _ = plan_cost(unfused_ir)
    # graph.attention counts its scale, mask and softmax work once where the
    # unfused chain counts each pointwise op, and a causal one only the
    # scores on and below the diagonal: a few percent of the products.
    if abs(unfused_flops - flops) > 0.05 * unfused_flops:
        raise RuntimeError(f"fusion changed the flops: {unfused_flops} -> {flops}")
    return {
        "onnx_nodes": len(model.graph.node),
        "graph_ops": len(graph_ops),
        "unfused_launches": len(LAUNCH.findall(unfused_ir)),
        "dram_bytes": moved,
        "unfused_dram_bytes": unfused_moved,
        "activation_bytes": activations,
        "unfused_activation_bytes": unfused_activations,
        "flops": flops,
        "h100_roofline_us": micros,
        "launches": len(LAUNCH.findall(exec_ir)),
        "library_calls": len(LIBRARY_CALL.findall(exec_ir)),
        "copies": len(re.findall(r"^\s*exec\.copy ", exec_ir, re.M)),
        "kernels": len(re.findall(r"^\s*exec\.kernel ", exec_ir, re.M)),
        "arena_bytes": int(arena.group(1)) if arena else None,
        "intermediate_bytes": int(arena.group(2)) if arena else None,
        "live_bytes_bound": int(bound.group(1)) if bound else None,
    }


MASKED = {"bert_masked": "bert"}


def build_masked_model(name):
    """(module taking input ids and an attention mask, input maker): the
    Hugging Face backbone of `name` called with a mask of ones."""
    import torch
    module, make_input = build_model(MASKED[name])
    backbone = module.backbone

    class MaskedLastHiddenState(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = backbone

        def forward(self, input_ids, attention_mask):
            return self.backbone(input_ids=input_ids, attention_mask=attention_mask,
                                 return_dict=True).last_hidden_state

    return MaskedLastHiddenState(), make_input


def export_masked(module, ids, path, exporter):
    import torch
    inputs = (ids, torch.ones_like(ids))
    names = ["input", "attention_mask"]
    if exporter == "torchscript":
        torch.onnx.export(module, inputs, path, dynamo=False, opset_version=17,
                          input_names=names, output_names=["output"])
    else:
        program = torch.onnx.export(module, inputs, dynamo=True, input_names=names,
                                    output_names=["output"])
        program.save(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--exporters", default="torchscript,dynamo")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--libraries", default="auto",
                        help="graphc compile --libraries: auto, none, or a "
                        "list of cublaslt and cudnn")
    parser.add_argument("--precision", default="fp32",
                        choices=["fp32", "tf32", "fp16", "bf16"],
                        help="graphc compile --precision")
    parser.add_argument("--json")
    args = parser.parse_args()
    global LIBRARIES, PRECISION
    LIBRARIES = args.libraries
    PRECISION = args.precision

    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name in args.models.split(","):
            module, make_input = (build_masked_model(name) if name in MASKED
                                  else build_model(name))
            module.eval()
            example = make_input(args.batch)
            shape = "x".join(str(d) for d in example.shape)
            for exporter in args.exporters.split(","):
                path = os.path.join(work, f"{name}-{exporter}.onnx")
                row = {"model": name, "exporter": exporter, "input": shape}
                # Failures are reported in the table, not fatal; the row says
                # whether torch's exporter or graphc failed.
                try:
                    if name in MASKED:
                        export_masked(module, example, path, exporter)
                    else:
                        export_onnx(module, example, path, exporter)
                except Exception as error:
                    row["error"] = "torch export: " + str(error).splitlines()[0][:200]
                else:
                    try:
                        row.update(count(args.graphc, path, shape))
                    except Exception as error:
                        row["error"] = "graphc: " + str(error).splitlines()[0][:200]
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)

    print("| model | exporter | input | ONNX nodes | graph ops | launches unfused "
          "| launches | of which library calls | copies | distinct kernels | DRAM MiB unfused | DRAM MiB "
          "| of which not weights, unfused | not weights | GFLOP | H100 roofline us "
          "| arena / liveness bound / all intermediates |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['model']} | {r['exporter']} | {r['input']} | "
                  f"error: {r['error']} ||||||||||||||")
            continue
        arena = (f"{r['arena_bytes'] / 2**20:.1f} / "
                 f"{r['live_bytes_bound'] / 2**20:.1f} / "
                 f"{r['intermediate_bytes'] / 2**20:.1f} MiB "
                 f"({r['arena_bytes'] / r['live_bytes_bound']:.2f}x the bound)")
        print(f"| {r['model']} | {r['exporter']} | {r['input']} | {r['onnx_nodes']} | "
              f"{r['graph_ops']} | {r['unfused_launches']} | {r['launches']} | "
              f"{r['library_calls']} | "
              f"{r['copies']} | {r['kernels']} | {r['unfused_dram_bytes'] / 2**20:.1f} | "
              f"{r['dram_bytes'] / 2**20:.1f} | "
              f"{r['unfused_activation_bytes'] / 2**20:.1f} | "
              f"{r['activation_bytes'] / 2**20:.1f} | {r['flops'] / 1e9:.2f} | "
              f"{r['h100_roofline_us']:.0f} | {arena} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
