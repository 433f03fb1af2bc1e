"""Judges graphc's generated CUDA kernels without a GPU, from their SASS.

Compiles representative models (test/models at BERT-base, ViT-B and GPT-2
sizes, a decode step, the small CNN and ResNet, and a BERT word-embedding
lookup) for --target cuda in fp16 and fp32, keeps the build files (--keep), reads every
cubin's SASS (cuobjdump -sass) and resources (cuobjdump -res-usage), maps
each kernel to its template through the exec IR (--emit exec: kind, ops)
and codegen's launch table (--emit launches: grid, block, dynamic shared
memory) and checks the properties of
expectations.py: the share of 16-byte or cp.async global loads, no
local-memory spills, registers and shared memory within budget, and a grid
that fills the GPU where the work allows. Properties, never timings.

Prints a per-kernel and per-template report (and writes it as JSON with
--json); exits 1 when an enforced property fails, 0 otherwise. Pending
properties (enforced=False in expectations.py) are reported, never fatal.

    check_kernels.py --graphc build/bin/graphc --work-dir DIR [--models bert,cnn]
        [--archs sm_90,sm_80] [--precisions fp16,fp32] [--json report.json]

cuobjdump comes from --cuobjdump, $CUOBJDUMP, the venv's nvidia-cuda-cuobjdump
package (scripts/requirements.txt), or PATH; compiles share $GRAPHC_CACHE_DIR.
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "models"))

import expectations  # noqa: E402  (replaced by --expectations)


# --- models -----------------------------------------------------------------

def _bert_embedding():
    """BERT-base's word-embedding lookup: a [30522, 768] table, 128 ids."""
    import numpy as np
    from onnx import TensorProto, helper
    from model_common import make_model
    table = np.random.default_rng(0).standard_normal((30522, 768)).astype(np.float32)
    init = [helper.make_tensor("word_embeddings", TensorProto.FLOAT, table.shape,
                               table.tobytes(), raw=True)]
    nodes = [helper.make_node("Gather", ["word_embeddings", "ids"], ["y"],
                              name="embeddings.word", axis=0)]
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 768])]
    return make_model(nodes, "bert_embedding", inputs, outputs, init, opset=17)


def _model_builders():
    from make_attention_heads import make_attention_heads
    from make_cnn import make_cnn
    from make_decoder import make_decoder
    from make_resnet import make_resnet
    from make_transformer import make_transformer
    from make_vit_attention import make_vit_attention
    # name -> (builder, fixed dims at batch 1)
    return {
        # BERT-base: d_model 768, 12 heads of 64, FFN 3072, sequence 128.
        "bert": (lambda: make_transformer(d_model=768, heads=12, ffn=3072),
                 {"batch": 1, "seq": 128}),
        "bert-masked": (lambda: make_transformer(d_model=768, heads=12, ffn=3072, mask=True),
                        {"batch": 1, "seq": 128}),
        "bert-embedding": (_bert_embedding, {"batch": 1, "seq": 128}),
        # ViT-B/16 at 224x224: 197 tokens.
        "vit": (lambda: make_vit_attention(d_model=768, heads=12, ffn=3072),
                {"batch": 1, "seq": 197}),
        # GPT-2 small's sizes in the Llama-style block (MHA: 12 K/V heads).
        "gpt2": (lambda: make_decoder(d_model=768, heads=12, kv_heads=12, head_dim=64,
                                      ffn=3072),
                 {"batch": 1, "seq": 128}),
        # A decode step: one query against 512 keys of context (the cross
        # attention forms; the self forms see one key).
        "decode": (make_attention_heads, {"batch": 1, "seq": 1, "mem_seq": 512}),
        "cnn": (make_cnn, {"batch": 1, "size": 32}),
        "resnet": (make_resnet, {"batch": 1}),
    }


MODELS = ["bert", "bert-masked", "bert-embedding", "vit", "gpt2", "decode", "cnn", "resnet"]


def write_model(name, path):
    from model_common import save
    builder, dims = _model_builders()[name]
    if not os.path.exists(path):
        save(builder(), path + ".tmp", external_data=False)
        os.replace(path + ".tmp", path)
    return dims


# --- tools ------------------------------------------------------------------

