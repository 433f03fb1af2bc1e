"""Starts `graphc compile` with a host compiler that hangs, sends it SIGNAL
once the compiler has started, and checks that graphc died of that signal,
that the compiler and the process it started (which keeps writing into its
$TMPDIR, as a compiler's back end would) are gone, and that nothing is left
in TMPDIR (its temporary build directory is removed).

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
pids = os.path.abspath(tmpdir) + ".compiler-pids"
with open(hang, "w") as script:
    # --version answers at once (graphc keys its cache with it); a compile
    # starts a writer into $TMPDIR and waits for it.
    script.write(f"""#!/bin/sh
if [ "$1" = --version ]; then echo hanging-cxx 1; exit 0; fi
(while :; do date >> "$TMPDIR/cc-temp.s"; sleep 0.05; done) &
echo $$ $! > '{pids}.tmp' && mv '{pids}.tmp' '{pids}'
touch '{mark}'
wait
""")
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


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie not yet reaped by init is dead too.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


with open(pids) as f:
    running = [pid for pid in map(int, f.read().split()) if alive(pid)]
for pid in running:  # clean up before failing
    os.kill(pid, signal.SIGKILL)
time.sleep(0.2)  # a writer still running would show itself now
left = os.listdir(tmpdir)
print(f"graphc exit {returncode}, compiler processes left: {running}, "
      f"left in TMPDIR: {left}")
sys.exit(0 if returncode == -sig and not left and not running else 1)
