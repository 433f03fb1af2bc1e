"""Kernel micro-benchmarks: each of graphc's generated templates, and the
library GEMMs, on a one-op ONNX model at BERT-base and GPT-2 sizes (batch 1
and 64, sequence 128, fp16), against the best reference on the same GPU, as
a fraction of the GPU's peak.

    python bench/kernels.py --graphc build/bin/graphc --out bench/results
        [--batches 1,64] [--only layernorm,attention] [--iters 50] [--deadline-s 150]
    python bench/kernels.py --graphc build/bin/graphc --dry-run   # no GPU: build
        and compile every case (for sm_90), time nothing

Each case is one op (or the chain an exporter writes for it, which graphc
fuses into one kernel): LayerNorm, softmax, erf GELU, a residual add, an
embedding gather, a mean over the hidden dim, attention (BERT: bidirectional;
GPT-2: causal), and the GEMMs of a BERT layer. graphc compiles each with
--precision fp16 --io-precision fp16 for this GPU's SM and the runtime
replays it (its CUDA graph) back to back on torch's stream between two CUDA
events, queued behind a spin kernel so that the host's launch rate does not
bound it; the median over --repeats such groups, per run. The references run
the same way: torch's layer_norm, softmax, gelu, add, embedding, mean;
scaled_dot_product_attention with each backend torch has here (flash,
cuDNN, efficient) for attention, against both of graphc's (its generated
flash attention, and the cuDNN SDPA call it compiles by default);
torch.matmul (cuBLAS) for GEMMs, and
graphc's GEMM twice: cuBLASLt's heuristic rank 0 (graphc's default) and
after `graphc tune` timed the top algorithms on this GPU.

graphc's output is checked against the first reference's (max relative
error 2e-2, fp16): a wrong result is reported as such and fails the run.

Achieved bandwidth counts what the op must move (each input read once, the
output written once; a gather reads only its rows); TFLOP/s counts 2 per
multiply-add (attention: QK^T and PV). At batch 1 most cases fit in L2 (50 MB
on an H100) and back-to-back runs read it from there, as a model's next
kernel does: fractions of DRAM bandwidth above 1 are possible; batch 64 is
the DRAM measure. Both as a fraction of the GPU's peak
(PEAKS below, by device name). Writes <date>-<gpu>-kernels.{md,json} to
--out. Needs a CUDA GPU and torch, except with --dry-run.
"""
import argparse
import datetime
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# Vendor figures: DRAM bandwidth (bytes/s) and dense fp16 tensor-core peak
# (FLOP/s), without sparsity; matched against torch.cuda.get_device_name()
# in order, first match wins.
PEAKS = [
    ("H200", {"bytes_per_s": 4.8e12, "fp16_flops_per_s": 989e12}),
    ("H100 PCIe", {"bytes_per_s": 2.0e12, "fp16_flops_per_s": 756e12}),
    ("H100 NVL", {"bytes_per_s": 3.9e12, "fp16_flops_per_s": 835e12}),
    ("H100", {"bytes_per_s": 3.35e12, "fp16_flops_per_s": 989e12}),  # SXM (80GB HBM3)
    ("A100-SXM4-40GB", {"bytes_per_s": 1.555e12, "fp16_flops_per_s": 312e12}),
    ("A100-PCIE-40GB", {"bytes_per_s": 1.555e12, "fp16_flops_per_s": 312e12}),
    ("A100 80GB PCIe", {"bytes_per_s": 1.935e12, "fp16_flops_per_s": 312e12}),
    ("A100", {"bytes_per_s": 2.039e12, "fp16_flops_per_s": 312e12}),  # SXM4 80GB
]

# graphc's result against the reference's (max |difference| / max |reference|):
# fp16 storage with float accumulation on both sides.
MAX_REL_ERROR = 2e-2

