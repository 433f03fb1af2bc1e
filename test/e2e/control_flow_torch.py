"""PyTorch control flow exported to ONNX, compiled by graphc and compared with
PyTorch and onnxruntime: torch.cond on a data-dependent predicate (the
dynamo exporter writes an If whose condition is known only at run time),
a scripted `for` loop over a tensor's rows (the TorchScript exporter
writes a Loop whose trip count comes from the input's shape), a scripted
`for` loop over range(int(n)) of an input n and a scripted `while` on a
data-dependent condition (Loops graphc runs as loops). Needs torch, so it
is run by hand, not by ctest:

    .venv-torch/bin/python test/e2e/control_flow_torch.py --graphc build/bin/graphc \
        --runtime build/lib/libgraphc_runtime.so [--target cuda --cuda-emulation DRIVER]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))

RTOL = 1e-5
ATOL = 1e-5


class Cond(torch.nn.Module):
    def forward(self, x):
        def positive(x):
            return (x.sin() + 1,)

        def negative(x):
            return (x.cos() - 1,)

        return torch.cond(x.sum() > 0, positive, negative, (x,))[0]


class RowLoop(torch.nn.Module):
    def forward(self, x):
        s = torch.zeros_like(x[0])
        for i in range(x.shape[0]):
            s = s * 0.5 + x[i]
        return s


class CountLoop(torch.nn.Module):
    """`for _ in range(int(n))`: a trip count the run decides (a Loop graphc
    runs as a loop)."""

    def forward(self, x, n):
        s = x
        for _ in range(int(n)):
            s = torch.tanh(s * 0.9 + x)
        return s


class WhileLoop(torch.nn.Module):
    """`while s.abs().sum() < limit`: a condition the run decides."""

    def forward(self, x, limit):
        s = x
        while bool(s.abs().sum() < limit):
            s = s * 1.5 + 0.1
        return s


def export(name, path):
    x = torch.randn(4, 5)
    if name == "cond":
        torch.onnx.export(Cond(), (x,), path, dynamo=True, opset_version=18)
        return Cond()
    if name == "count_loop":
        torch.onnx.export(torch.jit.script(CountLoop()),
                          (x, torch.tensor(3, dtype=torch.int64)), path,
                          dynamo=False, opset_version=17)
        return CountLoop()
    if name == "while_loop":
        torch.onnx.export(torch.jit.script(WhileLoop()),
                          (x, torch.tensor(50.0)), path, dynamo=False,
                          opset_version=17)
        return WhileLoop()
    torch.onnx.export(torch.jit.script(RowLoop()), (x,), path, dynamo=False,
                      opset_version=17)
    return RowLoop()


def feeds(name, seed):
    """The inputs of run `seed`, in the module's argument order."""
    x = np.random.default_rng(seed).standard_normal((4, 5)).astype(np.float32)
    if name == "count_loop":
        return [x, np.array(seed * 2, np.int64)]  # 0, 2, ... 10 iterations
    if name == "while_loop":
        return [x, np.array(20.0 * (seed + 1), np.float32)]
    # Both signs of the predicate.
    return [x if seed % 2 else -np.abs(x)]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--runtime", required=True)
    parser.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--cuda-emulation", metavar="DRIVER")
    args = parser.parse_args()
    os.environ["GRAPHC_RUNTIME_LIBRARY"] = os.path.abspath(args.runtime)
    if args.cuda_emulation:
        for variable in ("GRAPHC_CUDA_DRIVER_LIBRARY", "GRAPHC_CUBLASLT_LIBRARY",
                         "GRAPHC_CUDNN_LIBRARY"):
            os.environ[variable] = os.path.abspath(args.cuda_emulation)
    import graphc
    import onnx
    import onnxruntime as ort

    failed = 0
    with tempfile.TemporaryDirectory(prefix="graphc-control-flow-torch-") as work:
        for name in ("cond", "row_loop", "count_loop", "while_loop"):
            path = os.path.join(work, f"{name}.onnx")
            module = export(name, path)
            ops = [node.op_type for node in onnx.load(path).graph.node]
            so = os.path.join(work, f"{name}.so")
            command = [args.graphc, "compile", path, "-o", so, "--target", args.target]
            if args.cuda_emulation:
                command.append("--cuda-emulation")
            proc = subprocess.run(command, capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"FAILED: {name}: {proc.stderr.strip()}")
                failed += 1
                continue
            session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            worst = 0.0
            with graphc.load(so) as compiled:
                for seed in range(6):
                    values = feeds(name, seed)
                    want = module(*[torch.from_numpy(v) for v in values]).numpy()
                    names = [i.name for i in session.get_inputs()]
                    reference = session.run(None, dict(zip(names, values)))[0]
                    got = compiled.run(
                        {i.name: v for i, v in zip(compiled.inputs, values)})[0].numpy()
                    for other in (want, reference):
                        worst = max(worst, float(np.max(np.abs(got - other))))
                        if not np.allclose(got, other, rtol=RTOL, atol=ATOL):
                            print(f"FAILED: {name} (seed {seed}): max |error| "
                                  f"{float(np.max(np.abs(got - other))):.3g}")
                            failed += 1
                            break
            print(f"ok: {name} ({', '.join(sorted(set(ops)))}): max |error| "
                  f"{worst:.3g} against torch and onnxruntime")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
