"""Installs graphc into a temporary prefix and uses it the way a service
would, with nothing from the build tree:

  1. `cmake --install BUILD --prefix STAGE`, then the prefix is moved, so
     everything in it must be relocatable;
  2. the layout: bin/graphc, the versioned runtime library and its SONAME,
     the headers, the CMake package and graphc.pc; no file names the build
     tree;
  3. the installed graphc compiles the example MLP for the cpu target;
  4. a small C consumer (consumer/) is built against the prefix with
     find_package(graphc CONFIG) and, separately, with pkg-config;
  5. both consumers run the model; their outputs must match onnxruntime;
  6. without its kernel archive, the installed graphc names what is missing.

usage: test_install.py --build-dir DIR --source-dir DIR --cmake CMAKE
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnxruntime

BATCH = 3


def run(command, **kwargs):
    """Runs a command; on failure prints it with its output and exits 1."""
    proc = subprocess.run(command, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, **kwargs)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {' '.join(map(str, command))} exited "
                 f"{proc.returncode}:\n{proc.stdout}")
    return proc.stdout


def check(condition, message):
    if not condition:
        sys.exit(f"FAIL: {message}")


def dynamic_section(path):
    return run(["readelf", "-d", path])


def check_layout(prefix, build_dir, major, version):
    for relative in ["bin/graphc", "include/graphc/runtime.h",
                     "include/graphc/descriptor.h",
                     "include/graphc/dlpack/dlpack.h",
                     "lib/graphc/libHostKernels.a",
                     "lib/cmake/graphc/graphcConfig.cmake",
                     "lib/cmake/graphc/graphcConfigVersion.cmake",
                     "lib/pkgconfig/graphc.pc",
                     "share/graphc/python/graphc/__init__.py",
                     "share/graphc/python/graphc/triton.py",
                     "lib/libtriton_graphc.so",
                     f"lib/libgraphc_runtime.so.{version}"]:
        check(os.path.isfile(os.path.join(prefix, relative)),
              f"{relative} is not installed")
    lib = os.path.join(prefix, "lib")
    check(os.readlink(os.path.join(lib, f"libgraphc_runtime.so.{major}"))
          == f"libgraphc_runtime.so.{version}",
          f"libgraphc_runtime.so.{major} does not link to .so.{version}")
    check(os.readlink(os.path.join(lib, "libgraphc_runtime.so"))
          == f"libgraphc_runtime.so.{major}",
          f"libgraphc_runtime.so does not link to .so.{major}")
    soname = f"Library soname: [libgraphc_runtime.so.{major}]"
    check(soname in dynamic_section(os.path.join(lib, "libgraphc_runtime.so")),
          f"the runtime's SONAME is not libgraphc_runtime.so.{major}")
    # No installed file may point into the build tree (RUNPATH, the kernel
    # archive's path, package files).
    marker = os.path.realpath(build_dir).encode()
    for root, _, files in os.walk(prefix):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            with open(path, "rb") as f:
                check(marker not in f.read(),
                      f"{os.path.relpath(path, prefix)} names the build "
                      f"tree {marker.decode()}")


def build_with_cmake(cmake, source, work, prefix):
    build = os.path.join(work, "consumer-cmake")
    run([cmake, "-S", source, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}",
         "-DCMAKE_BUILD_TYPE=Release"])
    run([cmake, "--build", build])
    return os.path.join(build, "consumer")


def build_with_pkg_config(source, work, prefix):
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib",
                                                       "pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "graphc"], env=env).split()
    libdir = run(["pkg-config", "--variable=libdir", "graphc"], env=env).strip()
    check(os.path.realpath(libdir) == os.path.realpath(os.path.join(prefix, "lib")),
          f"graphc.pc gives libdir {libdir}, not the prefix's lib")
    compiler = os.environ.get("CC", "cc")
    output = os.path.join(work, "consumer-pkg-config")
    run([compiler, "-Wall", "-Wextra", "-Werror",
         os.path.join(source, "consumer.c"), *flags,
         f"-Wl,-rpath,{libdir}", "-o", output])
    return output


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--cmake", required=True)
    parser.add_argument("--version", required=True)
    args = parser.parse_args()
    major = args.version.split(".")[0]
    here = os.path.dirname(os.path.abspath(__file__))

    with tempfile.TemporaryDirectory(prefix="graphc-install-") as work:
        stage = os.path.join(work, "stage")
        run([args.cmake, "--install", args.build_dir, "--prefix", stage])
        prefix = os.path.join(work, "moved", "prefix")
        os.makedirs(os.path.dirname(prefix))
        shutil.move(stage, prefix)
        check_layout(prefix, args.build_dir, major, args.version)
        print(f"installed layout ok (prefix moved to {prefix})")

        graphc = os.path.join(prefix, "bin", "graphc")
        version = run([graphc, "--version"])
        check(version.startswith(f"graphc {args.version}\n"),
              f"graphc --version says:\n{version}")
        check("[libgraphc_runtime.so]" not in dynamic_section(graphc),
              "installed graphc needs the unversioned libgraphc_runtime.so")

        model = os.path.join(work, "mlp.onnx")
        run([sys.executable,
             os.path.join(args.source_dir, "examples", "make_example.py"),
             model])
        artifact = os.path.join(work, "mlp.so")
        # Nothing tells the installed graphc where the build tree is.
        run([graphc, "compile", model, "--target", "cpu", "--dim",
             f"batch={BATCH}", "-o", artifact], cwd=work)

        rng = np.random.default_rng(7)
        features = rng.standard_normal((BATCH, 64)).astype(np.float32)
        input_path = os.path.join(work, "features.bin")
        features.tofile(input_path)
        session = onnxruntime.InferenceSession(
            model, providers=["CPUExecutionProvider"])
        (expected,) = session.run(None, {"features": features})

        consumers = {
            "find_package": build_with_cmake(args.cmake,
                                             os.path.join(here, "consumer"),
                                             work, prefix),
            "pkg-config": build_with_pkg_config(os.path.join(here, "consumer"),
                                                work, prefix),
        }
        for how, consumer in consumers.items():
            check(f"Shared library: [libgraphc_runtime.so.{major}]"
                  in dynamic_section(consumer),
                  f"the {how} consumer does not record "
                  f"libgraphc_runtime.so.{major}")
            output_path = os.path.join(work, f"probabilities-{how}.bin")
            print(run([consumer, artifact, input_path, output_path],
                      cwd=work).strip())
            got = np.fromfile(output_path, dtype=np.float32)
            check(got.size == expected.size,
                  f"{how} consumer wrote {got.size} floats, expected "
                  f"{expected.size}")
            got = got.reshape(expected.shape)
            check(np.allclose(got, expected, rtol=1e-4, atol=1e-5),
                  f"{how} consumer's output differs from onnxruntime: max "
                  f"abs error {np.abs(got - expected).max()}")
            print(f"{how} consumer: output matches onnxruntime")

        # graphc triton's entry carries the installed package and runtime:
        # its graphc runs the model with nothing else on the path.
        repository = os.path.join(work, "repository")
        run([graphc, "triton", artifact, "--repository", repository,
             "--backend", "python"])
        entry = os.path.join(repository, "mlp", "1")
        with open(os.path.join(entry, "graphc", "libgraphc_runtime.so"), "rb") as f, \
                open(os.path.join(prefix, "lib", f"libgraphc_runtime.so.{args.version}"),
                     "rb") as g:
            check(f.read() == g.read(),
                  "the entry's runtime library is not the installed one")
        env = {k: v for k, v in os.environ.items()
               if k not in ("GRAPHC_RUNTIME_LIBRARY", "PYTHONPATH")}
        served = os.path.join(work, "served.npy")
        np.save(os.path.join(work, "features.npy"), features)
        run([sys.executable, "-c",
             "import sys, numpy as np; sys.path.insert(0, sys.argv[1]); "
             "import graphc; assert graphc.__file__.startswith(sys.argv[1]), graphc.__file__; "
             "m = graphc.load(sys.argv[1] + '/graphc_model.so'); "
             "np.save(sys.argv[3], m.run(np.load(sys.argv[2]))[0].numpy())",
             entry, os.path.join(work, "features.npy"), served], env=env)
        check(np.allclose(np.load(served), expected, rtol=1e-4, atol=1e-5),
              "the triton entry's package computes another output")
        print("graphc triton entry: its own package and runtime run the model")

        # The native entry (the default) carries the installed backend and
        # runtime, which the backend finds beside itself by its run path.
        native = os.path.join(work, "native-repository")
        run([graphc, "triton", artifact, "--repository", native])
        entry = os.path.join(native, "mlp", "1")
        for name, installed in (
                ("libtriton_graphc.so", "libtriton_graphc.so"),
                (f"libgraphc_runtime.so.{major}",
                 f"libgraphc_runtime.so.{args.version}")):
            with open(os.path.join(entry, name), "rb") as f, \
                    open(os.path.join(prefix, "lib", installed), "rb") as g:
                check(f.read() == g.read(),
                      f"the native entry's {name} is not the installed one")
        section = dynamic_section(os.path.join(entry, "libtriton_graphc.so"))
        check("Library runpath: [$ORIGIN]" in section,
              f"the backend's run path is not $ORIGIN alone:\n{section}")
        check(f"Shared library: [libgraphc_runtime.so.{major}]" in section,
              "the backend does not link the runtime by its SONAME")
        print("graphc triton native entry: the installed backend and runtime")

        # An incomplete install says what is missing instead of failing in
        # the linker.
        archive = os.path.join(prefix, "lib", "graphc", "libHostKernels.a")
        os.remove(archive)
        proc = subprocess.run([graphc, "compile", model, "--target", "cpu",
                               "--dim", f"batch={BATCH}", "-o",
                               os.path.join(work, "incomplete.so")],
                              capture_output=True, text=True)
        expected_error = (f"graphc: error: the cpu target's kernel library "
                          f"{os.path.realpath(archive)} is missing")
        check(proc.returncode == 1 and
              proc.stderr.startswith(expected_error),
              f"without libHostKernels.a graphc exited {proc.returncode} "
              f"with:\n{proc.stderr}")
        print("missing kernel archive: named in the error")
    print("PASS")


if __name__ == "__main__":
    main()