SEQ = 128
HIDDEN = 768
HEADS = 12
HEAD_DIM = 64
FFN = 3072
VOCAB = 30522  # BERT-base's word embeddings (GPT-2: 50257)


def peaks_for(name):
    for key, peaks in PEAKS:
        if key in name:
            return dict(peaks, matched=key)
    return None


# --- the cases ---------------------------------------------------------------
# Each case: a name, the template it exercises, a builder of (nodes,
# initializers, inputs, outputs) at a batch, its input arrays, what it moves
# (bytes) and computes (flops), and a torch reference.

F = TensorProto.FLOAT
H = 2  # bytes of an fp16 element


def tensor(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def rng():
    return np.random.default_rng(0)


def case_layernorm(b):
    shape = [b, SEQ, HIDDEN]
    nodes = [helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"],
                              name="ln", axis=-1, epsilon=1e-12)]
    inits = [const("scale", rng().standard_normal(HIDDEN).astype(np.float32)),
             const("bias", rng().standard_normal(HIDDEN).astype(np.float32))]
    n = math.prod(shape)
    return dict(nodes=nodes, inits=inits, inputs=[tensor("x", shape)], outputs=[tensor("y", shape)],
                feeds={"x": ("randn", shape)}, bytes=2 * n * H + 2 * HIDDEN * H, flops=0,
                ref="layer_norm")


def case_softmax(b):
    shape = [b, HEADS, SEQ, SEQ]
    nodes = [helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=-1)]
    n = math.prod(shape)
    return dict(nodes=nodes, inits=[], inputs=[tensor("x", shape)], outputs=[tensor("y", shape)],
                feeds={"x": ("randn", shape)}, bytes=2 * n * H, flops=0, ref="softmax")


def case_gelu(b):
    # The erf GELU as exporters write it: x * 0.5 * (1 + erf(x / sqrt(2))).
    shape = [b, SEQ, FFN]
    nodes = [helper.make_node("Div", ["x", "sqrt2"], ["d"], name="gelu.div"),
             helper.make_node("Erf", ["d"], ["e"], name="gelu.erf"),
             helper.make_node("Add", ["e", "one"], ["a"], name="gelu.add"),
             helper.make_node("Mul", ["x", "a"], ["m"], name="gelu.mul"),
             helper.make_node("Mul", ["m", "half"], ["y"], name="gelu.half")]
    inits = [const("sqrt2", np.float32(math.sqrt(2))), const("one", np.float32(1)),
             const("half", np.float32(0.5))]
    n = math.prod(shape)
    return dict(nodes=nodes, inits=inits, inputs=[tensor("x", shape)], outputs=[tensor("y", shape)],
                feeds={"x": ("randn", shape)}, bytes=2 * n * H, flops=0, ref="gelu")


def case_add(b):
    shape = [b, SEQ, HIDDEN]
    nodes = [helper.make_node("Add", ["x", "r"], ["y"], name="residual")]
    n = math.prod(shape)
    return dict(nodes=nodes, inits=[], inputs=[tensor("x", shape), tensor("r", shape)],
                outputs=[tensor("y", shape)],
                feeds={"x": ("randn", shape), "r": ("randn", shape)}, bytes=3 * n * H, flops=0,
                ref="add")


def case_gather(b):
    table = rng().standard_normal((VOCAB, HIDDEN)).astype(np.float32)
    nodes = [helper.make_node("Gather", ["table", "ids"], ["y"], name="embeddings", axis=0)]
    rows = b * SEQ
    return dict(nodes=nodes, inits=[const("table", table)],
                inputs=[tensor("ids", [b, SEQ], TensorProto.INT64)],
                outputs=[tensor("y", [b, SEQ, HIDDEN])],
                feeds={"ids": ("ids", [b, SEQ])},
                # The rows it reads, the ids, the output.
                bytes=2 * rows * HIDDEN * H + rows * 8, flops=0, ref="embedding")


