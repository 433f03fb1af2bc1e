"""graphc against PyTorch on the GPU, side by side in one run.

Models are built here with random weights (torchvision weights=None,
transformers configs), exported to ONNX with the TorchScript exporter
(dynamo=False) and the default (dynamo) exporter, compiled with graphc for
this GPU, and measured with CUDA events after warm-up (median of --iters runs)
against PyTorch eager, torch.compile (default, reduce-overhead, max-autotune),
AOTInductor and onnxruntime's CUDA provider, at each batch size, in fp32 and
fp16. Per row: median latency, max relative error against eager fp32
(max |out - ref| / max |ref|), compile time, peak GPU memory and, for graphc,
the host overhead per run (wall time of a synchronised run minus its GPU time).

    python bench/run_bench.py --graphc bin/graphc [--out bench/results]
        [--models resnet50,bert] [--batches 1,8] [--dtypes fp32,fp16]
        [--exporters torchscript,dynamo] [--systems eager,...] [--full]
        [--iters 50] [--deadline-s 500] [--tune-budget-s 60]

graphc-tuned is graphc after `graphc tune` measured the model's kernels on
this GPU (its wall time is the row's tune_s). graphc-unfused compiles with
--no-fusion (one kernel per graph op: fused vs unfused), graphc-no-libraries
with --libraries none (graphc's own matmul and convolution kernels instead of
cuBLASLt and cuDNN).

The default set is the fast one (ResNet-50 and BERT-base, batch 1 and 8);
--full is every model at batch 1, 8 and 64 with every system. Work that does
not fit in --deadline-s is listed as not run. Writes
OUT/<date>-<gpu>.md and .json. graphc's fp16 rows compile the fp32 export
with --precision fp16 --io-precision fp16 (fp16 weights and activations,
float32 accumulation) and run on the fp16 input.
"""
import argparse
import copy
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

MODELS = ["resnet50", "vit_b_16", "bert", "gpt2", "llama"]
TEXT_MODELS = {"bert", "gpt2", "llama"}
SEQ_LEN = 128
# In the order they run: when the time budget ends a run, graphc and its
# closest references are measured already.
SYSTEMS = ["eager", "graphc", "graphc-tuned", "onnxruntime-cuda", "compile-default",
           "compile-reduce-overhead", "aotinductor", "compile-max-autotune",
           "graphc-unfused", "graphc-no-libraries"]
# graphc's variants: the flags each adds to `graphc compile`. graphc-unfused
# is one kernel per graph op (what fusion is measured against), and
# graphc-no-libraries graphc's own matmul and convolution kernels instead of
# cuBLASLt and cuDNN.
GRAPHC_VARIANTS = {"graphc": [], "graphc-tuned": [], "graphc-unfused": ["--no-fusion"],
                   "graphc-no-libraries": ["--libraries", "none"]}
FAST = {"models": "resnet50,bert", "batches": "1,8",
        "systems": "eager,graphc,graphc-tuned,onnxruntime-cuda,compile-default,"
                   "compile-reduce-overhead",
        "exporters": "torchscript,dynamo"}
FULL = {"models": ",".join(MODELS), "batches": "1,8,64", "systems": ",".join(SYSTEMS),
        "exporters": "torchscript,dynamo"}


class Deadline(Exception):
    pass