def find_cuobjdump(explicit):
    candidates = [explicit, os.environ.get("CUOBJDUMP")]
    # The PyPI package nvidia-cuda-cuobjdump installs it under
    # site-packages/nvidia/cu13/bin, not on the venv's PATH.
    for base in {sys.prefix, os.path.join(ROOT, ".venv")}:
        candidates += glob.glob(os.path.join(base, "lib", "python3*", "site-packages",
                                             "nvidia", "cu*", "bin", "cuobjdump"))
    candidates += [shutil.which("cuobjdump"), "/usr/local/cuda/bin/cuobjdump"]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({result.returncode}):\n"
                           f"{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return result.stdout


# --- exec IR ----------------------------------------------------------------

_KERNEL = re.compile(r"^\s*exec\.kernel @(\S+)\s+(\w+) attributes \{(.*)\} \{\s*$")
_TENSOR = re.compile(r"tensor<([^>]*)>")
_GRAPH_OP = re.compile(r"=\s*graph\.(\w+)")


_LAUNCH = re.compile(r"^@(\S+) \w+ [0-9a-f]{16} grid \[([0-9, ]+)\] "
                     r"block \[([0-9, ]+)\] shared_bytes (\d+) ")


def _tensor_shape(text):
    """'1x128x768xf16' -> ([1, 128, 768], 2)."""
    parts = text.split("x")
    dtype = parts[-1]
    dims = [int(p) if p.isdigit() else -1 for p in parts[:-1]]
    bits = int(re.sub(r"\D", "", dtype) or 8) if dtype != "i1" else 8
    return dims, max(1, bits // 8)


def parse_launches(text, kernels):
    """Sets the launch of each kernel in `kernels` (parse_exec's) that
    `--emit launches` lists; library kernels without code have none."""
    for line in text.splitlines():
        match = _LAUNCH.match(line)
        if match:
            name, grid, block, shared = match.groups()
            kernels[name].update(grid=[int(v) for v in grid.split(",")],
                                 block=[int(v) for v in block.split(",")],
                                 dynamic_shared=int(shared))
    return kernels


def parse_exec(text):
    """exec.kernel name -> its kind, launch and the ops of its body."""
    kernels = {}
    current = None
    for line in text.splitlines():
        match = _KERNEL.match(line)
        if match:
            name, kind, attrs = match.groups()
            current = {"name": name, "kind": kind,
                       "grid": None, "block": None, "dynamic_shared": 0,
                       "library": re.search(r"\blibrary = ", attrs) is not None,
                       "conv": re.search(r"\bconv = ", attrs) is not None,
                       "ops": [], "yield": [], "attention": None}
            kernels[name] = current
            continue
        if current is None:
            continue
        stripped = line.strip()
        if stripped == "}":
            current = None
            continue
        op = _GRAPH_OP.search(stripped)
        if op:
            current["ops"].append(op.group(1))
            if op.group(1) == "attention":
                operands = _TENSOR.findall(stripped.split("->")[0])
                current["attention"] = [_tensor_shape(t)[0] for t in operands[:3]]
            # The op's input types: the first operand is the row input of a
            # row kernel.
            types = _TENSOR.findall(stripped.split("->")[0].split(":")[-1])
            if types and op.group(1) != "constant" and "first_input" not in current:
                current["first_input"] = _tensor_shape(types[0])
        if stripped.startswith("kernel.yield"):
            current["yield"] = [_tensor_shape(t) for t in _TENSOR.findall(stripped)]
    return kernels


ROW_OPS = {"layer_normalization", "softmax", "log_softmax", "rms_normalization"}
POOL_OPS = {"max_pool", "average_pool", "lp_pool", "global_average_pool", "global_max_pool",
            "global_lp_pool"}


def template_of(kernel):
    """The emitter that wrote the kernel, as CudaEmitter.cpp picks it."""
    kind, ops = kernel["kind"], [o for o in kernel["ops"] if o != "constant"]
    if kind == "pointwise":
        return "pointwise"
    if kind == "attention":
        # cuDNN SDPA's generated fallback (launched where cuDNN has no engine).
        return "attention_fallback" if kernel["library"] else "attention"
    if kind == "conv" and kernel["library"]:
        return "conv_epilogue"
    if kind in ("conv", "matmul"):
        return kind
    root = ops[-1] if ops else ""
    if kind == "reduction":
        return root if root in ROW_OPS else "pool" if root in POOL_OPS else "reduce"
    if root in ("gather", "gather_elements", "gather_nd"):
        return "gather"
    return "layout"


def work_units(kernel, unit):
    """How many blocks' worth of work the kernel has (expectations.py)."""
    if unit[0] == "bytes":
        out = sum(math.prod(max(d, 1) for d in dims) * size for dims, size in kernel["yield"])
        return math.ceil(out / unit[1])
    if unit[0] in ("rows", "reductions"):
        dims, size = kernel.get("first_input", ([1], 1))
        total = math.prod(max(d, 1) for d in dims)
        if unit[0] == "rows":
            # Softmax and normalisations: a row is the last axis.
            rows = total // max(dims[-1], 1) if dims else 1
        else:
            # A reduction: one row per output element.
            rows = math.prod(max(d, 1) for d in kernel["yield"][0][0]) if kernel["yield"] else 1
        return min(rows, math.ceil(total * size / unit[1]))
    if unit[0] == "output_rows":
        # A gather: a row of the output (its last axis) per warp.
        dims, size = kernel["yield"][0] if kernel["yield"] else ([1], 1)
        total = math.prod(max(d, 1) for d in dims)
        rows = total // max(dims[-1], 1) if dims else 1
        return min(rows, math.ceil(total * size / unit[1]))
    if unit[0] == "attention" and kernel["attention"]:
        q, k, _ = kernel["attention"]
        return q[0] * q[1] * math.ceil(q[2] / unit[1]) * math.ceil(k[2] / unit[2])
    return None


# --- SASS and resources ----------------------------------------------------

_FUNCTION = re.compile(r"^\s*(?:\.\.\.\.\.\.\.\.+\s*)?Function : (\S+)")
_INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)")
_RESOURCE_FN = re.compile(r"^\s*Function (\S+):")
_RESOURCE = re.compile(r"(REG|STACK|SHARED|LOCAL):(\d+)")


