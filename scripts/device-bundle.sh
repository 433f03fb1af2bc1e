#!/usr/bin/env bash
# Writes the GPU device bundle to OUTDIR (at most 60 MiB): everything a GPU
# machine without MLIR, protobuf or a package registry needs to test graphc
# and benchmark it, run there with one command, OUTDIR/run.sh:
#   bin/graphc                 the static build (scripts/build-static.sh)
#   lib/, include/             libgraphc_runtime.so, the cpu kernel archive
#                              (lib/graphc) and the C headers
#   runtime/python/            the Python package, as in the repository
#   gtest/                     the runtime's gtests, their test models and
#                              the fake CUDA driver; triton/: the Triton
#                              backend's test (its BackendGpu cases)
#   test/conformance/          the conformance scripts and lists, node/ the
#                              ONNX node tests of cuda_emitting.txt (from the
#                              venv's onnx) with their expected outputs
#   test/e2e, test/models      the model-test scripts (graph_replay imports them)
#   models/                    the model tests' .onnx, inputs and onnxruntime
#                              outputs (scripts/device/make_model_refs.py)
#   bench/, scripts/           the benchmark and the stage scripts
#   run.sh, BUNDLE.txt         the entry point; commit, date and sizes
#
#   scripts/device-bundle.sh OUTDIR      (builds build-static/ first: -j2)
# Give OUTDIR to the device as a carried path and run `bash OUTDIR/run.sh`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -ne 1 ]]; then
  echo "usage: scripts/device-bundle.sh OUTDIR" >&2
  exit 2
fi
out=$1
python="${GRAPHC_PYTHON:-$root/.venv/bin/python}"
build="${GRAPHC_STATIC_BUILD_DIR:-$root/build-static}"
limit=$((60 * 1024 * 1024))

if [[ -e $out && ! -f $out/BUNDLE.txt && -n "$(ls -A "$out")" ]]; then
  echo "device-bundle: $out exists and is not a bundle; not overwriting it" >&2
  exit 1
fi

GRAPHC_STATIC_BUILD_DIR="$build" bash "$root/scripts/build-static.sh" -j2

rm -rf "$out"
mkdir -p "$out"/{bin,lib,include,runtime,gtest/bin,gtest/lib,gtest/triton,test/conformance/node,test/e2e,test/models,test/runtime,test/triton,bench,scripts}

install -m 755 "$build/bin/graphc" "$out/bin/"
install -m 755 "$build/lib/libgraphc_runtime.so" "$out/lib/"
# graphc links cpu models with the kernel archive it finds at ../lib/graphc.
install -D -m 644 "$build/lib/graphc/libHostKernels.a" "$out/lib/graphc/libHostKernels.a"
# graphc triton copies the Python package from share/graphc.
mkdir -p "$out/share/graphc/python"
cp -r "$build/share/graphc/python/graphc" "$out/share/graphc/python/"
cp -r "$root/runtime/include/graphc" "$out/include/"
cp -r "$root/runtime/python" "$out/runtime/"
find "$out/runtime" -name __pycache__ -prune -exec rm -rf {} +

# The gtests find their models and the fake driver through
# GRAPHC_TEST_MODEL_DIR and GRAPHC_TEST_FAKE_CUDA_LIBRARY, which run.sh sets.
models_dir="$build/test/runtime/models"
fake_cuda="$build/test/runtime/libgraphc_fake_cuda.so"
for test in runtime-test cuda-fake-driver-test library-steps-test; do
  install -m 755 "$build/bin/$test" "$out/gtest/bin/"
done
cp -r "$models_dir" "$out/gtest/models"
install -m 755 "$fake_cuda" "$out/gtest/lib/"
cp "$root/test/runtime/test_python.py" "$out/test/runtime/"
# The Triton backend's test: run.sh runs its BackendGpu cases (--real-cuda),
# which compile make_backend_models.py's model with the bundle's graphc.
install -m 755 "$build/bin/triton-backend-test" "$out/gtest/triton/"
cp "$root/test/triton/make_backend_models.py" "$out/test/triton/"

conformance="$root/test/conformance"
cp "$conformance"/{node_tests.py,run_node_tests.py,cuda_emitting.txt,cpu_passing.txt} \
  "$out/test/conformance/"
node_root=$("$python" -c 'import os, onnx; print(os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node"))')
while read -r name; do
  [[ -z $name || $name == \#* ]] && continue
  if [[ ! -f $node_root/$name/model.onnx ]]; then
    echo "device-bundle: node test $name of cuda_emitting.txt is not in $node_root" >&2
    exit 1
  fi
  cp -r "$node_root/$name" "$out/test/conformance/node/"
done <"$conformance/cuda_emitting.txt"

cp "$root/test/e2e/run_model_tests.py" "$root/test/e2e/control_flow_tests.py" \
  "$root/test/e2e/quantized_tests.py" "$root/test/e2e/e2e_driver.py" \
  "$out/test/e2e/"
cp "$root"/test/models/*.py "$out/test/models/"
echo "device-bundle: model references (onnxruntime $("$python" -c 'import onnxruntime; print(onnxruntime.__version__)'))"
"$python" "$root/scripts/device/make_model_refs.py" "$out/models"

cp "$root"/bench/*.py "$out/bench/"
for file in "$root"/scripts/device/*; do
  case $(basename "$file") in
    run.sh) install -m 755 "$file" "$out/run.sh" ;;
    make_model_refs.py) ;;
    *) cp "$file" "$out/scripts/" ;;
  esac
done

size=$(du -sb "$out" | cut -f1)
{
  echo "bundle: $(git -C "$root" rev-parse HEAD)$(git -C "$root" diff --quiet HEAD -- . || echo ' (with uncommitted changes)')"
  echo "bundle made: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "bundle size: $size bytes; graphc $(stat -c %s "$out/bin/graphc") bytes"
  # The oldest glibc graphc starts on (scripts/build-static.sh bounds it).
  echo "graphc needs: $(objdump -T "$out/bin/graphc" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n1) or newer"
  echo "node tests: $(ls "$out/test/conformance/node" | wc -l) from onnx $("$python" -c 'import onnx; print(onnx.__version__)')"
} >"$out/BUNDLE.txt"
cat "$out/BUNDLE.txt"
echo "device-bundle: $out is $size bytes ($((size / 1024 / 1024)) MiB)"
if ((size > limit)); then
  echo "device-bundle: the bundle is larger than 60 MiB" >&2
  exit 1
fi