def case_reduce(b):
    shape = [b, SEQ, HIDDEN]
    nodes = [helper.make_node("ReduceMean", ["x"], ["y"], name="mean", axes=[-1], keepdims=1)]
    n = math.prod(shape)
    return dict(nodes=nodes, inits=[],
                inputs=[tensor("x", shape)], outputs=[tensor("y", [b, SEQ, 1])],
                feeds={"x": ("randn", shape)}, bytes=n * H + b * SEQ * H, flops=0,
                ref="mean")


def _attention(b, causal):
    shape = [b, HEADS, SEQ, HEAD_DIM]
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], name="k.t", perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["s"], name="qk"),
             helper.make_node("Mul", ["s", "scale"], ["ss"], name="scale")]
    inits = [const("scale", np.float32(1 / math.sqrt(HEAD_DIM)))]
    scores = "ss"
    if causal:
        mask = np.triu(np.full((SEQ, SEQ), -np.inf, np.float32), k=1)
        inits.append(const("mask", mask))
        nodes.append(helper.make_node("Add", ["ss", "mask"], ["sm"], name="causal_mask"))
        scores = "sm"
    nodes += [helper.make_node("Softmax", [scores], ["p"], name="softmax", axis=-1),
              helper.make_node("MatMul", ["p", "v"], ["y"], name="pv")]
    n = math.prod(shape)
    pairs = b * HEADS * (SEQ * (SEQ + 1) // 2 if causal else SEQ * SEQ)
    return dict(nodes=nodes, inits=inits,
                inputs=[tensor("q", shape), tensor("k", shape), tensor("v", shape)],
                outputs=[tensor("y", shape)],
                feeds={"q": ("randn", shape), "k": ("randn", shape), "v": ("randn", shape)},
                bytes=4 * n * H, flops=4 * pairs * HEAD_DIM,
                ref="sdpa_causal" if causal else "sdpa")


def _gemm(k, n):
    def build(b):
        m = b * SEQ
        weight = (rng().standard_normal((k, n)) / math.sqrt(k)).astype(np.float32)
        nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")]
        return dict(nodes=nodes, inits=[const("w", weight)], inputs=[tensor("x", [m, k])],
                    outputs=[tensor("y", [m, n])], feeds={"x": ("randn", [m, k])},
                    bytes=(m * k + k * n + m * n) * H, flops=2 * m * n * k, ref="matmul")
    return build


def case_ffn1_gelu(b):
    """BERT's FFN1: MatMul by a constant, bias, erf GELU. graphc makes it one
    cuDNN 1x1 convolution with GELU_FWD fused with --libraries ...,cudnn-gelu;
    its default is what that replaces, the cuBLASLt GEMM (bias fused) and a
    GELU kernel."""
    m = b * SEQ
    weight = (rng().standard_normal((HIDDEN, FFN)) / math.sqrt(HIDDEN)).astype(np.float32)
    bias = rng().standard_normal(FFN).astype(np.float32)
    gelu = case_gelu(b)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="ffn1.matmul"),
             helper.make_node("Add", ["h", "b"], ["hb"], name="ffn1.add")]
    for node in gelu["nodes"]:
        names = ["hb" if name == "x" else name for name in node.input]
        del node.input[:]
        node.input.extend(names)
    return dict(nodes=nodes + gelu["nodes"],
                inits=[const("w", weight), const("b", bias)] + gelu["inits"],
                inputs=[tensor("x", [m, HIDDEN])], outputs=[tensor("y", [m, FFN])],
                feeds={"x": ("randn", [m, HIDDEN])},
                bytes=(m * HIDDEN + HIDDEN * FFN + FFN + m * FFN) * H,
                flops=2 * m * HIDDEN * FFN, ref="linear_gelu")