# Instructions that touch global (or generic) memory: none may come before a
# kernel's griddepcontrol.wait (ACQBULK) where the runtime launches it
# programmatically.
_MEMORY = {"LDG", "STG", "LDGSTS", "UTMALDG", "UBLKCP", "ATOMG", "ATOM", "RED",
           "REDG", "LD", "ST"}


def read_sass(cuobjdump, cubin):
    """kernel -> {loads, vector_loads, load_kinds, spills, waits,
    memory_before_wait} from the SASS."""
    kernels = {}
    current = None
    for line in run([cuobjdump, "-sass", cubin]).splitlines():
        match = _FUNCTION.match(line)
        if match:
            current = kernels.setdefault(match.group(1), {
                "loads": 0, "vector_loads": 0, "load_kinds": {}, "spill_instructions": 0,
                "waits": 0, "memory_before_wait": 0})
            continue
        if current is None:
            continue
        ins = _INSTRUCTION.search(line)
        if not ins:
            continue
        opcode = ins.group(1)
        base = opcode.split(".")[0]
        if base == "ACQBULK":
            current["waits"] += 1
        elif base in _MEMORY and not current["waits"]:
            current["memory_before_wait"] += 1
        if base in ("LDG", "LDGSTS", "UTMALDG", "UBLKCP"):
            current["loads"] += 1
            current["load_kinds"][opcode] = current["load_kinds"].get(opcode, 0) + 1
            if base != "LDG" or ".128" in opcode:
                current["vector_loads"] += 1
        elif base in ("STL", "LDL"):
            current["spill_instructions"] += 1
    return kernels


def read_resources(cuobjdump, cubin):
    """kernel -> {REG, STACK, SHARED, LOCAL} from cuobjdump -res-usage."""
    resources = {}
    current = None
    for line in run([cuobjdump, "-res-usage", cubin]).splitlines():
        match = _RESOURCE_FN.match(line)
        if match:
            current = match.group(1)
            continue
        if current and "REG:" in line:
            resources[current] = {k: int(v) for k, v in _RESOURCE.findall(line)}
            current = None
    return resources


def cubin_arch(cuobjdump, cubin):
    """'sm_90' for a cubin (its ELF header), None for PTX or anything else."""
    with open(cubin, "rb") as f:
        if f.read(4) != b"\x7fELF":
            return None
    out = run([cuobjdump, "-lelf", cubin])
    match = re.search(r"sm_(\d+)", out)
    return f"sm_{match.group(1)}" if match else None


# --- one compile -------------------------------------------------------------

