"""graphc models served by Triton Inference Server, end to end, on loopback.

Compiles two cpu models (an MLP with batch buckets; a CNN with batch
buckets and exact image sizes), writes a repository with `graphc triton`,
starts tritonserver (scripts/tritonserver.sh) on 127.0.0.1 and checks over
HTTP and gRPC:
  - single requests match `graphc run` on the same inputs;
  - 8 concurrent clients x 50 requests each match too, and the server's
    statistics show dynamic batching formed batches larger than one;
  - a wrong dtype, name or fixed dim gets Triton's error, a size the model
    was not compiled for gets graphc's message, and the server stays ready;
  - SIGTERM shuts the server down cleanly (exit status 0) and leaves no
    process of its session running.

usage: test_triton.py --graphc GRAPHC --model-python PYTHON --workdir DIR
Runs in the Triton venv (tritonclient); PYTHON has onnx for the generators.
"""
import argparse
import os
import subprocess
import sys
import threading
import time

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from triton_server import Server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLIENTS = 8
REQUESTS_PER_CLIENT = 50
MLP_FEATURES = 784
TOLERANCE = dict(rtol=1e-5, atol=1e-6)

failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what, flush=True)
    if not condition:
        failures.append(what)


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"test_triton: {' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    return result.stdout


class Models:
    """The compiled models and their `graphc run` references."""

    def __init__(self, graphc, python, workdir):
        self.graphc = graphc
        self.workdir = workdir
        models = os.path.join(ROOT, "test", "models")
        for name in ("mlp", "cnn"):
            run([python, os.path.join(models, f"make_{name}.py"),
                 os.path.join(workdir, f"{name}.onnx")])
        run([graphc, "compile", self.path("mlp.onnx"), "--target", "cpu",
             "--buckets", "batch=1,2,4,8", "-o", self.path("mlp.so"), "--quiet"])
        run([graphc, "compile", self.path("cnn.onnx"), "--target", "cpu",
             "--buckets", "batch=1,2,4,8", "--buckets", "size=16,32",
             "-o", self.path("cnn.so"), "--quiet"])
        self.repository = self.path("repository")
        # A long queue delay so that concurrent requests reliably meet.
        run([graphc, "triton", self.path("mlp.so"), "--repository",
             self.repository, "--max-queue-delay-us", "5000"])
        run([graphc, "triton", self.path("cnn.so"), "--repository",
             self.repository, "--instances", "2"])

    def path(self, name):
        return os.path.join(self.workdir, name)

    def reference(self, model, input_name, array, output_name):
        """What `graphc run` computes for one input."""
        tag = f"{model}-{len(os.listdir(self.workdir))}"
        source = self.path(f"{tag}.npy")
        np.save(source, array)
        out = self.path(f"{tag}-out")
        run([self.graphc, "run", self.path(f"{model}.so"), "--input",
             f"{input_name}={source}", "--output-dir", out])
        return np.load(os.path.join(out, f"{output_name}.npy"))


def infer(protocol, client, model, name, array, output, datatype="FP32"):
    module = httpclient if protocol == "http" else grpcclient
    tensor = module.InferInput(name, list(array.shape), datatype)
    tensor.set_data_from_numpy(array)
    result = client.infer(model, [tensor],
                          outputs=[module.InferRequestedOutput(output)])
    return result.as_numpy(output)


def single_requests(server, models, rng):
    x = rng.standard_normal((3, MLP_FEATURES)).astype(np.float32)
    expected_mlp = models.reference("mlp", "x", x, "probs")
    images = {size: rng.standard_normal((2, 3, size, size)).astype(np.float32)
              for size in (16, 32)}
    expected_cnn = {size: models.reference("cnn", "image", image, "logits")
                    for size, image in images.items()}
    for protocol, client in (("http", server.http()), ("grpc", server.grpc())):
        got = infer(protocol, client, "mlp", "x", x, "probs")
        check(got.shape == (3, 10) and np.allclose(got, expected_mlp, **TOLERANCE),
              f"{protocol}: mlp, batch 3 (padded to 4), matches graphc run")
        for size, image in images.items():
            got = infer(protocol, client, "cnn", "image", image, "logits")
            check(got.shape == (2, 10) and
                  np.allclose(got, expected_cnn[size], **TOLERANCE),
                  f"{protocol}: cnn, batch 2 at {size}x{size}, matches graphc run")