def build_model(name):
    """(torch module returning one tensor, input maker(batch) -> tensor)."""
    import torch
    torch.manual_seed(0)
    if name in ("resnet50", "vit_b_16", "efficientnet_b0"):
        import torchvision
        module = getattr(torchvision.models, name)(weights=None)
        if name == "vit_b_16":
            # torchvision zero-initialises the classifier: every output would
            # be 0 and no error would show.
            torch.nn.init.normal_(module.heads.head.weight, std=0.02)
        return module, lambda b: torch.randn(b, 3, 224, 224)
    import transformers as tf
    if name == "bert":
        config = tf.BertConfig()
        backbone = tf.BertModel(config, add_pooling_layer=False)
    elif name == "gpt2":
        config = tf.GPT2Config()
        backbone = tf.GPT2Model(config)
    elif name == "llama":
        # A small Llama: the architecture of Llama 2 at 4 layers of width 512.
        config = tf.LlamaConfig(vocab_size=32000, hidden_size=512,
                                intermediate_size=1376, num_hidden_layers=4,
                                num_attention_heads=8, num_key_value_heads=8,
                                max_position_embeddings=SEQ_LEN)
        backbone = tf.LlamaModel(config)
    else:
        raise ValueError(f"unknown model {name}")
    config.use_cache = False

    class LastHiddenState(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = backbone

        def forward(self, input_ids):
            return self.backbone(input_ids=input_ids, return_dict=True).last_hidden_state

    vocab = config.vocab_size
    return LastHiddenState(), lambda b: torch.randint(0, vocab, (b, SEQ_LEN))


def cuda_time_ms(fn, warmup, iters, deadline):
    """Median GPU time of fn() in ms over iters runs, by CUDA events on the
    current stream, after warmup runs."""
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        if time.monotonic() > deadline:
            raise Deadline()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def gpu_and_wall_ms(fn, warmup, iters, deadline):
    """Medians over iters runs of fn(), after warmup runs: GPU time (CUDA
    events on the current stream), wall time of the synchronised run, and
    per run the wall time minus the GPU time. The three come from the same
    runs, so the host overhead is the median of each run's own difference,
    never a difference of medians taken in separate loops (which can come
    out negative)."""
    import torch
    for _ in range(warmup):
        fn()
    gpu, wall, overhead = [], [], []
    for _ in range(iters):
        if time.monotonic() > deadline:
            raise Deadline()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        began = time.perf_counter()
        start.record()
        fn()
        end.record()
        end.synchronize()
        wall_ms = (time.perf_counter() - began) * 1e3
        gpu_ms = start.elapsed_time(end)
        gpu.append(gpu_ms)
        wall.append(wall_ms)
        overhead.append(wall_ms - gpu_ms)
    return statistics.median(gpu), statistics.median(wall), statistics.median(overhead)


def wall_time_ms(fn, iters):
    """Median wall time of fn() followed by a device synchronisation."""
    import torch
    times = []
    for _ in range(iters):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def rel_error(out, ref):
    out = out.float()
    ref = ref.float()
    if out.shape != ref.shape:
        return f"shape {list(out.shape)} vs {list(ref.shape)}"
    scale = ref.abs().max().item() or 1.0
    return (out - ref).abs().max().item() / scale


def device_memory_used_mib():
    import torch
    free, total = torch.cuda.mem_get_info()
    return (total - free) / 2**20


def export_onnx(module, example, path, exporter):
    import torch
    start = time.monotonic()
    if exporter == "torchscript":
        torch.onnx.export(module, (example,), path, dynamo=False, opset_version=17,
                          input_names=["input"], output_names=["output"])
    else:
        program = torch.onnx.export(module, (example,), dynamo=True,
                                    input_names=["input"], output_names=["output"])
        program.save(path)
    return time.monotonic() - start


def run_graphc(command):
    """Runs a graphc command; returns its wall time, raises with its error."""
    start = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.monotonic() - start
    if proc.returncode != 0:
        text = (proc.stderr + proc.stdout).strip()
        raise RuntimeError(text[-4000:] if text else f"graphc exit status {proc.returncode}")
    return elapsed


def precision_flags(dtype):
    """graphc's flags for a bench dtype: fp16 compiles the fp32 export to
    fp16 weights and activations, taking and giving fp16."""
    return ["--precision", "fp16", "--io-precision", "fp16"] if dtype == "fp16" else []


def graphc_tune(graphc, onnx_path, db_path, example, budget_s, dtype="fp32"):
    """graphc tune on this GPU into db_path; returns its wall time."""
    shape = "x".join(str(d) for d in example.shape)
    return run_graphc([graphc, "tune", onnx_path, "--db", db_path,
                       f"--shape=input={shape}", "--budget-seconds", str(budget_s),
                       *precision_flags(dtype)])


def graphc_compile(graphc, onnx_path, so_path, example, arch, tuning_db=None,
                   dtype="fp32", extra_flags=()):
    shape = "x".join(str(d) for d in example.shape)
    command = [graphc, "compile", onnx_path, "-o", so_path, "--target", "cuda",
               "--arch", arch, f"--shape=input={shape}", *precision_flags(dtype),
               *extra_flags]
    if tuning_db:
        command += ["--tuning-db", tuning_db]
    return run_graphc(command)


def measure(args, name, module, make_input, batch, dtype, ref, work_dir, deadline, rows,
            save):
    """Appends one row per system for (model, batch, dtype), calling save()
    after each so that a run killed at its time limit keeps its results."""
    import torch
    torch_dtype = {"fp32": torch.float32, "fp16": torch.float16}[dtype]
    # A copy per dtype: converting the module itself would round its fp32
    # weights for the dtypes after fp16.
    model = copy.deepcopy(module).to(device="cuda", dtype=torch_dtype).eval()
    x = make_input(batch).cuda()
    if x.is_floating_point():
        x = x.to(torch_dtype)
    base = {"model": name, "batch": batch, "dtype": dtype}
    if name in TEXT_MODELS:
        base["seq"] = SEQ_LEN

    def add(system, **fields):
        row = dict(base, system=system, **fields)
        rows.append(row)
        save()
        shown = {k: v for k, v in fields.items() if k != "trace"}
        print(f"  {name} b{batch} {dtype} {system}: {shown}", flush=True)

    def run_torch(system, fn, compile_s=0.0):
        torch.cuda.reset_peak_memory_stats()
        ms = cuda_time_ms(fn, args.warmup, args.iters, deadline)
        with torch.no_grad():
            out = fn()
        add(system, gpu_ms=ms, rel_error=rel_error(out, ref), compile_s=compile_s,
            peak_mib=torch.cuda.max_memory_allocated() / 2**20)

    for system in args.systems:
        if time.monotonic() > deadline:
            add(system, status="not run: time budget spent")
            continue
        try:
            with torch.no_grad():
                if system == "eager":
                    run_torch(system, lambda: model(x))
                elif system.startswith("compile-"):
                    mode = system[len("compile-"):]
                    torch._dynamo.reset()
                    start = time.monotonic()
                    compiled = torch.compile(model, mode=mode)
                    compiled(x)
                    torch.cuda.synchronize()
                    run_torch(system, lambda: compiled(x), time.monotonic() - start)
                    del compiled
                elif system == "aotinductor":
                    start = time.monotonic()
                    program = torch.export.export(model, (x,))
                    package = torch._inductor.aoti_compile_and_package(
                        program, package_path=os.path.join(
                            work_dir, f"{name}_{batch}_{dtype}.pt2"))
                    runner = torch._inductor.aoti_load_package(package)
                    run_torch(system, lambda: runner(x), time.monotonic() - start)
                    del runner
                elif system == "onnxruntime-cuda":
                    measure_ort(args, name, model, x, batch, dtype, ref, work_dir, add)
                elif system in GRAPHC_VARIANTS:
                    # graphc narrows the fp32 export itself (--precision).
                    exported = module if dtype == "fp32" else \
                        copy.deepcopy(module).to(device="cuda", dtype=torch.float32).eval()
                    for exporter in args.exporters:
                        measure_graphc(args, name, exported, x, batch, ref, exporter,
                                       work_dir, deadline, add, variant=system,
                                       dtype=dtype)
        except Deadline:
            add(system, status="not run: time budget spent")
        except Exception as error:  # one failing system must not end the run
            add(system, status=f"failed: {brief(error)}",
                trace=traceback.format_exc()[-2000:])
        torch.cuda.empty_cache()


def measure_ort(args, name, model, x, batch, dtype, ref, work_dir, add):
    import onnxruntime as ort
    import torch
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        add("onnxruntime-cuda", status="not available: this onnxruntime has no "
            f"CUDA provider ({', '.join(ort.get_available_providers())})")
        return
    if dtype != "fp32":
        add("onnxruntime-cuda", status="not measured in fp16 (fp32 export only)")
        return
    path = os.path.join(work_dir, f"{name}_{batch}_ort.onnx")
    export_s = export_onnx(model, x, path, "torchscript")
    before = device_memory_used_mib()
    start = time.monotonic()
    session = ort.InferenceSession(path, providers=["CUDAExecutionProvider"])
    create_s = time.monotonic() - start
    import numpy as np
    out = torch.empty_like(ref)
    binding = session.io_binding()
    binding.bind_input("input", "cuda", 0,
                       np.float32 if x.dtype == torch.float32 else np.int64,
                       list(x.shape), x.data_ptr())
    binding.bind_output("output", "cuda", 0, np.float32, list(out.shape), out.data_ptr())

    def run():
        session.run_with_iobinding(binding)
    # ORT runs on its own stream and synchronises at the end of each run, so
    # its time is the wall time of a run.
    for _ in range(args.warmup):
        run()
    ms = wall_time_ms(run, args.iters)
    add("onnxruntime-cuda", wall_ms=ms, rel_error=rel_error(out, ref),
        compile_s=create_s, export_s=export_s,
        device_mem_delta_mib=device_memory_used_mib() - before)


def measure_graphc(args, name, model, x, batch, ref, exporter, work_dir, deadline, add,
                   variant="graphc", dtype="fp32"):
    """graphc with its heuristic schedules; graphc-tuned after graphc tune
    measured this model's kernels on this GPU, with its wall time as tune_s;
    the other variants with their GRAPHC_VARIANTS flags. `model` is the fp32
    module; fp16 compiles its export with --precision fp16 and runs on `x` as
    it is (fp16)."""
    import torch
    from graphc_cuda import GraphcCudaModel
    tuned = variant == "graphc-tuned"
    system = f"{variant} ({exporter} export)"
    if time.monotonic() > deadline:
        add(system, status="not run: time budget spent")
        return
    try:
        onnx_path = os.path.join(work_dir, f"{name}_{batch}_{exporter}.onnx")
        suffix = ("" if variant == "graphc" else "_" + variant[len("graphc-"):]) + \
            ("" if dtype == "fp32" else f"_{dtype}")
        so_path = os.path.join(work_dir, f"{name}_{batch}_{exporter}{suffix}.so")
        example = x.float() if x.is_floating_point() else x
        export_s = export_onnx(model, example, onnx_path, exporter)
        extra = {}
        db_path = None
        if tuned:
            db_path = os.path.join(work_dir, f"{name}_{batch}_{exporter}.tune.json")
            extra["tune_s"] = graphc_tune(args.graphc, onnx_path, db_path, x,
                                          args.tune_budget_s, dtype)
        compile_s = graphc_compile(args.graphc, onnx_path, so_path, x, args.arch,
                                   db_path, dtype, GRAPHC_VARIANTS[variant])
        before = device_memory_used_mib()
        loaded = GraphcCudaModel(so_path)
        try:
            outputs = loaded.allocate_outputs()
            if len(outputs) != 1:
                raise RuntimeError(f"{len(outputs)} outputs, the model has one")

            def run():
                loaded.run_on_stream([x], outputs)
            gpu_ms, wall_ms, overhead_ms = gpu_and_wall_ms(run, args.warmup, args.iters,
                                                           deadline)
            torch.cuda.synchronize()
            add(system, gpu_ms=gpu_ms, wall_ms=wall_ms, host_overhead_ms=overhead_ms,
                rel_error=rel_error(outputs[0], ref), compile_s=compile_s,
                export_s=export_s, device_mem_delta_mib=device_memory_used_mib() - before,
                **extra)
        finally:
            loaded.close()
    except Deadline:
        add(system, status="not run: time budget spent")
    except Exception as error:
        add(system, status=f"failed: {brief(error)}")


def brief(error):
    """The error's type and message on one line; a long one keeps its start
    and its end, where graphc says why (after a kernel's list of ONNX nodes)."""
    line = " | ".join(part.strip() for part in str(error).strip().splitlines())
    if len(line) > 1200:
        line = line[:300] + " [...] " + line[-800:]
    return f"{type(error).__name__}: {line}"


def gpu_facts():
    query = "name,driver_version,compute_cap,memory.total"
    proc = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                          capture_output=True, text=True)
    fields = [f.strip() for f in proc.stdout.splitlines()[0].split(",")] \
        if proc.returncode == 0 and proc.stdout.strip() else []
    facts = dict(zip(query.split(","), fields))
    head = subprocess.run(["nvidia-smi"], capture_output=True, text=True).stdout
    match = re.search(r"CUDA Version:\s*([0-9.]+)", head)
    facts["cuda_driver_api"] = match.group(1) if match else None
    return facts