# What graphc must make of each template's case: the kind of its one kernel
# (generated), or its library.
EXPECTED_KERNEL = {"layer_normalization": "reduction", "softmax": "reduction",
                   "pointwise": "pointwise", "gather": "layout", "reduce": "reduction",
                   "attention": "attention", "cublaslt": "library:cublaslt",
                   "cudnn": "library:cudnn"}

CASES = {
    # name: (template, builder)
    "layernorm": ("layer_normalization", case_layernorm),
    "softmax": ("softmax", case_softmax),
    "gelu": ("pointwise", case_gelu),
    "add": ("pointwise", case_add),
    "gather": ("gather", case_gather),
    "reduce_mean": ("reduce", case_reduce),
    "attention": ("attention", lambda b: _attention(b, causal=False)),
    "attention_causal": ("attention", lambda b: _attention(b, causal=True)),
    "gemm_qkv": ("cublaslt", _gemm(HIDDEN, 3 * HIDDEN)),
    "gemm_ffn1": ("cublaslt", _gemm(HIDDEN, FFN)),
    "gemm_ffn2": ("cublaslt", _gemm(FFN, HIDDEN)),
    "ffn1_gelu": ("cudnn", case_ffn1_gelu),
}


def write_case(name, batch, work):
    spec = CASES[name][1](batch)
    graph = helper.make_graph(spec["nodes"], f"{name}_b{batch}", spec["inputs"],
                              spec["outputs"], spec["inits"])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="graphc-bench-kernels")
    # The IR version of opset 17, whatever onnx writes by default (graphc
    # reads up to 10; a GPU machine's onnx may be newer).
    model.ir_version = 8
    path = os.path.join(work, f"{name}-b{batch}.onnx")
    save(model, path)
    return path, spec


def run_graphc(cmd):
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = (proc.stderr + proc.stdout).strip().splitlines()
        raise RuntimeError(lines[0] if lines else f"exit status {proc.returncode}")
    return time.monotonic() - started, proc.stdout


def compile_case(graphc, onnx_path, so_path, arch, tuning_db=None, extra=()):
    cmd = [graphc, "compile", onnx_path, "-o", so_path, "--target", "cuda", "--arch", arch,
           "--precision", "fp16", "--io-precision", "fp16", "--quiet", "--weights-file",
           *extra]
    if tuning_db:
        cmd += ["--tuning-db", tuning_db]
    return run_graphc(cmd)[0]


def kernels_of(graphc, so_path):
    """The kernels graphc made (name, kind, library) from graphc inspect."""
    _, out = run_graphc([graphc, "inspect", so_path, "--json"])
    report = json.loads(out)
    return [{"name": k["name"], "kind": k["kind"], "library": k["library"]}
            for k in report["kernels"]]


# --- timing -------------------------------------------------------------------

def time_us(fn, iters, repeats):
    """Median over `repeats` groups of `iters` back-to-back calls of fn(), per
    call, by CUDA events on torch's current stream around each group. A spin
    kernel (torch.cuda._sleep) runs first, longer than the host takes to
    queue the group, so the events time the GPU's work back to back and not
    the host's launch rate (which would bound microsecond kernels)."""
    import torch
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    began = time.perf_counter()
    for _ in range(iters):
        fn()
    queued_s = time.perf_counter() - began
    torch.cuda.synchronize()
    # 2 GHz is above any of these GPUs' clocks: the spin lasts at least
    # twice the time it took to queue a group.
    spin_cycles = int(min(queued_s * 2 * 2e9, 2e9))
    groups = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(spin_cycles)
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        groups.append(start.elapsed_time(end) * 1e3 / iters)
    return statistics.median(groups)


def torch_inputs(spec):
    import torch
    gen = torch.Generator(device="cuda").manual_seed(0)
    feeds = {}
    for name, (kind, shape) in spec["feeds"].items():
        if kind == "ids":
            feeds[name] = torch.randint(0, VOCAB, shape, device="cuda", generator=gen)
        else:
            feeds[name] = torch.randn(shape, device="cuda", generator=gen,
                                      dtype=torch.float16)
    return feeds