def compile_one(graphc, work, model, precision, archs, cache_dir):
    """Compiles `model` once for every arch; returns the exec kernels and the
    cubins by arch."""
    onnx_path = os.path.join(work, f"{model}.onnx")
    dims = write_model(model, onnx_path)
    base = os.path.join(work, f"{model}-{precision}")
    keep = base + ".keep"
    shutil.rmtree(keep, ignore_errors=True)
    # What an earlier graphc wrote here (another descriptor ABI) is not this
    # run's to replace without asking: start from nothing.
    for stale in (base + ".so", base + ".so.weights"):
        if os.path.exists(stale):
            os.remove(stale)
    flags = ["--target", "cuda", "--arch", ",".join(archs), "--precision", precision,
             "--quiet", "--weights-file"]
    for dim, size in dims.items():
        flags += ["--dim", f"{dim}={size}"]
    env = dict(os.environ)
    if cache_dir:
        env["GRAPHC_CACHE_DIR"] = cache_dir
    exec_ir = run([graphc, "compile", onnx_path, "--emit", "exec"] + flags, env=env)
    launches = run([graphc, "compile", onnx_path, "--emit", "launches"] + flags, env=env)
    run([graphc, "compile", onnx_path, "-o", base + ".so", "--keep", keep] + flags, env=env)
    return parse_launches(launches, parse_exec(exec_ir)), sorted(glob.glob(os.path.join(keep, "**", "image*.bin"),
                                                 recursive=True))


# --- checks -----------------------------------------------------------------

def check_kernel(row, table):
    """Fills row["checks"]: property -> {ok, value, bound, enforced}."""
    checks = {}
    if table is None:
        # A new template must say what it promises.
        checks["has_expectations"] = {"ok": False, "value": row["template"],
                                      "bound": "a row in expectations.TEMPLATES",
                                      "enforced": True}
        table = {}
    for name, spec in table.items():
        bound = spec["bound"]
        if name == "vector_load_share":
            if row["loads"] == 0:
                continue
            value = row["vector_loads"] / row["loads"]
            ok = value >= bound
        elif name == "max_registers":
            value = row["registers"]
            ok = value <= bound
        elif name == "max_shared_bytes":
            value = row["shared_bytes"]
            ok = value <= bound
        elif name == "no_spills":
            value = {"local_bytes": row["local_bytes"], "stack_bytes": row["stack_bytes"],
                     "spill_instructions": row["spill_instructions"]}
            ok = row["local_bytes"] == 0 and row["spill_instructions"] == 0
        elif name == "waits_for_predecessor":
            # griddepcontrol.wait exists from sm_90 on; older code has none.
            if int(row["arch"].split("_")[1]) < 90:
                continue
            value = {"waits": row["waits"],
                     "memory_before_wait": row["memory_before_wait"]}
            ok = row["waits"] > 0 and row["memory_before_wait"] == 0
        elif name == "fills_gpu":
            units = row["work_units"]
            if units is None or row["grid_blocks"] is None:
                continue
            needed = min(expectations.SMS, units)
            value = row["grid_blocks"]
            bound = needed
            ok = value >= needed
        else:
            raise KeyError(f"expectations.py: unknown property {name}")
        checks[name] = {"ok": ok, "value": value, "bound": bound,
                        "enforced": spec["enforced"]}
    row["checks"] = checks


def analyse(graphc, work, cuobjdump, model, precision, archs, cache_dir):
    started = time.monotonic()
    kernels, images = compile_one(graphc, work, model, precision, archs, cache_dir)
    rows = []
    found = {}
    for image in images:
        arch = cubin_arch(cuobjdump, image)
        if arch is None or arch not in archs:
            continue
        sass = read_sass(cuobjdump, image)
        resources = read_resources(cuobjdump, image)
        unknown = sorted(set(sass) - set(kernels))
        if unknown:
            raise RuntimeError(f"{model} {precision} {arch}: {image} has functions the exec "
                               f"IR does not name: {unknown[:5]}")
        for name, code in sorted(sass.items()):
            kernel = kernels[name]
            found.setdefault(arch, set()).add(name)
            res = resources.get(name, {})
            template = template_of(kernel)
            table = expectations.TEMPLATES.get(template)
            grid = kernel["grid"]
            fills = (table or {}).get("fills_gpu", {}).get("bound")
            row = {"model": model, "precision": precision, "arch": arch,
                   "kernel": name, "kind": kernel["kind"], "template": template,
                   "ops": [o for o in kernel["ops"] if o != "constant"],
                   "grid": grid, "block": kernel["block"],
                   "grid_blocks": math.prod(grid) if grid else None,
                   "work_units": work_units(kernel, fills) if fills else None,
                   "registers": res.get("REG", 0),
                   "shared_bytes": res.get("SHARED", 0) + kernel["dynamic_shared"],
                   "local_bytes": res.get("LOCAL", 0), "stack_bytes": res.get("STACK", 0),
                   **code}
            check_kernel(row, table)
            rows.append(row)
    # Codegen sets a launch (grid) on exactly the kernels it writes code for:
    # each must be in every arch's cubins, or the mapping is broken.
    launched = {name for name, k in kernels.items() if k["grid"]}
    for arch in archs:
        missing = sorted(launched - found.get(arch, set()))
        if missing:
            raise RuntimeError(f"{model} {precision} {arch}: no SASS for generated kernels "
                               f"{missing[:5]} in {images}")
    return rows, time.monotonic() - started


