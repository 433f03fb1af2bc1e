"""Serving figures: throughput and p50/p99 latency of batch-1 requests from
1, 8 and 32 concurrent clients, for the cpu MLP and CNN (the small ResNet of
test/models), through Triton Inference Server (HTTP and gRPC, dynamic
batching onto graphc's batch buckets) with graphc's native backend
(libtriton_graphc.so) and with Triton's Python backend, against calling
graphc's Python package directly (one session per client thread), in one run
on one machine. Also the median of a direct graphc_session_run (`graphc run
--repeat`), which the native backend's time per execution at one client is
compared with.

    .venv-triton/bin/python bench/triton_serving.py --graphc build/bin/graphc
        [--seconds 5] [--clients 1,8,32] [--instances 2] [--out PREFIX]

PREFIX.json and PREFIX.md get the results (default: print only). The clients
run in this process (Python threads: the tritonclient calls and graphc's
ctypes calls release the GIL while they wait), on the same cores as the
server. `scripts/setup.sh --with-triton` makes .venv-triton.
"""
import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "triton"))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))

from triton_server import Server  # noqa: E402

BUCKETS = "batch=1,2,4,8,16,32"
MODELS = {
    # name: (generator, input, input shape of one request, output)
    "mlp": ("make_mlp.py", "x", (1, 784), "probs"),
    "cnn": ("make_resnet.py", "input", (1, 3, 32, 32), "logits"),
}
WARMUP_SECONDS = 1.0
BACKENDS = ("native", "python")


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"triton_serving: {' '.join(command)} failed:\n"
                 f"{result.stdout}{result.stderr}")
    return result.stdout


def measure(clients, seconds, make_call):
    """Runs `clients` threads, each calling its own make_call() in a loop for
    WARMUP_SECONDS and then `seconds`; returns (requests/s, p50 ms, p99 ms)
    over the measured part."""
    latencies = [[] for _ in range(clients)]
    errors = []
    start = threading.Barrier(clients + 1)
    window = {}

    def loop(index):
        try:
            call = make_call()
            start.wait()
            while time.monotonic() < window["end"]:
                began = time.monotonic()
                call()
                ended = time.monotonic()
                if began >= window["begin"] and ended <= window["end"]:
                    latencies[index].append(ended - began)
        except Exception as error:  # reported once all threads stop
            errors.append(error)

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    now = time.monotonic()
    window["begin"] = now + WARMUP_SECONDS
    window["end"] = window["begin"] + seconds
    start.wait()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    samples = np.concatenate([np.asarray(l) for l in latencies]) * 1e3
    return (len(samples) / seconds, float(np.percentile(samples, 50)),
            float(np.percentile(samples, 99)))


def direct_call(model, request):
    def make():
        session = model.session()
        return lambda: session.run(request)
    return make


def triton_call(server, protocol, name, input_name, request, output):
    module = httpclient if protocol == "http" else grpcclient

    def make():
        client = server.http() if protocol == "http" else server.grpc()
        tensor = module.InferInput(input_name, list(request.shape), "FP32")
        tensor.set_data_from_numpy(request)
        outputs = [module.InferRequestedOutput(output)]
        return lambda: client.infer(name, [tensor], outputs=outputs)
    return make


def server_counters(server, name):
    """(inferences, executions, ns queued, ns reading requests, ns running,
    ns writing responses) so far, as the backend reports them to Triton
    (compute input, infer and output). For the native backend, input is
    reading the requests and allocating the responses, infer the graphc run,
    output sending the responses; for the Python backend, the stub's round
    trip is in them too."""
    stats = server.http().get_inference_statistics(name)["model_stats"][0]
    # inference_stats add up per request (each request of a batch counts the
    # batch's execute time); batch_stats count each execution once.
    parts = [sum(int(b[part]["ns"]) for b in stats.get("batch_stats", []))
             for part in ("compute_input", "compute_infer", "compute_output")]
    return (int(stats["inference_count"]), int(stats["execution_count"]),
            int(stats["inference_stats"]["queue"]["ns"]), *parts)


