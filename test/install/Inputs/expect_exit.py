"""expect_exit.py STATUS COMMAND...: runs COMMAND with its stdout and stderr
passed through; exits 0 when it exited with exactly STATUS, else 1."""
import subprocess
import sys

expected = int(sys.argv[1])
status = subprocess.run(sys.argv[2:]).returncode
if status != expected:
    print(f"expect_exit: {sys.argv[2]} exited {status}, expected {expected}",
          file=sys.stderr)
    sys.exit(1)
