"""Median latency of the generated test models on the GPU with CUDA-graph
replay (the runtime's default) and with plain launches (sessions created with
GRAPHC_SESSION_DISABLE_CUDA_GRAPHS, graphc.load(..., cuda_graphs=False)).

    python bench/graph_replay.py --graphc build/bin/graphc \
        [--runtime build/lib/libgraphc_runtime.so] [--arch sm_90] [--iters 200]

Inputs are device tensors when PyTorch with CUDA is installed (so only the
output download is timed besides the model); otherwise numpy arrays, whose
upload is timed too (the script says which). Needs an NVIDIA GPU.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))

import run_model_tests as models  # noqa: E402


def gpu_arch():
    """sm_XY of GPU 0, or None when there is no NVIDIA GPU."""
    if not shutil.which("nvidia-smi"):
        return None
    proc = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap",
                           "--format=csv,noheader"], capture_output=True, text=True)
    caps = proc.stdout.split()
    if proc.returncode != 0 or not caps:
        return None
    return "sm_" + caps[0].replace(".", "")


def device_inputs(feeds):
    """(inputs, kind): torch CUDA tensors when available, else the arrays."""
    try:
        import torch
        if torch.cuda.is_available():
            return ({k: torch.from_numpy(v).cuda() for k, v in feeds.items()},
                    "device tensors (torch)")
    except ImportError:
        pass
    return feeds, "numpy arrays (upload timed)"


def median_us(model, inputs, warmup, iters):
    for _ in range(warmup):
        model.run(inputs)
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        model.run(inputs)  # returns once the run is complete
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--runtime", help="path of libgraphc_runtime.so")
    parser.add_argument("--arch", help="default: the SM of GPU 0")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--iters", type=int, default=200)
    args = parser.parse_args()
    detected = gpu_arch()
    if detected is None:
        print("graph_replay: no NVIDIA GPU found (nvidia-smi lists none); "
              "this benchmark needs one")
        return 1
    args.arch = args.arch or detected
    args.target = "cuda"
    args.graphc = os.path.abspath(args.graphc)
    if args.runtime:
        os.environ["GRAPHC_RUNTIME_LIBRARY"] = os.path.abspath(args.runtime)
    import graphc

    print(f"{'model':<12} {'dims':<18} {'graph replay':>14} {'plain launches':>16} "
          f"{'speedup':>8}")
    with tempfile.TemporaryDirectory(prefix="graphc-bench-") as work_dir:
        kinds = set()
        for name, spec in models.MODELS.items():
            onnx_path = models.generate(name, work_dir)
            for dims in spec["buckets"]:
                so = models.compile_model(args, onnx_path, os.path.join(
                    work_dir, f"{name}_{'_'.join(map(str, dims.values()))}.so"), dims)
                inputs, kind = device_inputs(models.random_feeds(onnx_path, dims))
                kinds.add(kind)
                with graphc.load(so) as replay, \
                        graphc.load(so, cuda_graphs=False) as plain:
                    replay_us = median_us(replay, inputs, args.warmup, args.iters)
                    plain_us = median_us(plain, inputs, args.warmup, args.iters)
                print(f"{name:<12} {models.dims_text(dims):<18} {replay_us:>11.1f} us "
                      f"{plain_us:>13.1f} us {plain_us / replay_us:>7.2f}x")
    print(f"median of {args.iters} runs after {args.warmup} warm-up runs on "
          f"{args.arch}; inputs: {', '.join(sorted(kinds))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
