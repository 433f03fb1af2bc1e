"""Runs a command with its stderr on a pseudo-terminal (stdout on a pipe) and
describes what the terminal saw, for FileCheck:

  exit: STATUS
  drawn: STAGE, STAGE, ...      (the stages of the progress lines, or "nothing")
  erased: yes|no                (the last thing drawn was erased)
  stderr after: TEXT            (one line per line stderr printed after that)
  stdout: TEXT                  (one line per line of stdout)

usage: progress_on_pty.py -- COMMAND ARGS..."""
import os
import pty
import re
import subprocess
import sys

command = sys.argv[sys.argv.index("--") + 1:]
controller, terminal = pty.openpty()
process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=terminal,
                           stdin=subprocess.DEVNULL)
os.close(terminal)
stderr = b""
while True:
    try:
        chunk = os.read(controller, 65536)
    except OSError:  # EIO: the last holder of the terminal closed it
        break
    if not chunk:
        break
    stderr += chunk
stdout = process.stdout.read()
process.wait()
os.close(controller)

text = stderr.decode("utf-8", "replace")
ERASE = "\r\x1b[K"
# Each draw is ERASE + "graphc: STAGE[, kernel k of n] (T.Ts)".
draws = re.findall(r"\r\x1b\[Kgraphc: ([a-z ]+?)(?:, kernel \d+ of \d+)? \(\d+\.\d+s\)", text)
stages = []
for stage in draws:
    if not stages or stages[-1] != stage:
        stages.append(stage)
print(f"exit: {process.returncode}")
print("drawn: " + (", ".join(stages) if stages else "nothing"))
last_erase = text.rfind(ERASE)
after = text[last_erase + len(ERASE):] if last_erase >= 0 else text
# What follows the last erase is the summary or the error, never a progress
# line (which would end with its elapsed time).
erased = bool(draws) and not re.match(r"graphc: [a-z ,0-9]+ \(\d+\.\d+s\)", after)
print("erased: " + ("yes" if erased else "no"))
# Colours (a terminal gets a coloured "error:") are not what is checked.
after = re.sub(r"\x1b\[[0-9;]*m", "", after)
for line in after.replace("\r\n", "\n").splitlines():
    print("stderr after: " + line)
for line in stdout.decode("utf-8", "replace").splitlines():
    print("stdout: " + line)
