"""End-to-end tests of graphc on the generated models in test/models.

    python run_model_tests.py CHECK --graphc build/bin/graphc \
        [--runtime build/lib/libgraphc_runtime.so] [--target cpu|cuda] \
        [--arch sm_90] [--cuda-emulation DRIVER] [--libraries L] [--work-dir DIR]

--cuda-emulation runs the cuda target without a GPU: graphc compiles the
generated CUDA for the host and DRIVER (libgraphc_fake_cuda.so) runs it, and
its library steps (as the fake cuBLASLt and cuDNN). --cudnn-refuse-fusion
makes the fake cuDNN offer no engine for a convolution with an epilogue, so
that the runtime runs the convolution alone and then the epilogue kernel
graphc generated for it; --cudnn-refuse-sdpa none for attention, so that
the runtime runs graphc's attention kernel instead. --expect-sdpa fused (or
fallback) checks that every bucket has attention on cuDNN's SDPA and that
the session runs it there (or on the fallback kernel).

CHECK is one of:
  accuracy-mlp, accuracy-resnet, accuracy-transformer, accuracy-rewrites,
  accuracy-mbconv,
  accuracy-decoder, accuracy-masked-transformer, accuracy-hf-masked-transformer,
  accuracy-attention-heads
      generate the model, compile it with fixed dims, run it on seeded random
      inputs through the Python runtime and compare with onnxruntime (CPU)
  deterministic   compiling the same model twice gives byte-identical .so files
  no-compiler-deps  ldd of a model .so names no MLIR, LLVM or protobuf library
  weights-file    --weights-file writes OUT.so.weights, the .so shrinks by the
                  weights, and the model still matches onnxruntime (the model
                  itself keeps its weights in ONNX external data)
  buckets         one artifact for many shapes: a CNN compiled for batch
                  1,2,4,8 runs batch 1, 3, 8 and 11 (exact, padded, split);
                  an encoder with a mask input runs lengths between buckets;
                  without the mask, a length between buckets is refused
                  naming the softmax, and --assume-pad-safe is refused with
                  the difference; a forward CumSum, exact although the
                  analysis cannot prove it, runs padded with
                  --assume-pad-safe; all match onnxruntime
  all             every check above
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS_DIR = os.path.join(ROOT, "test", "models")
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))

# Model -> the dims the tests fix, as several buckets where the model has
# more than one dynamic dim (each bucket is compiled and checked on its own).
MODELS = {
    "mlp": {"generator": "make_mlp.py", "buckets": [{"batch": 4}]},
    "resnet": {"generator": "make_resnet.py", "buckets": [{"batch": 2}]},
    # seq 1: one token, whose head splits are views (their transposes move
    # unit dims only), and its Q/K/V projections still one GEMM.
    "transformer": {"generator": "make_transformer.py",
                    "buckets": [{"batch": 2, "seq": 16}, {"batch": 1, "seq": 7},
                                {"batch": 1, "seq": 1}]},
    "rewrites": {"generator": "make_rewrites.py", "buckets": [{"batch": 3}]},
    # seq 128: whole key tiles, so the cuda attention stages the mask
    # [batch, 1, 1, seq] by cp.async, and splits the keys at batch 1.
    "masked_transformer": {"generator": "make_masked_transformer.py",
                           "buckets": [{"batch": 2, "seq": 8}, {"batch": 1, "seq": 128}]},
    # Two layers reading Hugging Face BERT's int64 padding mask, expanded
    # and made a bias once (read unexpanded by both attentions): at seq 128
    # staged as a [batch, 1, seq, seq] mask, one row per query.
    "hf_masked_transformer": {"generator": "make_hf_masked_transformer.py",
                              "buckets": [{"batch": 2, "seq": 8}, {"batch": 1, "seq": 128}]},
    # seq 40: more keys than one tile of the attention kernel, rows that do
    # not fill its blocks.
    "decoder": {"generator": "make_decoder.py",
                "buckets": [{"batch": 2, "seq": 40}, {"batch": 1, "seq": 3}]},
    # nn.MultiheadAttention's packed projection, unbound by Gathers: batch 1
    # makes its batch dims unit dims, batch 3 the views of [S, B*H, D].
    "vit_attention": {"generator": "make_vit_attention.py",
                      "buckets": [{"batch": 3, "seq": 20}, {"batch": 1, "seq": 6}]},
    # The attention templates' head sizes (32, 64, 80, 128), causal and
    # grouped, and cross attention to a memory of mem_seq keys: seq 70 and
    # 130 are not multiples of a key tile and take two and three tiles (the
    # second buffer reused), seq 1 is one query. At batch 1 the key range
    # splits across blocks (flash-decoding): seq 1 against 600 keys (a
    # decode step; some splits get no tile), seq 256 (causal splits, in
    # float32 too; whole key tiles, so the band mask is staged a row per
    # query) against 1030 keys (not multiples of a tile or split).
    "attention_heads": {"generator": "make_attention_heads.py",
                        "buckets": [{"batch": 2, "seq": 70, "mem_seq": 70},
                                    {"batch": 1, "seq": 130, "mem_seq": 9},
                                    {"batch": 1, "seq": 1, "mem_seq": 600},
                                    {"batch": 1, "seq": 256, "mem_seq": 1030}]},
    # Convolutions with SiLU (cuDNN's SWISH_FWD), a depthwise one, and a
    # squeeze-and-excitation scale between them.
    "mbconv": {"generator": "make_mbconv.py", "buckets": [{"batch": 2}]},
}
# The f32 tolerances of the conformance suite (test/conformance/node_tests.py).
RTOL, ATOL = 1e-4, 1e-5
# --precision fp16 / bf16 against onnxruntime's float32: the rounding of
# weights and of every stored activation (11 and 8 significant bits), grown
# over a few layers. The absolute part scales with the output's magnitude.
NARROW_TOLERANCES = {"fp16": 1e-2, "bf16": 6e-2, "tf32": 1e-2}


class CheckFailed(Exception):
    pass


def generate(name, work_dir, external_data=False):
    path = os.path.join(work_dir, f"{name}{'_ext' if external_data else ''}.onnx")
    command = [sys.executable, os.path.join(MODELS_DIR, MODELS[name]["generator"]), path]
    if external_data:
        command.append("--external-data")
    subprocess.run(command, check=True)
    return path


def compile_model(args, model, output, dims, extra=()):
    command = [args.graphc, "compile", model, "-o", output, "--target", args.target,
               *[f"--dim={k}={v}" for k, v in dims.items()], *extra]
    if args.target == "cuda" and args.arch:
        command += ["--arch", args.arch]
    if args.cuda_emulation:
        command += ["--cuda-emulation"]
    if args.libraries:
        command += ["--libraries", args.libraries]
    if args.precision != "fp32":
        command += ["--precision", args.precision]
    if args.io_precision != "fp32":
        command += ["--io-precision", args.io_precision]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CheckFailed(f"graphc compile {os.path.basename(model)} failed:\n"
                          f"{proc.stderr.strip()}")
    return output


def random_feeds(model_path, dims, seed=1):
    import onnx
    model = onnx.load(model_path, load_external_data=False)
    rng = np.random.default_rng(seed)
    feeds = {}
    for value in model.graph.input:
        shape = [d.dim_value if d.HasField("dim_value") else dims[d.dim_param]
                 for d in value.type.tensor_type.shape.dim]
        feeds[value.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def model_feeds(name, model_path, dims, seed=1):
    """The inputs a model test runs: for the masked encoders a mask that drops
    keys (an additive mask inside attention), of the model's mask type; for
    the others random float32 inputs."""
    if name in ("masked_transformer", "hf_masked_transformer"):
        return masked_feeds(model_path, dims["batch"], dims["seq"], seed=seed)
    return random_feeds(model_path, dims, seed=seed)


def compare_with_onnxruntime(model_path, so_path, dims, feeds=None, precision="fp32",
                             io_precision="fp32", more_feeds=()):
    """Runs the artifact on `feeds`, then on each of `more_feeds` in the same
    session (on cuda a replay of its CUDA graph, which must find the state
    the first run left, e.g. attention's split counters, reset), and
    compares every run with onnxruntime."""
    if feeds is None:
        feeds = random_feeds(model_path, dims)
    runs = [feeds, *more_feeds]
    results = _run_and_compare(model_path, so_path, runs, precision, io_precision)
    return results[0] if len(results) == 1 else \
        "; ".join(f"run {i + 1}: {r}" for i, r in enumerate(results))


def _run_and_compare(model_path, so_path, runs, precision, io_precision):
    import graphc
    with graphc.load(so_path) as model:
        return [_compare_run(model_path, model, feeds, precision, io_precision)
                for feeds in runs]


def _compare_run(model_path, model, feeds, precision, io_precision):
    import onnxruntime as ort
    reference = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    names = [o.name for o in reference.get_outputs()]
    # --io-precision: the artifact takes float32 inputs in that type, and
    # onnxruntime gets the very values it gets.
    io_type = {"fp16": np.float16}.get(io_precision)
    if io_type is not None:
        feeds = {name: value.astype(io_type) if value.dtype == np.float32 else value
                 for name, value in feeds.items()}
    reference_feeds = {name: value.astype(np.float32) if value.dtype == np.float16 else value
                       for name, value in feeds.items()}
    expected = reference.run(None, reference_feeds)
    got_names = [o.name for o in model.outputs]
    if got_names != names:
        raise CheckFailed(f"outputs {got_names}, onnxruntime has {names}")
    actual = [tensor.numpy() for tensor in model.run(feeds)]
    lines = []
    for name, got, want in zip(names, actual, expected):
        if io_type is not None and want.dtype == np.float32:
            if got.dtype != io_type:
                raise CheckFailed(f"output '{name}': {got.dtype}, --io-precision "
                                  f"{io_precision} makes it {np.dtype(io_type)}")
            got = got.astype(np.float32)
        if got.shape != want.shape or got.dtype != want.dtype:
            raise CheckFailed(f"output '{name}': {got.dtype}{list(got.shape)}, "
                              f"onnxruntime gives {want.dtype}{list(want.shape)}")
        error = float(np.max(np.abs(got.astype(np.float64) - want)))
        rtol, atol = RTOL, ATOL
        if precision in NARROW_TOLERANCES:
            rtol = NARROW_TOLERANCES[precision]
            atol = rtol * max(1.0, float(np.max(np.abs(want))))
        if not np.allclose(got, want, rtol=rtol, atol=atol):
            raise CheckFailed(f"output '{name}' differs from onnxruntime: max "
                              f"|error| {error:.3g} (rtol {rtol:g}, atol {atol:g})")
        lines.append(f"'{name}' {list(got.shape)} max |error| {error:.3g}")
    return "; ".join(lines)


def expect_narrow_kernels(args, so_path):
    """The matmul, convolution and attention kernels of a --precision fp16
    or bf16 artifact compute in that type, and the library GEMMs of a tf32
    one round to tf32: the model really was compiled so."""
    import json
    report = json.loads(subprocess.run([args.graphc, "inspect", "--json", so_path],
                                       check=True, capture_output=True, text=True).stdout)
    if args.precision == "tf32":
        gemms = [k for k in report["kernels"] if k["gemm"]]
        if not gemms or not all(k["gemm"]["tf32"] for k in gemms):
            raise CheckFailed("--precision tf32: library GEMMs "
                              f"{[(k['name'], k['gemm']['tf32']) for k in gemms]}")
        return
    want = {"fp16": "float16", "bf16": "bfloat16"}[args.precision]
    heavy = [k for k in report["kernels"] if k["kind"] in ("matmul", "conv", "attention")]
    wide = [k["name"] for k in heavy if k["flop_dtype"] != want]
    if not heavy or wide:
        raise CheckFailed(f"--precision {args.precision}: kernels {wide} do not compute in "
                          f"{want}" if heavy else "no matmul, conv or attention kernel")


def expect_sdpa(args, so_path):
    """The artifact's attention kernels are cuDNN SDPA calls, and a session
    runs them on cuDNN (fused) or on their generated fallback kernel."""
    import graphc
    with graphc.load(so_path) as model:
        with model.session() as session:
            kernels = [k for k in session.library_kernels() if k["kind"] == "attention"]
    if not kernels:
        raise CheckFailed("--expect-sdpa: no attention kernel is a cuDNN SDPA call")
    want = args.expect_sdpa == "fused"
    wrong = [k["kernel"] for k in kernels if k["fused"] is not want]
    if wrong:
        raise CheckFailed(f"--expect-sdpa {args.expect_sdpa}: kernels {wrong} are not")
    print(f"  {len(kernels)} attention kernel(s) on cuDNN SDPA, {args.expect_sdpa}")


def dims_text(dims):
    return " ".join(f"{k}={v}" for k, v in dims.items())


def check_accuracy(args, name):
    model = generate(name, args.work_dir)
    for dims in MODELS[name]["buckets"]:
        so = compile_model(args, model, os.path.join(
            args.work_dir, f"{name}_{'_'.join(map(str, dims.values()))}.so"), dims)
        if args.precision in NARROW_TOLERANCES:
            expect_narrow_kernels(args, so)
        if args.expect_sdpa:
            expect_sdpa(args, so)
        # A second run on other inputs replays the plan in the same session.
        feeds, again = [model_feeds(name, model, dims, seed=seed) for seed in (1, 2)]
        print(f"  {name} ({dims_text(dims)}, {args.target}, {args.precision}): "
              f"{compare_with_onnxruntime(model, so, dims, feeds=feeds, precision=args.precision, io_precision=args.io_precision, more_feeds=[again])}")


def check_deterministic(args):
    for name in MODELS:
        model = generate(name, args.work_dir)
        dims = MODELS[name]["buckets"][0]
        first = compile_model(args, model, os.path.join(args.work_dir, f"{name}_a.so"), dims)
        second = compile_model(args, model, os.path.join(args.work_dir, f"{name}_b.so"), dims)
        with open(first, "rb") as a, open(second, "rb") as b:
            one, two = a.read(), b.read()
        if one != two:
            offset = next(i for i, (x, y) in enumerate(zip(one, two)) if x != y) \
                if len(one) == len(two) else min(len(one), len(two))
            raise CheckFailed(f"{name}: two compiles differ ({len(one)} vs {len(two)} "
                              f"bytes, first difference at byte {offset})")
        print(f"  {name}: two compiles are byte-identical ({len(one)} bytes)")


def check_no_compiler_deps(args):
    for name in MODELS:
        model = generate(name, args.work_dir)
        so = compile_model(args, model, os.path.join(args.work_dir, f"{name}.so"),
                           MODELS[name]["buckets"][0])
        proc = subprocess.run(["ldd", so], capture_output=True, text=True, check=True)
        libraries = [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]
        bad = [lib for lib in libraries
               if any(key in lib.lower() for key in ("mlir", "llvm", "protobuf", "onnx"))]
        if bad:
            raise CheckFailed(f"{name}: the .so depends on {', '.join(bad)}")
        print(f"  {name}: depends on {', '.join(libraries)}")


def check_weights_file(args):
    name = "resnet"
    dims = MODELS[name]["buckets"][0]
    model = generate(name, args.work_dir, external_data=True)
    embedded = compile_model(args, model, os.path.join(args.work_dir, "embedded.so"), dims)
    side = compile_model(args, model, os.path.join(args.work_dir, "side.so"), dims,
                         ["--weights-file"])
    weights = side + ".weights"
    if not os.path.isfile(weights):
        raise CheckFailed(f"--weights-file wrote no {os.path.basename(weights)}")
    weights_size = os.path.getsize(weights)
    shrink = os.path.getsize(embedded) - os.path.getsize(side)
    if weights_size == 0 or shrink < weights_size * 0.9:
        raise CheckFailed(f"the side file has {weights_size} bytes but the .so "
                          f"shrank by only {shrink} bytes")
    print(f"  {name}: {os.path.basename(weights)} holds {weights_size} bytes; "
          f"the .so is {shrink} bytes smaller than with embedded weights")
    print(f"  {name} with side weights: {compare_with_onnxruntime(model, side, dims)}")
    os.remove(weights)
    import graphc
    try:
        graphc.load(side).close()
    except graphc.GraphcError as error:
        print(f"  without the side file, loading fails: {error.code}: {error}")
    else:
        raise CheckFailed("the model loads although its weights file is gone")


def bucket_dim(so_path, name):
    import graphc
    with graphc.load(so_path) as model:
        found = [dim for dim in model.bucket_dims if dim.name == name]
    if not found:
        raise CheckFailed(f"{os.path.basename(so_path)} has no bucketed dim '{name}'")
    return found[0]


def expect_bucket_dim(so_path, name, pad_safe, splittable, node=None):
    dim = bucket_dim(so_path, name)
    if (dim.pad_safe, dim.splittable) != (pad_safe, splittable):
        raise CheckFailed(f"'{name}': pad_safe={dim.pad_safe} splittable="
                          f"{dim.splittable}, expected {pad_safe} and {splittable} "
                          f"({dim.node}: {dim.reason})")
    if node is not None and dim.node != node:
        raise CheckFailed(f"'{name}' is not pad-safe because of node '{dim.node}' "
                          f"({dim.reason}), expected '{node}'")
    print(f"  {os.path.basename(so_path)}: {dim!r}")


def mask_type(model_path):
    import onnx
    model = onnx.load(model_path, load_external_data=False)
    mask = next(i for i in model.graph.input if i.name == "attention_mask")
    return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(mask.type.tensor_type.elem_type)).name


def masked_feeds(model_path, batch, seq, seed):
    """Random x, and a mask of ones (of the model's float32 or int64 type)
    whose last row drops its last two keys."""
    feeds = random_feeds(model_path, {"batch": batch, "seq": seq}, seed)
    mask = np.ones((batch, seq), np.dtype(mask_type(model_path)))
    if seq > 2:
        mask[-1, -2:] = 0
    feeds["attention_mask"] = mask
    return feeds


def check_buckets(args):
    import graphc
    # A CNN's batch: exact, padded (3 -> 4), the largest, and split (8 + 3).
    model = generate("resnet", args.work_dir)
    so = compile_model(args, model, os.path.join(args.work_dir, "resnet_buckets.so"),
                       {}, ["--buckets", "batch=1,2,4,8"])
    expect_bucket_dim(so, "batch", pad_safe=True, splittable=True)
    for batch in (1, 3, 8, 11):
        print(f"  resnet batch {batch}: "
              f"{compare_with_onnxruntime(model, so, {'batch': batch})}")
    # One bucket still pads: batch 3 runs in the batch-4 plan.
    so = compile_model(args, model, os.path.join(args.work_dir, "resnet_one.so"),
                       {}, ["--buckets", "batch=4"])
    print(f"  resnet with one bucket, batch 3: "
          f"{compare_with_onnxruntime(model, so, {'batch': 3})}")

    # An encoder with a mask input: seq pads with a zero mask; batch splits.
    model = generate("masked_transformer", args.work_dir)
    so = compile_model(args, model, os.path.join(args.work_dir, "masked_buckets.so"),
                       {}, ["--buckets", "batch=1,2", "--buckets", "seq=4,8,16",
                            "--pad-value", "attention_mask=0"])
    expect_bucket_dim(so, "seq", pad_safe=True, splittable=False)
    expect_bucket_dim(so, "batch", pad_safe=True, splittable=True)
    for seed, (batch, seq) in enumerate(((1, 5), (2, 11), (2, 16), (3, 7))):
        feeds = masked_feeds(model, batch, seq, seed)
        print(f"  masked encoder batch {batch} seq {seq}: "
              f"{compare_with_onnxruntime(model, so, None, feeds)}")

    # Without the mask, padding keys changes the softmax: exact lengths only.
    model = generate("transformer", args.work_dir)
    so = compile_model(args, model, os.path.join(args.work_dir, "plain_buckets.so"),
                       {}, ["--buckets", "batch=1,2", "--buckets", "seq=4,8"])
    expect_bucket_dim(so, "seq", pad_safe=False, splittable=False, node="softmax")
    print(f"  encoder batch 2 seq 8: "
          f"{compare_with_onnxruntime(model, so, {'batch': 2, 'seq': 8})}")
    try:
        compare_with_onnxruntime(model, so, {"batch": 2, "seq": 5})
    except graphc.InvalidArgumentError as error:
        if "'seq'" not in str(error) or "softmax" not in str(error):
            raise CheckFailed(f"the error names neither the dim nor the node: {error}")
        print(f"  seq 5 is refused: {error}")
    else:
        raise CheckFailed("seq 5 ran although padding along 'seq' is not exact")
    proc = subprocess.run(
        [args.graphc, "compile", model, "-o", os.path.join(args.work_dir, "wrong.so"),
         "--target", args.target, "--buckets", "batch=1,2", "--buckets", "seq=4,8",
         "--assume-pad-safe", "seq", *(["--cuda-emulation"] if args.cuda_emulation else [])],
        capture_output=True, text=True)
    if proc.returncode == 0 or "--assume-pad-safe seq is wrong" not in proc.stderr \
            or "softmax" not in proc.stderr:
        raise CheckFailed(f"a wrong --assume-pad-safe was not refused:\n{proc.stderr}")
    print(f"  {proc.stderr.strip()}")

    # A forward cumulative sum is exact under padding, which the analysis
    # does not prove: --assume-pad-safe checks it and lets runs pad.
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("CumSum", ["x", "axis"], ["y"], name="cumsum")], "cumsum",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq"])],
        [helper.make_tensor("axis", TensorProto.INT64, [], [1])])
    model = os.path.join(args.work_dir, "cumsum.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    so = compile_model(args, model, os.path.join(args.work_dir, "cumsum.so"), {},
                       ["--buckets", "batch=2", "--buckets", "seq=2,4,8"])
    expect_bucket_dim(so, "seq", pad_safe=False, splittable=False, node="cumsum")
    so = compile_model(args, model, os.path.join(args.work_dir, "cumsum_assumed.so"), {},
                       ["--buckets", "batch=2", "--buckets", "seq=2,4,8",
                        "--assume-pad-safe", "seq"])
    expect_bucket_dim(so, "seq", pad_safe=True, splittable=False)
    print(f"  cumsum seq 3 with --assume-pad-safe: "
          f"{compare_with_onnxruntime(model, so, {'batch': 2, 'seq': 3})}")


CHECKS = {
    "accuracy-mlp": lambda args: check_accuracy(args, "mlp"),
    "accuracy-resnet": lambda args: check_accuracy(args, "resnet"),
    "accuracy-transformer": lambda args: check_accuracy(args, "transformer"),
    "accuracy-rewrites": lambda args: check_accuracy(args, "rewrites"),
    "accuracy-decoder": lambda args: check_accuracy(args, "decoder"),
    "accuracy-masked-transformer": lambda args: check_accuracy(args, "masked_transformer"),
    "accuracy-hf-masked-transformer":
        lambda args: check_accuracy(args, "hf_masked_transformer"),
    "accuracy-vit-attention": lambda args: check_accuracy(args, "vit_attention"),
    "accuracy-mbconv": lambda args: check_accuracy(args, "mbconv"),
    "accuracy-attention-heads": lambda args: check_accuracy(args, "attention_heads"),
    "deterministic": check_deterministic,
    "no-compiler-deps": check_no_compiler_deps,
    "weights-file": check_weights_file,
    "buckets": check_buckets,
}


def add_compile_arguments(parser):
    """The options of compile_model (and the emulated driver it runs on), shared
    with bench/graph_replay.py so that both compile the same way."""
    parser.add_argument("--cuda-emulation", metavar="DRIVER",
                        help="compile with --cuda-emulation and run on this "
                        "CUDA driver, cuBLASLt and cuDNN library "
                        "(libgraphc_fake_cuda.so)")
    parser.add_argument("--cudnn-refuse-fusion", action="store_true",
                        help="with --cuda-emulation: the fake cuDNN fuses no "
                        "epilogue into a convolution")
    parser.add_argument("--cudnn-refuse-sdpa", action="store_true",
                        help="with --cuda-emulation: the fake cuDNN offers no "
                        "engine for attention (the fallback kernel runs)")
    parser.add_argument("--expect-sdpa", choices=["fused", "fallback"],
                        help="check that attention runs on cuDNN's SDPA, or "
                        "on its fallback kernel")
    parser.add_argument("--libraries",
                        help="graphc compile --libraries: auto, none, or a "
                        "list of cublaslt, cudnn and cudnn-sdpa (on cpu: "
                        "library steps on the reference GEMM and convolution)")
    parser.add_argument("--precision", choices=["fp32", "tf32", "fp16", "bf16"],
                        default="fp32",
                        help="graphc compile --precision; fp16 and bf16 are "
                        "compared with onnxruntime's float32 within their "
                        "rounding")
    parser.add_argument("--io-precision", choices=["fp32", "fp16"], default="fp32",
                        help="graphc compile --io-precision: fp16 feeds the model "
                        "float16 inputs (onnxruntime the same values in float32)")


def apply_compile_arguments(parser, args):
    """Checks those options and points the runtime at the emulated driver."""
    if args.cuda_emulation:
        if args.target != "cuda":
            parser.error("--cuda-emulation needs --target cuda")
        os.environ["GRAPHC_CUDA_DRIVER_LIBRARY"] = os.path.abspath(args.cuda_emulation)
        # The fake driver is the fake cuBLASLt and cuDNN too: library steps
        # (GEMMs, convolutions) run there, on the fake's streams.
        os.environ["GRAPHC_CUBLASLT_LIBRARY"] = os.path.abspath(args.cuda_emulation)
        os.environ["GRAPHC_CUDNN_LIBRARY"] = os.path.abspath(args.cuda_emulation)
        if args.cudnn_refuse_fusion:
            os.environ["FAKECU_CUDNN_REFUSE_FUSION"] = "1"
        if args.cudnn_refuse_sdpa:
            os.environ["FAKECU_CUDNN_REFUSE_SDPA"] = "1"
    elif args.cudnn_refuse_fusion or args.cudnn_refuse_sdpa:
        parser.error("--cudnn-refuse-fusion and --cudnn-refuse-sdpa need "
                     "--cuda-emulation")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("check", choices=[*CHECKS, "all"])
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--runtime", help="path of libgraphc_runtime.so")
    parser.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--arch", help="--arch for the cuda target (e.g. sm_90)")
    add_compile_arguments(parser)
    parser.add_argument("--work-dir")
    args = parser.parse_args()
    args.graphc = os.path.abspath(args.graphc)
    apply_compile_arguments(parser, args)
    if args.runtime:
        os.environ["GRAPHC_RUNTIME_LIBRARY"] = os.path.abspath(args.runtime)
    import graphc
    names = list(CHECKS) if args.check == "all" else [args.check]
    failed = 0
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"graphc-e2e-{name}-",
                                         dir=args.work_dir) as work_dir:
            args.work_dir_root, args.work_dir = args.work_dir, work_dir
            print(f"{name}:")
            try:
                CHECKS[name](args)
                print(f"ok: {name}")
            except (CheckFailed, subprocess.CalledProcessError,
                    graphc.GraphcError) as error:
                print(f"FAILED: {name}: {error}")
                failed += 1
            args.work_dir = args.work_dir_root
    if len(names) > 1:
        print(f"{len(names) - failed} of {len(names)} checks pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