def references(name, spec, feeds):
    """name -> a callable computing the case with torch, for each reference
    this torch has."""
    import torch
    import torch.nn.functional as fn
    inits = {t.name: numpy_helper.to_array(t) for t in spec["inits"]}

    def half(key):
        return torch.from_numpy(np.array(inits[key])).to("cuda", torch.float16)

    x = feeds.get("x")
    ref = spec["ref"]
    if ref == "layer_norm":
        scale, bias = half("scale"), half("bias")
        return {"torch.layer_norm": lambda: fn.layer_norm(x, (HIDDEN,), scale, bias, 1e-12)}
    if ref == "softmax":
        return {"torch.softmax": lambda: torch.softmax(x, -1)}
    if ref == "gelu":
        return {"torch.gelu(erf)": lambda: fn.gelu(x)}
    if ref == "add":
        r = feeds["r"]
        return {"torch.add": lambda: torch.add(x, r)}
    if ref == "embedding":
        table, ids = half("table"), feeds["ids"]
        return {"torch.embedding": lambda: fn.embedding(ids, table)}
    if ref == "mean":
        return {"torch.mean": lambda: x.mean(-1, keepdim=True)}
    if ref == "matmul":
        w = half("w")
        return {"torch.matmul(cuBLAS)": lambda: torch.matmul(x, w)}
    if ref == "linear_gelu":
        w, b = half("w"), half("b")
        return {"torch.gelu(erf)(addmm)": lambda: fn.gelu(torch.addmm(b, x, w))}
    if ref.startswith("sdpa"):
        q, k, v = feeds["q"], feeds["k"], feeds["v"]
        causal = ref == "sdpa_causal"
        refs = {}
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            backends = {"flash": SDPBackend.FLASH_ATTENTION,
                        "cudnn": getattr(SDPBackend, "CUDNN_ATTENTION", None),
                        "efficient": SDPBackend.EFFICIENT_ATTENTION}
        except ImportError:
            backends = {}
        for label, backend in backends.items():
            if backend is None:
                continue

            def call(backend=backend):
                with sdpa_kernel(backend):
                    return fn.scaled_dot_product_attention(q, k, v, is_causal=causal)
            try:
                call()
                torch.cuda.synchronize()
                refs[f"torch.sdpa({label})"] = call
            except RuntimeError:
                pass  # this backend does not take the shape here
        if not refs:
            refs["torch.sdpa"] = lambda: fn.scaled_dot_product_attention(q, k, v,
                                                                         is_causal=causal)
        return refs
    raise ValueError(ref)


def fraction(spec, us, peaks):
    """(measure, value, fraction of the peak): TFLOP/s for cases that
    compute, else achieved bandwidth."""
    if us is None or us <= 0:
        return None
    if spec["flops"]:
        rate = spec["flops"] / (us * 1e-6)
        return {"tflops": rate / 1e12, "of_peak": rate / peaks["fp16_flops_per_s"]}
    rate = spec["bytes"] / (us * 1e-6)
    return {"gb_per_s": rate / 1e9, "of_peak": rate / peaks["bytes_per_s"]}


# --- main ---------------------------------------------------------------------

def gpu_facts():
    import torch
    props = torch.cuda.get_device_properties(0)
    facts = {"name": torch.cuda.get_device_name(0),
             "sm": f"sm_{props.major}{props.minor}", "sms": props.multi_processor_count,
             "torch": torch.__version__, "cuda": torch.version.cuda,
             "cudnn": torch.backends.cudnn.version()}
    proc = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                          capture_output=True, text=True)
    facts["driver"] = proc.stdout.strip().splitlines()[0] if proc.returncode == 0 and \
        proc.stdout.strip() else None
    return facts


def have_gpu():
    try:
        import torch
    except ImportError:
        return False, "torch is not installed"
    if not torch.cuda.is_available():
        return False, "torch.cuda.is_available() is False"
    return True, ""


