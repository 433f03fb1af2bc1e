"""graphc models served by Triton Inference Server, end to end, on loopback.

Compiles two cpu models (an MLP with batch buckets; a CNN with batch
buckets and exact image sizes), writes a repository with `graphc triton
--backend BACKEND` (native: libtriton_graphc.so; python: Triton's Python
backend), starts tritonserver (scripts/tritonserver.sh) on 127.0.0.1,
polling the repository, and checks over HTTP and gRPC:
  - single requests match `graphc run` on the same inputs;
  - 8 concurrent clients x 50 requests each match too, and the server's
    statistics show dynamic batching formed batches larger than one;
  - a wrong dtype, name or fixed dim gets Triton's error, a size the model
    was not compiled for gets graphc's message, and the server stays ready;
  - native: the server reloads a model whose entry `graphc triton --force`
    replaced (a new batch size is served), unloads one whose entry is
    removed and loads it again when it comes back;
  - SIGTERM shuts the server down cleanly (exit status 0) and leaves no
    process of its session running.

With --preload (the ASan runtime, for a sanitized backend and runtime) the
server runs with it preloaded, and with the entries' backend libraries too,
so that Triton's unloading them at exit leaves their code mapped: ASan then
checks the backend's and the runtime's memory accesses and, at the server's
exit, their leaks, with symbolized stacks (the entry written during the
reload check is not preloaded).

usage: test_triton.py --graphc GRAPHC --model-python PYTHON --workdir DIR
                      [--backend native|python] [--preload LIB]
                      [--server-env NAME=VALUE ...]
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

    def __init__(self, graphc, python, workdir, backend):
        self.graphc = graphc
        self.workdir = workdir
        self.backend = backend
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
        self.write_entry("mlp.so")
        run([graphc, "triton", self.path("cnn.so"), "--repository",
             self.repository, "--instances", "2", "--backend", backend])

    def write_entry(self, artifact, *options):
        # A long queue delay so that concurrent requests reliably meet.
        run([self.graphc, "triton", self.path(artifact), "--repository",
             self.repository, "--name", "mlp", "--max-queue-delay-us", "5000",
             "--backend", self.backend, *options])

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


def wait_for(condition, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return True
        except Exception:
            pass
        time.sleep(0.25)
    return False


def reload(server, models, rng):
    """The repository is polled: a replaced entry reloads, a removed one
    unloads, and one put back loads again."""
    client = server.http()
    x = rng.standard_normal((16, MLP_FEATURES)).astype(np.float32)
    expect_error("before the reload: a batch of 16 is past max_batch_size 8",
                 lambda: infer("http", client, "mlp", "x", x, "probs"), "<= 8")
    run([models.graphc, "compile", models.path("mlp.onnx"), "--target", "cpu",
         "--buckets", "batch=1,2,4,8,16", "-o", models.path("mlp16.so"),
         "--quiet"])
    expected = models.reference("mlp16", "x", x, "probs")
    models.write_entry("mlp16.so", "--force")

    def serves_16():
        return np.allclose(infer("http", client, "mlp", "x", x, "probs"),
                           expected, **TOLERANCE)
    check(wait_for(serves_16),
          "reload: the replaced entry (batch buckets up to 16) is served")
    subprocess.run(["rm", "-rf", os.path.join(models.repository, "mlp")],
                   check=True)
    check(wait_for(lambda: not client.is_model_ready("mlp")),
          "unload: the removed entry's model is no longer ready")
    models.write_entry("mlp16.so")
    check(wait_for(serves_16), "load: the entry put back is served again")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--model-python", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--backend", choices=("native", "python"),
                        default="native")
    parser.add_argument("--preload", default="",
                        help="a library the server preloads (the ASan runtime)")
    parser.add_argument("--server-env", action="append", default=[],
                        metavar="NAME=VALUE",
                        help="set in the server's environment only (ASan's "
                             "leak check for the server, not for graphc)")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    for name in os.listdir(args.workdir):
        subprocess.run(["rm", "-rf", os.path.join(args.workdir, name)], check=True)

    models = Models(args.graphc, args.model_python, args.workdir, args.backend)
    environment = {}
    if args.preload:
        backends = [os.path.join(models.repository, name, "1",
                                 "libtriton_graphc.so") for name in ("mlp", "cnn")]
        environment["GRAPHC_TRITONSERVER_PRELOAD"] = ":".join(
            [args.preload] + [b for b in backends if os.path.exists(b)])
    for setting in args.server_env:
        name, _, value = setting.partition("=")
        environment[name] = value
    server = Server(models.repository, models.path("tritonserver.log"),
                    environment=environment,
                    options=["--model-control-mode", "poll",
                             "--repository-poll-secs", "1"])
    try:
        server.wait_ready()
        rng = np.random.default_rng(0)
        single_requests(server, models, rng)
        concurrent_clients(server, models, rng, "http")
        concurrent_clients(server, models, rng, "grpc")
        batching_statistics(server)
        errors(server)
        if args.backend == "native":
            reload(server, models, rng)
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