def model_checks(rows):
    """The share of 16-byte loads over each compile's generated kernels (every
    model, precision and arch), checked where expectations.MODELS has a bound."""
    results = []
    for key in sorted({(r["model"], r["precision"], r["arch"]) for r in rows}):
        mine = [r for r in rows if (r["model"], r["precision"], r["arch"]) == key]
        loads = sum(r["loads"] for r in mine)
        vector = sum(r["vector_loads"] for r in mine)
        value = vector / loads if loads else 1.0
        spec = expectations.MODELS.get(key, {}).get("vector_load_share")
        results.append({"model": key[0], "precision": key[1], "arch": key[2],
                        "property": "vector_load_share", "loads": loads,
                        "vector_loads": vector, "value": value,
                        "bound": spec["bound"] if spec else None,
                        "ok": value >= spec["bound"] if spec else True,
                        "enforced": spec["enforced"] if spec else False,
                        "why": spec["why"] if spec else ""})
    return results


# --- report -----------------------------------------------------------------

def status(check):
    if check["ok"]:
        return "ok"
    return "FAIL" if check["enforced"] else "pending"


def fmt_value(name, check):
    value = check["value"]
    if name == "vector_load_share":
        return f"{value:.0%}>={check['bound']:.0%}"
    if name == "no_spills":
        return f"local={value['local_bytes']},stl/ldl={value['spill_instructions']}"
    if name == "fills_gpu":
        return f"{value}>={check['bound']}"
    if name == "has_expectations":
        return f"no row for template {value} in expectations.py"
    return f"{value}<={check['bound']}"


