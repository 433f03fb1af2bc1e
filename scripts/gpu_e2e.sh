#!/usr/bin/env bash
# GPU end-to-end run of graphc (not part of ctest; CI has no GPU):
#   1. the ONNX backend node tests compiled for --target cuda and run on the
#      GPU, compared with the expected outputs like the cpu conformance suite;
#      the tests of test/conformance/cuda_emitting.txt (those that pass on
#      cpu and emit cuda source) are expected to pass;
#   2. the model end-to-end checks of test/e2e for --target cuda;
#   3. bench/graph_replay.py: CUDA-graph replay vs plain launches.
# Prints the pass counts; exits non-zero when anything fails.
#
#   scripts/gpu_e2e.sh [BUILD_DIR]     (default: build-gpu, configured if absent)
#   JOBS=N scripts/gpu_e2e.sh          (parallel compiles, default: nproc)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-gpu}
python=${GRAPHC_PYTHON:-$root/.venv/bin/python}
jobs=${JOBS:-$(nproc)}

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "gpu_e2e: no NVIDIA GPU found (nvidia-smi lists none); this script needs one" >&2
  exit 1
fi
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d ' .')
arch=sm_$cap
echo "gpu_e2e: $(nvidia-smi -L | head -n1), compiling for $arch"

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja >/dev/null || exit 1
fi
ninja -C "$build" graphc graphc_runtime || exit 1
graphc=$build/bin/graphc
runtime=$(find "$build" -name 'libgraphc_runtime.so' -print -quit)
if [[ -z $runtime ]]; then
  echo "gpu_e2e: libgraphc_runtime.so not found under $build" >&2
  exit 1
fi
export PYTHONPATH=$root/runtime/python${PYTHONPATH:+:$PYTHONPATH}
export GRAPHC_RUNTIME_LIBRARY=$runtime

status=0
echo "== node tests (cuda, $arch)"
"$python" "$root/test/conformance/run_node_tests.py" --graphc "$graphc" \
  --target cuda --arch "$arch" --jobs "$jobs" \
  --expected "$root/test/conformance/cuda_emitting.txt" \
  --list wrong-result --list run-error || status=1

echo "== model tests (cuda, $arch)"
"$python" "$root/test/e2e/run_model_tests.py" all --graphc "$graphc" \
  --target cuda --arch "$arch" || status=1

echo "== CUDA-graph replay vs plain launches"
"$python" "$root/bench/graph_replay.py" --graphc "$graphc" --arch "$arch" || status=1

if [[ $status -eq 0 ]]; then
  echo "gpu_e2e: all passed"
else
  echo "gpu_e2e: FAILED (see above)"
fi
exit $status