def measure_case(args, name, batch, work, arch, peaks, deadline):
    template = CASES[name][0]
    onnx_path, spec = write_case(name, batch, work)
    so_path = onnx_path[:-5] + ".so"
    row = {"case": name, "template": template, "batch": batch, "bytes": spec["bytes"],
           "flops": spec["flops"], "systems": {}}
    # Attention is a cuDNN SDPA call by default: the generated kernel (its
    # fallback) is what --libraries without cudnn-sdpa compiles. FFN1's
    # convolution is opt-in (cudnn-gelu).
    extra = {"attention": ["--libraries", "cublaslt,cudnn"],
             "cudnn": ["--libraries", "cublaslt,cudnn,cudnn-sdpa,cudnn-gelu"]}.get(template, [])
    row["compile_s"] = round(
        compile_case(args.graphc, onnx_path, so_path, arch, extra=extra), 2)
    row["kernels"] = kernels_of(args.graphc, so_path)
    # The case measures one kernel of its template, or it measures nothing.
    made = [f"library:{k['library']}" if k["library"] else k["kind"] for k in row["kernels"]]
    if made != [EXPECTED_KERNEL[template]]:
        raise RuntimeError(f"graphc made {made} of the {name} case, not one "
                           f"{EXPECTED_KERNEL[template]} kernel")
    builds = {"graphc": so_path}
    if template == "cublaslt" and not args.dry_run and args.tune_budget_s > 0:
        db = onnx_path[:-5] + ".tune.json"
        tuned = onnx_path[:-5] + "-tuned.so"
        started = time.monotonic()
        run_graphc([args.graphc, "tune", onnx_path, "--db", db, "--precision", "fp16",
                    "--io-precision", "fp16", "--budget-seconds", str(args.tune_budget_s)])
        row["tune_s"] = round(time.monotonic() - started, 1)
        compile_case(args.graphc, onnx_path, tuned, arch, tuning_db=db)
        builds = {"graphc(rank 0)": so_path, "graphc(tuned)": tuned}
    if template == "cudnn":
        # What the convolution replaces, graphc's default: the cuBLASLt GEMM
        # and a GELU kernel.
        split = onnx_path[:-5] + "-cublaslt.so"
        compile_case(args.graphc, onnx_path, split, arch)
        builds = {"graphc(cuDNN conv+GELU, cudnn-gelu)": so_path,
                  "graphc(cuBLASLt+GELU kernel, default)": split}
    if template == "attention":
        sdpa = onnx_path[:-5] + "-sdpa.so"
        compile_case(args.graphc, onnx_path, sdpa, arch)
        made = [f"library:{k['library']}" if k["library"] else k["kind"]
                for k in kernels_of(args.graphc, sdpa)]
        if made != ["library:cudnn"]:
            raise RuntimeError(f"graphc made {made} of the {name} case by default, "
                               "not one cuDNN SDPA call")
        builds = {"graphc(generated)": so_path, "graphc(cuDNN SDPA)": sdpa}
    if args.dry_run:
        row["systems"] = {label: {"status": "compiled (dry run)"} for label in builds}
        return row
    import torch
    from graphc_cuda import GraphcCudaModel
    feeds = torch_inputs(spec)
    order = [i.name for i in spec["inputs"]]
    refs = references(name, spec, feeds)
    # What graphc computes must be what the references compute: the first
    # reference's result, within fp16 rounding.
    expected = next(iter(refs.values()))().float()
    torch.cuda.synchronize()
    for label, path in builds.items():
        if time.monotonic() > deadline:
            row["systems"][label] = {"status": "not run: time budget spent"}
            continue
        model = GraphcCudaModel(path)
        try:
            outputs = model.allocate_outputs()
            inputs = [feeds[n] for n in order]
            model.run_on_stream(inputs, outputs)
            torch.cuda.synchronize()
            got = outputs[0].float().reshape(expected.shape)
            error = ((got - expected).abs().max() /
                     expected.abs().max().clamp_min(1e-6)).item()
            us = time_us(lambda: model.run_on_stream(inputs, outputs), args.iters, args.repeats)
            row["systems"][label] = {"us": us, **(fraction(spec, us, peaks) or {}),
                                     "max_rel_error": error,
                                     "library_kernels": model.library_kernels()}
            if not error <= MAX_REL_ERROR:
                row["systems"][label]["status"] = (
                    f"WRONG: max relative error {error:.3g} > {MAX_REL_ERROR}")
        finally:
            model.close()
    for label, call in refs.items():
        if time.monotonic() > deadline:
            row["systems"][label] = {"status": "not run: time budget spent"}
            continue
        us = time_us(call, args.iters, args.repeats)
        row["systems"][label] = {"us": us, **(fraction(spec, us, peaks) or {})}
    timed = {k: v["us"] for k, v in row["systems"].items() if "us" in v}
    ours = [v for k, v in timed.items() if k.startswith("graphc")]
    theirs = [v for k, v in timed.items() if not k.startswith("graphc")]
    if ours and theirs:
        row["graphc_over_best_reference"] = min(ours) / min(theirs)
    return row


