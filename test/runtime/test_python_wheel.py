"""Installs runtime/python as a wheel into a fresh venv, offline, and runs a
model with it from outside the source tree, with no environment variables.

Usage: test_python_wheel.py SOURCE_DIR RUNTIME_LIBRARY MODEL_DIR
"""
import os
import subprocess
import sys
import sysconfig
import tempfile
import textwrap

SOURCE_DIR, RUNTIME_LIBRARY, MODEL_DIR = sys.argv[1:4]

CHECK = textwrap.dedent("""
    import os, sys
    import numpy as np
    import graphc
    package = os.path.dirname(graphc.__file__)
    assert package.startswith(sys.prefix), package
    assert os.path.isfile(os.path.join(package, "libgraphc_runtime.so"))
    model = graphc.load(sys.argv[1])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y, _ = model.run(x=x, bias=np.ones(3, np.float32))
    np.testing.assert_array_equal(np.from_dlpack(y), x * [2, 3, 4] + 1)
    print("installed graphc ran", os.path.basename(sys.argv[1]), "from", package)
""")


def run(command, **kwargs):
    proc = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)}\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def main():
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "GRAPHC_RUNTIME_LIBRARY")}
    with tempfile.TemporaryDirectory() as work:
        venv = os.path.join(work, "venv")
        run([sys.executable, "-m", "venv", "--without-pip", venv])
        python = os.path.join(venv, "bin", "python")
        # pip and numpy come from this interpreter's site-packages, which
        # pip then counts as installed: nothing is fetched.
        site = run([python, "-c", "import sysconfig; "
                    "print(sysconfig.get_paths()['purelib'])"]).strip()
        with open(os.path.join(site, "outer.pth"), "w") as f:
            f.write(sysconfig.get_paths()["purelib"] + "\n")
        package = os.path.join(SOURCE_DIR, "runtime", "python")
        run([python, "-m", "pip", "install", "--no-index",
             "--no-build-isolation", "--no-cache-dir", "--disable-pip-version-check",
             "-C", f"runtime-library={RUNTIME_LIBRARY}", package], env=env)
        if os.path.exists(os.path.join(package, "build")):
            sys.exit("FAILED: building the wheel left build/ in the source tree")
        script = os.path.join(work, "check.py")
        with open(script, "w") as f:
            f.write(CHECK)
        print(run([python, script, os.path.join(MODEL_DIR, "affine_model.so")],
                  env=env, cwd=work), end="")

        # Without a library to carry, the build stops with a one-line reason.
        proc = subprocess.run(
            [python, "-m", "pip", "install", "--no-index",
             "--no-build-isolation", "--no-cache-dir",
             "--disable-pip-version-check", "-C",
             "runtime-library=" + os.path.join(work, "nothing.so"), package],
            capture_output=True, text=True, env=env)
        if proc.returncode == 0 or "libgraphc_runtime.so not found at" not in (
                proc.stdout + proc.stderr):
            sys.exit("FAILED: a wheel without the runtime library was built\n"
                     + proc.stdout + proc.stderr)
    print("ok")


if __name__ == "__main__":
    main()