def fmt(value, digits=3):
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1e-2 else f"{value:.{digits}f}"
    return str(value)


def write_report(args, facts, rows, started):
    os.makedirs(args.out, exist_ok=True)
    gpu = re.sub(r"[^A-Za-z0-9]+", "-", facts.get("name", "gpu")).strip("-").lower()
    stem = os.path.join(args.out, f"{started:%Y-%m-%d}-{gpu}")
    import torch
    meta = {"date": started.isoformat(timespec="seconds"), "gpu": facts,
            "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
            "python": platform.python_version(), "iters": args.iters,
            "warmup": args.warmup, "seq": SEQ_LEN, "models": args.models,
            "batches": args.batches, "dtypes": args.dtypes, "systems": args.systems,
            "exporters": args.exporters}
    try:
        import onnxruntime
        meta["onnxruntime"] = onnxruntime.__version__
    except ImportError:
        meta["onnxruntime"] = None
    with open(stem + ".json", "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    with open(stem + ".md", "w") as f:
        f.write(f"# graphc vs PyTorch on {facts.get('name')} ({started:%Y-%m-%d})\n\n")
        f.write(f"Driver {facts.get('driver_version')}, CUDA {facts.get('cuda_driver_api')} "
                f"(driver API), torch {torch.__version__} (CUDA {torch.version.cuda}), "
                f"onnxruntime {meta['onnxruntime']}. Median of {args.iters} runs after "
                f"{args.warmup} warm-up runs; text models at sequence length {SEQ_LEN}.\n\n")
        f.write("- time: GPU time by CUDA events on the caller's stream (`gpu ms`); "
                "onnxruntime runs on its own stream and is timed by wall clock "
                "(`wall ms`, synchronised).\n"
                "- rel err: max |out - eager fp32| / max |eager fp32|.\n"
                "- compile: torch.compile's first call, AOTInductor's export and "
                "compile, onnxruntime's session creation, graphc's `graphc compile` "
                "(ONNX export time separate); for graphc-tuned, `graphc compile "
                "--tuning-db` after `graphc tune` (its wall time in `tune s`).\n"
                "- memory: PyTorch's peak allocation for PyTorch systems; device "
                "memory in use after minus before loading for graphc and onnxruntime.\n"
                "- host overhead (graphc): median over the same runs as gpu and wall "
                "ms of each run's wall time minus its GPU time.\n\n")
        f.write("| model | batch | dtype | system | gpu ms | wall ms | host overhead ms "
                "| rel err | compile s | tune s | export s | memory MiB | status |\n")
        f.write("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            memory = r.get("peak_mib", r.get("device_mem_delta_mib"))
            f.write(f"| {r['model']} | {r['batch']} | {r['dtype']} | {r['system']} "
                    f"| {fmt(r.get('gpu_ms'))} | {fmt(r.get('wall_ms'))} "
                    f"| {fmt(r.get('host_overhead_ms'))} | {fmt(r.get('rel_error'))} "
                    f"| {fmt(r.get('compile_s'), 2)} | {fmt(r.get('tune_s'), 2)} "
                    f"| {fmt(r.get('export_s'), 2)} "
                    f"| {fmt(memory, 4)} | {r.get('status', 'ok')} |\n")
    return stem


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    parser.add_argument("--full", action="store_true", help="every model, batch and system")
    parser.add_argument("--models")
    parser.add_argument("--batches")
    parser.add_argument("--dtypes", default="fp32,fp16")
    parser.add_argument("--systems")
    parser.add_argument("--exporters")
    parser.add_argument("--arch", help="default: the SM of GPU 0")
    parser.add_argument("--tune-budget-s", type=float, default=60,
                        help="graphc tune's --budget-seconds for graphc-tuned")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--deadline-s", type=float, default=540,
                        help="start nothing new after this many seconds")
    args = parser.parse_args()
    preset = FULL if args.full else FAST
    args.models = (args.models or preset["models"]).split(",")
    args.batches = [int(b) for b in (args.batches or preset["batches"]).split(",")]
    args.dtypes = args.dtypes.split(",")
    args.systems = (args.systems or preset["systems"]).split(",")
    args.exporters = (args.exporters or preset["exporters"]).split(",")
    for value, known, what in ((args.models, MODELS, "model"),
                               (args.systems, SYSTEMS, "system"),
                               (args.dtypes, ["fp32", "fp16"], "dtype"),
                               (args.exporters, ["torchscript", "dynamo"], "exporter")):
        unknown = [v for v in value if v not in known]
        if unknown:
            parser.error(f"unknown {what} {unknown[0]!r} (known: {', '.join(known)})")
    args.graphc = os.path.abspath(args.graphc)
    deadline = time.monotonic() + args.deadline_s
    started = datetime.datetime.now(datetime.timezone.utc)

    import torch
    if not torch.cuda.is_available():
        print("run_bench: PyTorch sees no CUDA device; this benchmark needs one")
        return 1
    facts = gpu_facts()
    if not args.arch:
        args.arch = "sm_" + facts.get("compute_cap", "").replace(".", "")
    print(f"run_bench: {facts}; {args.models} batches {args.batches} {args.dtypes}")
    rows = []

    def save():
        return write_report(args, facts, rows, started)
    with tempfile.TemporaryDirectory(prefix="graphc-bench-") as work_dir:
        for name in args.models:
            for batch in args.batches:
                if time.monotonic() > deadline:
                    for dtype in args.dtypes:
                        rows.append({"model": name, "batch": batch, "dtype": dtype,
                                     "system": "all", "status": "not run: time budget spent"})
                    continue
                try:
                    module, make_input = build_model(name)
                    torch.manual_seed(1)
                    x = make_input(batch).cuda()
                    with torch.no_grad():
                        ref = module.cuda().float().eval()(x).float()
                except Exception as error:
                    rows.append({"model": name, "batch": batch, "dtype": "fp32",
                                 "system": "all", "status": f"model failed: {error}"[:300]})
                    continue
                for dtype in args.dtypes:
                    torch.manual_seed(1)
                    measure(args, name, module, lambda b, x=x: x.cpu()[:b], batch, dtype,
                            ref, work_dir, deadline, rows, save)
                del module, ref
                torch.cuda.empty_cache()
    print(f"run_bench: wrote {save()}.md and .json")
    failed = [r for r in rows if str(r.get("status", "")).startswith("failed")]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
