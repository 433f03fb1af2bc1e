"""PyTorch's nn.LSTM, nn.GRU and nn.RNN (2 layers, bidirectional,
batch_first, with initial states) exported to ONNX, compiled by graphc and
compared with PyTorch and onnxruntime. Needs torch, so it is run by hand,
not by ctest:

    .venv-torch/bin/python test/e2e/recurrent_torch.py --graphc build/bin/graphc \
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


class Net(torch.nn.Module):
    def __init__(self, cell):
        super().__init__()
        kind = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}[cell]
        self.cell = cell
        self.rnn = kind(input_size=5, hidden_size=7, num_layers=2,
                        bidirectional=True, batch_first=True)

    def forward(self, x, h0, c0=None):
        if self.cell == "lstm":
            y, (h, c) = self.rnn(x, (h0, c0))
            return y, h, c
        y, h = self.rnn(x, h0)
        return y, h


def check(args, cell, dynamic_batch, work_dir):
    import graphc
    import onnxruntime as ort
    torch.manual_seed(0)
    net = Net(cell).eval()
    batch, steps = 3, 6
    x = torch.randn(batch, steps, 5)
    h0 = torch.randn(4, batch, 7)
    inputs = (x, h0) + ((torch.randn(4, batch, 7),) if cell == "lstm" else ())
    names = ["x", "h0", "c0"][:len(inputs)]
    outputs = ["y", "h", "c"][:3 if cell == "lstm" else 2]
    path = os.path.join(work_dir, f"{cell}.onnx")
    dynamic_axes = None
    if dynamic_batch:
        dynamic_axes = {"x": {0: "batch"}, "h0": {1: "batch"}, "c0": {1: "batch"},
                        "y": {0: "batch"}, "h": {1: "batch"}, "c": {1: "batch"}}
        dynamic_axes = {k: v for k, v in dynamic_axes.items() if k in names + outputs}
    torch.onnx.export(net, inputs, path, input_names=names, output_names=outputs,
                      opset_version=17, dynamic_axes=dynamic_axes, dynamo=False)
    import onnx
    if cell.upper() not in {n.op_type for n in onnx.load(path).graph.node}:
        return f"FAILED: the export has no {cell.upper()} node"
    so = os.path.join(work_dir, f"{cell}.so")
    command = [args.graphc, "compile", path, "-o", so, "--target", args.target]
    if dynamic_batch:
        command.append(f"--dim=batch={batch}")
    if args.cuda_emulation:
        command.append("--cuda-emulation")
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        return f"FAILED: graphc compile: {proc.stderr.strip()}"
    with torch.no_grad():
        want = [t.numpy() for t in net(*inputs)]
    feeds = {n: t.numpy() for n, t in zip(names, inputs)}
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    onnxruntime_out = session.run(None, feeds)
    with graphc.load(so) as model:
        got = [t.numpy() for t in model.run(feeds)]
    lines, ok = [], True
    for name, g, w, o in zip(outputs, got, want, onnxruntime_out):
        torch_error = float(np.max(np.abs(g.astype(np.float64) - w)))
        ort_error = float(np.max(np.abs(g.astype(np.float64) - o)))
        good = g.shape == w.shape and np.allclose(g, w, rtol=RTOL, atol=ATOL) and \
            np.allclose(g, o, rtol=RTOL, atol=ATOL)
        ok &= good
        lines.append(f"{name} {list(g.shape)} vs torch {torch_error:.3g}, "
                     f"vs onnxruntime {ort_error:.3g}")
    return ("ok: " if ok else "FAILED: ") + "; ".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--runtime")
    parser.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--cuda-emulation", metavar="DRIVER")
    args = parser.parse_args()
    args.graphc = os.path.abspath(args.graphc)
    if args.runtime:
        os.environ["GRAPHC_RUNTIME_LIBRARY"] = os.path.abspath(args.runtime)
    if args.cuda_emulation:
        for variable in ("GRAPHC_CUDA_DRIVER_LIBRARY", "GRAPHC_CUBLASLT_LIBRARY",
                         "GRAPHC_CUDNN_LIBRARY"):
            os.environ[variable] = os.path.abspath(args.cuda_emulation)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="graphc-recurrent-torch-") as work_dir:
        for cell in ("lstm", "gru", "rnn"):
            for dynamic_batch in (False, True):
                result = check(args, cell, dynamic_batch, work_dir)
                failed += result.startswith("FAILED")
                print(f"{cell}{' dynamic batch' if dynamic_batch else ''}: {result}",
                      flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
