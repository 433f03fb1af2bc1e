"""Starts `graphc compile` with a host compiler that hangs, sends it SIGNAL
once the compiler has started, and checks that graphc died of that signal
and left nothing in TMPDIR (its temporary build directory is removed).

usage: interrupt_compile.py GRAPHC SIGNAL TMPDIR -- COMPILE-ARGS..."""
import os
import signal
import subprocess
import sys
import time

graphc, signame, tmpdir = sys.argv[1:4]
args = sys.argv[sys.argv.index("--") + 1:]
os.makedirs(tmpdir, exist_ok=True)
mark = os.path.abspath(tmpdir) + ".compiler-started"
hang = os.path.abspath(tmpdir) + ".hanging-cxx.sh"
with open(hang, "w") as script:
    script.write(f"#!/bin/sh\ntouch '{mark}'\nexec sleep 60\n")
os.chmod(hang, 0o755)
env = dict(os.environ, TMPDIR=tmpdir, GRAPHC_CXX=hang)
# The test runner may ignore SIGINT, and children inherit that: restore the
# default so that graphc sees the signal as a user's shell would deliver it.
process = subprocess.Popen([graphc, "compile", *args], env=env,
                           start_new_session=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
deadline = time.time() + 120
while not os.path.exists(mark):
    if process.poll() is not None or time.time() > deadline:
        sys.exit(f"the compiler never started (graphc exit {process.returncode})")
    time.sleep(0.05)
if not os.listdir(tmpdir):
    sys.exit("no temporary build directory while compiling")
sig = getattr(signal, signame)
process.send_signal(sig)
returncode = process.wait(timeout=60)
os.killpg(process.pid, signal.SIGKILL)  # the hanging compiler, if still there
left = os.listdir(tmpdir)
print(f"graphc exit {returncode}, left in TMPDIR: {left}")
sys.exit(0 if returncode == -sig and not left else 1)