def concurrent_clients(server, models, rng, protocol):
    total = CLIENTS * REQUESTS_PER_CLIENT
    rows = rng.standard_normal((total, MLP_FEATURES)).astype(np.float32)
    # One graphc run over all rows (the runtime splits it into batches of 8).
    expected = models.reference("mlp", "x", rows, "probs")
    results = [None] * total
    errors = []

    def client_loop(index):
        try:
            client = server.http() if protocol == "http" else server.grpc()
            for r in range(REQUESTS_PER_CLIENT):
                row = index * REQUESTS_PER_CLIENT + r
                results[row] = infer(protocol, client, "mlp", "x",
                                     rows[row:row + 1], "probs")[0]
        except Exception as error:  # reported below, with the client
            errors.append(f"client {index}: {error}")

    threads = [threading.Thread(target=client_loop, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    check(not errors and not any(t.is_alive() for t in threads),
          f"{protocol}: {CLIENTS} clients x {REQUESTS_PER_CLIENT} requests "
          f"completed{': ' + errors[0] if errors else ''}")
    got = np.stack([r if r is not None else np.full(10, np.nan, np.float32)
                    for r in results])
    mismatched = int(np.sum(~np.all(np.isclose(got, expected, **TOLERANCE), axis=1)))
    check(mismatched == 0, f"{protocol}: all {total} concurrent responses match "
          f"graphc run ({mismatched} differ)")


def batching_statistics(server):
    stats = server.http().get_inference_statistics("mlp")["model_stats"][0]
    sizes = {int(b["batch_size"]): int(b["compute_infer"]["count"])
             for b in stats.get("batch_stats", [])}
    inferences = int(stats["inference_count"])
    executions = int(stats["execution_count"])
    print(f"      mlp: {inferences} inferences in {executions} executions; "
          f"executions by batch size: {dict(sorted(sizes.items()))}")
    check(any(size > 1 for size in sizes) and executions < inferences,
          "dynamic batching formed batches of several requests")
    check(max(sizes) <= 8, "no batch exceeds max_batch_size (the largest bucket)")


def expect_error(what, call, *fragments):
    try:
        call()
    except InferenceServerException as error:
        message = str(error)
        check(all(f in message for f in fragments),
              f"{what}: {message.strip()[:160]}")
        return
    check(False, f"{what}: the request succeeded")


def errors(server):
    image = np.zeros((1, 3, 20, 20), np.float32)
    x = np.zeros((1, MLP_FEATURES), np.float32)
    for protocol, client in (("http", server.http()), ("grpc", server.grpc())):
        expect_error(f"{protocol}: wrong dtype",
                     lambda: infer(protocol, client, "mlp", "x", x.astype(np.int32),
                                   "probs", datatype="INT32"),
                     "INT32", "FP32")
        expect_error(f"{protocol}: wrong input name",
                     lambda: infer(protocol, client, "mlp", "features", x, "probs"),
                     "features")
        expect_error(f"{protocol}: wrong fixed dim",
                     lambda: infer(protocol, client, "mlp", "x",
                                   np.zeros((1, 100), np.float32), "probs"),
                     "100")
        expect_error(f"{protocol}: an image size graphc was not compiled for",
                     lambda: infer(protocol, client, "cnn", "image", image, "logits"),
                     "graphc: input 'image' dim 2 ('size') is 20",
                     "'size' = 16, 32 only")
    check(server.http().is_server_ready() and server.http().is_model_ready("cnn"),
          "the server and the models stay ready after the errors")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--model-python", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    for name in os.listdir(args.workdir):
        subprocess.run(["rm", "-rf", os.path.join(args.workdir, name)], check=True)

    models = Models(args.graphc, args.model_python, args.workdir)
    server = Server(models.repository, models.path("tritonserver.log"))
    try:
        server.wait_ready()
        rng = np.random.default_rng(0)
        single_requests(server, models, rng)
        concurrent_clients(server, models, rng, "http")
        concurrent_clients(server, models, rng, "grpc")
        batching_statistics(server)
        errors(server)
        status = server.stop()
        check(status == 0, f"SIGTERM: tritonserver exits with status {status}")
        check(not server.group_alive(), "no process of the server's session is left")
    finally:
        server.kill()
    if failures:
        print(f"test_triton: {len(failures)} checks failed; the server log is "
              f"{server.log_path}", file=sys.stderr)
        sys.exit(1)
    print("test_triton: all checks passed")


if __name__ == "__main__":
    main()
