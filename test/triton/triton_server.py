"""Starts and stops tritonserver (scripts/tritonserver.sh) on loopback ports
for the serving test and benchmark; the server and its Python backend stubs
run in a session of their own, so that nothing outlives stop()/kill()."""
import os
import signal
import socket
import subprocess
import sys
import time

import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
READY_SECONDS = 120


def free_ports(count):
    sockets = []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        sockets.append(s)
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


class Server:
    def __init__(self, repository, log_path, environment=None, options=()):
        self.http_port, self.grpc_port, self.metrics_port = free_ports(3)
        self.log = open(log_path, "w")
        self.log_path = log_path
        # Its own session: the server and its Python stubs form one group.
        self.process = subprocess.Popen(
            ["bash", os.path.join(ROOT, "scripts", "tritonserver.sh"),
             repository, "--http-port", str(self.http_port),
             "--grpc-port", str(self.grpc_port),
             "--metrics-port", str(self.metrics_port), "--exit-timeout-secs", "20",
             *options],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, **(environment or {})})
        self.group = self.process.pid
        # Closed before the shutdown: Triton waits for open HTTP connections.
        self.clients = []

    def http(self):
        client = httpclient.InferenceServerClient(f"127.0.0.1:{self.http_port}")
        self.clients.append(client)
        return client

    def grpc(self):
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{self.grpc_port}")
        self.clients.append(client)
        return client

    def log_tail(self):
        self.log.flush()
        with open(self.log_path) as f:
            return "".join(f.readlines()[-40:])

    def wait_ready(self):
        deadline = time.monotonic() + READY_SECONDS
        client = self.http()
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"tritonserver exited with status "
                         f"{self.process.returncode} while starting:\n{self.log_tail()}")
            try:
                if client.is_server_ready():
                    return
            except Exception:
                pass
            time.sleep(0.25)
        sys.exit(f"tritonserver not ready after {READY_SECONDS} s:\n"
                 f"{self.log_tail()}")

    def group_alive(self):
        try:
            os.killpg(self.group, 0)
        except ProcessLookupError:
            return False
        return True

    def stop(self):
        """SIGTERM, then the exit status; None if it had to be killed."""
        for client in self.clients:
            client.close()
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            status = None
        # The stubs exit after the server; give them a moment.
        deadline = time.monotonic() + 10
        while self.group_alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        return status

    def kill(self):
        if self.group_alive():
            os.killpg(self.group, signal.SIGKILL)
        self.process.wait()
        self.log.close()