def direct_c_median_ms(graphc_path, artifact, input_name, request, work):
    """The median latency of graphc_session_run on one request, as `graphc
    run --repeat` measures it (C, no Python)."""
    source = os.path.join(work, f"{os.path.basename(artifact)}.npy")
    np.save(source, request)
    output = run([graphc_path, "run", artifact, f"{input_name}={source}",
                  "--repeat", "2000"])
    found = re.search(r"median latency over \d+ runs: ([0-9.]+) ms", output)
    if found:
        return float(found.group(1))
    sys.exit(f"triton_serving: no median in graphc run's output:\n{output}")


def markdown(report):
    lines = [f"# Serving through Triton vs the Python package ({report['date']}, "
             f"{report['machine']})", "",
             f"Command: `{report['command']}`", "",
             f"Triton {report['triton_version']} (PyTriton {report['pytriton']}'s "
             f"tritonserver; graphc's native backend and Triton's Python backend), "
             f"{report['instances']} instances per model, "
             f"dynamic batching on `{BUCKETS}` (max queue delay "
             f"{report['max_queue_delay_us']} us). Every request is one sample; "
             f"{report['seconds']} s measured per row after {WARMUP_SECONDS:g} s of warm-up. "
             "Clients are Python threads on the same cores as the server. "
             "`direct`: each client thread runs its own graphc session through the "
             "Python package. Latencies are the clients' (request sent to response "
             "decoded). `direct C`: the median of `graphc run --repeat 2000` "
             "(graphc_session_run alone, one request). From Triton's statistics "
             "over the same window: `mean batch` (requests per model execution), "
             "`execute ms` (mean time in the backend per execution: reading the "
             "requests, the graphc run and the responses; for the Python backend "
             "also the round trip to its stub process), `of which run ms` (the part "
             "the backend reports as the run: the native backend's "
             "graphc_session_run_batch) and `queue ms` (mean wait per request).", "",
             "| model | path | clients | requests/s | p50 ms | p99 ms | mean batch "
             "| execute ms | of which run ms | queue ms |",
             "|---|---|---|---|---|---|---|---|---|---|"]

    def number(value, digits):
        return "" if value is None else f"{value:.{digits}f}"
    for row in report["rows"]:
        lines.append(f"| {row['model']} | {row['path']} | {row['clients']} | "
                     f"{row['requests_per_s']:.0f} | {row['p50_ms']:.3f} | "
                     f"{number(row['p99_ms'], 3)} | {number(row['mean_batch'], 2)} | "
                     f"{number(row['execute_ms'], 3)} | {number(row.get('run_ms'), 3)} | "
                     f"{number(row['queue_ms'], 3)} |")
    lines += ["", "Native backend at one client, execute per request against a direct "
              "graphc_session_run (C). Sending a response "
              "(TRITONBACKEND_ResponseSend) runs Triton's frontend completion on the "
              "backend's thread: for gRPC that includes serializing the response.", ""]
    for name, line in report["overhead"].items():
        lines.append(f"- {name}: {line}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphc", required=True)
    parser.add_argument("--model-python", default=os.path.join(ROOT, ".venv", "bin", "python"),
                        help="Python with onnx, for the model generators")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument("--max-queue-delay-us", type=int, default=100)
    parser.add_argument("--out", help="write PREFIX.json and PREFIX.md")
    args = parser.parse_args()
    clients = [int(c) for c in args.clients.split(",")]
    library = os.path.join(os.path.dirname(os.path.abspath(args.graphc)), "..", "lib",
                           "libgraphc_runtime.so")
    os.environ.setdefault("GRAPHC_RUNTIME_LIBRARY", os.path.abspath(library))
    import graphc

    work = tempfile.mkdtemp(prefix="graphc-triton-bench-")
    repository = os.path.join(work, "repository")
    artifacts = {}
    for name, (generator, _, _, _) in MODELS.items():
        onnx_path = os.path.join(work, f"{name}.onnx")
        run([args.model_python, os.path.join(ROOT, "test", "models", generator), onnx_path])
        artifacts[name] = os.path.join(work, f"{name}.so")
        run([args.graphc, "compile", onnx_path, "--target", "cpu", "--buckets", BUCKETS,
             "-o", artifacts[name], "--quiet"])
        for backend in BACKENDS:
            run([args.graphc, "triton", artifacts[name], "--repository", repository,
                 "--name", f"{name}-{backend}", "--backend", backend,
                 "--instances", str(args.instances),
                 "--max-queue-delay-us", str(args.max_queue_delay_us)])

    rng = np.random.default_rng(0)
    rows = []
    overhead = {}
    server = Server(repository, os.path.join(work, "tritonserver.log"))
    try:
        server.wait_ready()
        triton_version = server.http().get_server_metadata()["version"]
        for name, (_, input_name, shape, output) in MODELS.items():
            request = rng.standard_normal(shape).astype(np.float32)
            model = graphc.load(artifacts[name])
            direct_c = direct_c_median_ms(args.graphc, artifacts[name], input_name,
                                          request, work)
            rows.append(dict(model=name, path="direct C", clients=1,
                             requests_per_s=1e3 / direct_c, p50_ms=direct_c,
                             p99_ms=None, mean_batch=None,
                             execute_ms=None, queue_ms=None))
            print(f"{name:4} direct C       1 client : median {direct_c:.3f} ms",
                  flush=True)
            paths = {"direct": (None, lambda: direct_call(model, {input_name: request}))}
            for backend in BACKENDS:
                for protocol in ("http", "grpc"):
                    entry = f"{name}-{backend}"
                    paths[f"{backend} {protocol}"] = (entry, (
                        lambda p=protocol, e=entry: triton_call(
                            server, p, e, input_name, request, output)))
            for path, (entry, make) in paths.items():
                for count in clients:
                    before = server_counters(server, entry) if entry else (0,) * 6
                    rate, p50, p99 = measure(count, args.seconds, make())
                    after = server_counters(server, entry) if entry else (0,) * 6
                    inferences, executions, queued, read, ran, wrote = (
                        a - b for a, b in zip(after, before))
                    computed = read + ran + wrote
                    served = path != "direct" and executions > 0
                    row = dict(model=name, path=path, clients=count,
                               requests_per_s=rate, p50_ms=p50, p99_ms=p99,
                               mean_batch=inferences / executions if served else None,
                               execute_ms=computed / executions / 1e6 if served else None,
                               run_ms=ran / executions / 1e6 if served else None,
                               read_us=read / executions / 1e3 if served else None,
                               answer_us=wrote / executions / 1e3 if served else None,
                               queue_ms=queued / inferences / 1e6 if served else None)
                    rows.append(row)
                    if path.startswith("native") and count == 1 and served:
                        overhead[f"{name} over {path.split()[1]}"] = (
                            f"execute {row['execute_ms'] * 1e3:.0f} us per execution "
                            f"against {direct_c * 1e3:.0f} us for graphc run "
                            f"({(row['execute_ms'] - direct_c) * 1e3:+.0f} us): the "
                            f"run inside Triton {row['run_ms'] * 1e3:.0f} us, "
                            f"reading the request and allocating the response "
                            f"{row['read_us']:.0f} us, sending the response "
                            f"{row['answer_us']:.0f} us")
                    print(f"{name:4} {path:12} {count:3} clients: {rate:8.0f} req/s  "
                          f"p50 {p50:8.3f} ms  p99 {p99:8.3f} ms"
                          + ("" if row["mean_batch"] is None else
                             f"  mean batch {row['mean_batch']:.2f}  execute "
                             f"{row['execute_ms']:.3f} ms  queue {row['queue_ms']:.3f} ms"),
                          flush=True)
        status = server.stop()
        if status != 0:
            sys.exit(f"triton_serving: tritonserver exited with status {status}")
    finally:
        server.kill()

    report = dict(
        date=datetime.date.today().isoformat(),
        machine=f"{os.cpu_count()}-core {platform.machine()} VM, no GPU",
        command=".venv-triton/bin/python " + " ".join(sys.argv),
        triton_version=triton_version,
        pytriton=importlib.metadata.version("nvidia-pytriton"),
        instances=args.instances, max_queue_delay_us=args.max_queue_delay_us,
        seconds=args.seconds, rows=rows, overhead=overhead)
    if args.out:
        with open(args.out + ".json", "w") as f:
            json.dump(report, f, indent=1)
        with open(args.out + ".md", "w") as f:
            f.write(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