def print_report(rows, models, out):
    out.write("per kernel (model precision arch kernel template: loads 16B/all, "
              "regs, shared, local, grid, block; checks)\n")
    for r in rows:
        failed = [f"{n} {status(c)} ({fmt_value(n, c)})"
                  for n, c in r["checks"].items() if not c["ok"]]
        out.write(f"  {r['model']:<14} {r['precision']} {r['arch']} {r['kernel']:<36} "
                  f"{r['template']:<19} loads {r['vector_loads']}/{r['loads']} "
                  f"regs {r['registers']} shared {r['shared_bytes']} local {r['local_bytes']} "
                  f"grid {r['grid_blocks']} block {r['block'] and math.prod(r['block'])}"
                  f"{'; ' + '; '.join(failed) if failed else ''}\n")
    out.write("\nper template (over every compile): kernels, 16-byte loads/all loads, "
              "max registers, max shared, spills; failing checks\n")
    by_template = {}
    for r in rows:
        by_template.setdefault((r["template"], r["precision"], r["arch"]), []).append(r)
    for (template, precision, arch), mine in sorted(by_template.items()):
        loads = sum(r["loads"] for r in mine)
        vector = sum(r["vector_loads"] for r in mine)
        share = f"{vector / loads:.0%}" if loads else "-"
        spills = sum(1 for r in mine if r["local_bytes"] or r["spill_instructions"])
        kinds = {}
        for r in mine:
            for opcode, count in r["load_kinds"].items():
                kinds[opcode] = kinds.get(opcode, 0) + count
        counts = {}
        for r in mine:
            for n, c in r["checks"].items():
                if not c["ok"]:
                    counts[(n, status(c))] = counts.get((n, status(c)), 0) + 1
        failing = ", ".join(f"{n} {s} x{k}" for (n, s), k in sorted(counts.items()))
        out.write(f"  {template:<19} {precision} {arch}: {len(mine):3} kernels, "
                  f"loads {vector}/{loads} ({share}), regs <= "
                  f"{max(r['registers'] for r in mine)}, shared <= "
                  f"{max(r['shared_bytes'] for r in mine)}, {spills} spilling"
                  f"{'; ' + failing if failing else ''}\n"
                  f"      load instructions: "
                  f"{', '.join(f'{k} {v}' for k, v in sorted(kinds.items())) or 'none'}\n")
    out.write("\nper model (every generated kernel of one compile)\n")
    for m in models:
        bound = (f" (bound {m['bound']:.0%}) {status(m)}: {m['why']}"
                 if m["bound"] is not None else "")
        out.write(f"  {m['model']:<14} {m['precision']} {m['arch']}: 16-byte loads "
                  f"{m['vector_loads']}/{m['loads']} = {m['value']:.0%}{bound}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--archs", default="sm_90,sm_80",
                        help="every model is compiled once for all of them")
    parser.add_argument("--precisions", default="fp16,fp32")
    parser.add_argument("--cuobjdump")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", help="write the report here")
    parser.add_argument("--expectations",
                        help="another table than expectations.py (the test that the "
                             "checker fails gives a strict one)")
    args = parser.parse_args()
    if args.expectations:
        import importlib.util
        global expectations
        spec = importlib.util.spec_from_file_location("expectations", args.expectations)
        expectations = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(expectations)

    cuobjdump = find_cuobjdump(args.cuobjdump)
    if not cuobjdump:
        print("check_kernels: error: no cuobjdump (pip install -r scripts/requirements.txt "
              "into .venv: nvidia-cuda-cuobjdump, or set CUOBJDUMP)", file=sys.stderr)
        return 1
    models = [m for m in args.models.split(",") if m]
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        print(f"check_kernels: error: unknown model {unknown[0]} (known: {', '.join(MODELS)})",
              file=sys.stderr)
        return 1
    archs = [a for a in args.archs.split(",") if a]
    precisions = [p for p in args.precisions.split(",") if p]
    os.makedirs(args.work_dir, exist_ok=True)
    cache_dir = os.environ.get("GRAPHC_CACHE_DIR") or os.path.join(args.work_dir, "cache")

    started = time.monotonic()
    # The models first, one process each would race on the same .onnx.
    for model in models:
        write_model(model, os.path.join(args.work_dir, f"{model}.onnx"))
    rows, timings = [], {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(analyse, args.graphc, args.work_dir, cuobjdump, m, p, archs,
                               cache_dir): (m, p)
                   for m in models for p in precisions}
        for future in concurrent.futures.as_completed(futures):
            got, seconds = future.result()
            rows += got
            timings["/".join(futures[future])] = round(seconds, 1)
    rows.sort(key=lambda r: (r["model"], r["precision"], r["arch"], r["kernel"]))
    model_results = model_checks(rows)
    print_report(rows, model_results, sys.stdout)

    failures = [(r, n) for r in rows for n, c in r["checks"].items()
                if not c["ok"] and c["enforced"]]
    failures += [(m, m["property"]) for m in model_results if not m["ok"] and m["enforced"]]
    pending = sum(1 for r in rows for c in r["checks"].values()
                  if not c["ok"] and not c["enforced"])
    pending += sum(1 for m in model_results if not m["ok"] and not m["enforced"])
    checked = sum(len(r["checks"]) for r in rows) + sum(
        1 for m in model_results if m["bound"] is not None)
    total = time.monotonic() - started
    print(f"\n{len(rows)} kernels of {len(models)} models x {len(precisions)} precisions x "
          f"{len(archs)} archs; {checked} checks: {len(failures)} failed (enforced), "
          f"{pending} pending (not enforced); {total:.0f} s "
          f"(compile+read per model: {json.dumps(timings, sort_keys=True)})")
    for row, name in failures:
        print(f"check_kernels: FAIL {row['model']} {row['precision']} {row['arch']} "
              f"{row.get('kernel', '(model)')}: {name}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tools": {"cuobjdump": cuobjdump,
                                 "version": run([cuobjdump, "--version"]).strip().splitlines()[-1]},
                       "expectations": {"templates": expectations.TEMPLATES,
                                        "models": [{"key": list(k), **v} for k, v in
                                                   expectations.MODELS.items()]},
                       "kernels": rows, "models": model_results,
                       "seconds": round(total, 1)}, f, indent=1, default=str)
    if not rows:
        print("check_kernels: error: no generated kernel was found", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