def write_report(args, facts, rows, started):
    os.makedirs(args.out, exist_ok=True)
    date = datetime.date.today().isoformat()
    gpu = re.sub(r"[^a-z0-9]+", "-", (facts.get("name") or "no-gpu").lower()).strip("-")
    stem = os.path.join(args.out, f"{date}-{gpu}-kernels{'-dry-run' if args.dry_run else ''}")
    with open(stem + ".json", "w") as f:
        json.dump({"facts": facts, "args": {k: v for k, v in vars(args).items()},
                   "rows": rows, "seconds": round(time.monotonic() - started, 1)}, f, indent=1)
    lines = [f"# graphc kernel micro-benchmarks{' (dry run: compiled, not timed)' if args.dry_run else ''}",
             "", f"{date}; GPU: {facts.get('name')} ({facts.get('sm')}, driver "
             f"{facts.get('driver')}, CUDA {facts.get('cuda')}, cuDNN {facts.get('cudnn')}, "
             f"torch {facts.get('torch')}); peaks: {facts.get('peaks')}", "",
             f"`{' '.join(sys.argv)}`", "",
             "Median per run over groups of back-to-back runs (CUDA events); fp16; "
             "sequence 128. Memory-bound cases: achieved GB/s and fraction of DRAM "
             "bandwidth; GEMMs and attention: TFLOP/s and fraction of the fp16 "
             "tensor-core peak.", "",
             "| case | template | batch | system | us | rate | of peak | graphc / best ref |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['case']} | {row['template']} | {row['batch']} | | "
                         f"{row['error']} | | | |")
            continue
        ratio = row.get("graphc_over_best_reference")
        for label, result in row["systems"].items():
            if "us" not in result:
                lines.append(f"| {row['case']} | {row['template']} | {row['batch']} | {label} | "
                             f"{result.get('status', '')} | | | |")
                continue
            rate = (f"{result['tflops']:.1f} TFLOP/s" if "tflops" in result else
                    f"{result['gb_per_s']:.0f} GB/s" if "gb_per_s" in result else "")
            of_peak = f"{result['of_peak']:.0%}" if "of_peak" in result else ""
            wrong = f" ({result['status']})" if "status" in result else ""
            # A library kernel computed by graphc's fallback says so.
            for k in result.get("library_kernels", []):
                if k["fused"] is False:
                    wrong += f" ({k['library']} not fused: {k['why_not_fused']})"
            lines.append(f"| {row['case']} | {row['template']} | {row['batch']} | {label}{wrong} | "
                         f"{result['us']:.2f} | {rate} | {of_peak} | "
                         f"{f'{ratio:.2f}x' if ratio and label.startswith('graphc') else ''} |")
    lines += ["", f"Total {time.monotonic() - started:.0f} s."]
    with open(stem + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    return stem


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--runtime", help="libgraphc_runtime.so ($GRAPHC_RUNTIME_LIBRARY)")
    parser.add_argument("--out", help="where the report goes (default: bench/results; "
                        "with --dry-run none is written unless given)")
    parser.add_argument("--work-dir", help="kept when given")
    parser.add_argument("--batches", default="1,64")
    parser.add_argument("--only", help="comma-separated cases (default: all): " +
                        ", ".join(CASES))
    parser.add_argument("--arch", help="default: this GPU's SM; sm_90 with --dry-run")
    parser.add_argument("--iters", type=int, default=50, help="runs per timed group")
    parser.add_argument("--repeats", type=int, default=11, help="timed groups (median)")
    parser.add_argument("--tune-budget-s", type=int, default=10,
                        help="graphc tune per GEMM case (0: no tuned row)")
    parser.add_argument("--deadline-s", type=float, default=600)
    parser.add_argument("--dry-run", action="store_true",
                        help="build and compile every case, time nothing (no GPU needed)")
    args = parser.parse_args()
    started = time.monotonic()
    deadline = started + args.deadline_s

    if args.runtime:
        os.environ["GRAPHC_RUNTIME_LIBRARY"] = args.runtime
    names = [n for n in (args.only.split(",") if args.only else CASES) if n]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        parser.error(f"unknown case {unknown[0]} (known: {', '.join(CASES)})")
    batches = [int(b) for b in args.batches.split(",") if b]
    if not shutil.which(args.graphc) and not os.access(args.graphc, os.X_OK):
        parser.error(f"--graphc {args.graphc} is not an executable")

    if args.dry_run:
        facts = {"name": None, "sm": args.arch or "sm_90", "peaks": None}
    else:
        ok, why = have_gpu()
        if not ok:
            print(f"kernels.py: error: no CUDA GPU ({why}); --dry-run builds and compiles "
                  "every case without one", file=sys.stderr)
            return 2
        facts = gpu_facts()
        peaks = peaks_for(facts["name"])
        if peaks is None:
            print(f"kernels.py: error: no peak figures for {facts['name']}: add it to PEAKS",
                  file=sys.stderr)
            return 2
        facts["peaks"] = peaks
    arch = args.arch or facts["sm"]
    peaks = facts.get("peaks")

    work = args.work_dir or tempfile.mkdtemp(prefix="graphc-kernels-")
    os.makedirs(work, exist_ok=True)
    rows = []
    failed = False
    try:
        for name in names:
            for batch in batches:
                if time.monotonic() > deadline:
                    rows.append({"case": name, "template": CASES[name][0], "batch": batch,
                                 "error": "not run: time budget spent"})
                    continue
                try:
                    row = measure_case(args, name, batch, work, arch, peaks, deadline)
                except Exception as error:  # one case's failure is reported, the next runs
                    failed = True
                    row = {"case": name, "template": CASES[name][0], "batch": batch,
                           "error": f"{type(error).__name__}: {str(error).strip()[:300]}"}
                if any(str(v.get("status", "")).startswith("WRONG")
                       for v in row.get("systems", {}).values()):
                    failed = True
                rows.append(row)
                print(f"kernels.py: {name} b{batch}: "
                      + (row.get("error") or ", ".join(
                          f"{k} {v['us']:.2f} us" if "us" in v else f"{k} {v.get('status')}"
                          for k, v in row["systems"].items())), flush=True)
        if args.out is None and not args.dry_run:
            args.out = os.path.join(HERE, "results")
        if args.out:
            stem = write_report(args, facts, rows, started)
            print(f"kernels.py: wrote {stem}.md and .json")
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
