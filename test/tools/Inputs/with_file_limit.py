"""Runs a command with RLIMIT_FSIZE set to BYTES and SIGXFSZ ignored, so
that a write past BYTES in any one file fails with EFBIG, as on a full disk
(no root needed, unlike a small mounted filesystem).

usage: with_file_limit.py BYTES -- COMMAND ARGS..."""
import os
import resource
import signal
import sys

limit = int(sys.argv[1])
command = sys.argv[sys.argv.index("--") + 1:]
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
# An ignored signal stays ignored across exec.
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
os.execvp(command[0], command)
