#!/usr/bin/env bash
# Runs every GPU check of graphc from a device bundle (scripts/device-bundle.sh)
# in one command, and writes what to commit under $OUT (else ./results):
#   1. the runtime's gtests and Python test          gtest-*.json, stage logs
#      the Triton backend's BackendGpu cases on the GPU
#      (a skip there is a failure)                    gtest-triton-backend-gpu.json
#   2. the ONNX node tests of test/conformance/cuda_emitting.txt compiled with
#      graphc --target cuda for this GPU, run against the expected outputs
#                                                     cuda_passing.txt, node-tests-cuda.json
#   3. the model tests vs onnxruntime references      model-tests-cuda.json
#      again with --precision fp16, bf16 and tf32     model-tests-cuda-fp16.json, ...
#      each artifact of 3 under graphc verify --all: outputs and every step
#      (probed) against graphc's float32 reference   verify-cuda.json
#   4. CUDA-graph replay vs plain launches            graph-replay.json
#   5. kernel micro-benchmarks (bench/kernels.py): each generated template
#      and the library GEMMs against torch, as a fraction of the GPU's peak
#                                                     bench/results/*-kernels.{md,json}
#   6. the benchmark (bench/run_bench.py, fast default set)   bench/
# plus env.json (date, GPU, driver, CUDA) and summary.md. A failing stage is
# reported and the next one still runs; the exit status is 1 if any failed.
#
#   run.sh                   stages 1-6 (6 gets the time left of the budget)
#   run.sh --no-bench        stages 1-4
#   run.sh --bench-only [ARGS...]   stages 5 and 6; ARGS go to bench/run_bench.py
#   run.sh --no-kernels      without stage 5 (before the other options)
#   run.sh --cpu             no GPU needed: stages 2 and 3 on the cpu target
#                            (automatic when nvidia-smi lists no GPU)
#   run.sh --filter REGEX    only the node tests matching REGEX in stage 2
# GRAPHC_RUN_BUDGET_S (default 540) bounds the whole run, GRAPHC_KERNELS_BUDGET_S
# (default 150) stage 5, GRAPHC_KERNELS_ARGS adds bench/kernels.py options
# (e.g. "--only attention --batches 64"); JOBS the compiles.
set -uo pipefail

bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-$PWD/results}
mkdir -p "$out"
out=$(cd "$out" && pwd)
start=$(date +%s)
budget=${GRAPHC_RUN_BUDGET_S:-540}
jobs=${JOBS:-$(nproc)}
python=${PYTHON:-python3}

mode=all
kernels=1
filter=
bench_args=()
target=
while (($#)); do
  case $1 in
    --cpu) target=cpu ;;
    --no-bench) mode=no-bench ;;
    --no-kernels) kernels=0 ;;
    --filter) shift; filter=${1:?--filter needs a regex} ;;
    --bench-only) mode=bench-only; shift; bench_args=("$@"); break ;;
    -h | --help) sed -n '2,/^set /{/^#/p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see run.sh --help)" >&2; exit 2 ;;
  esac
  shift
done

# The stages read models and references with numpy and onnx; say so once
# rather than let every stage fail on an import.
if ! "$python" -c 'import numpy, onnx' 2>/dev/null; then
  echo "run.sh: $python cannot import numpy and onnx; set PYTHON to a Python that can" >&2
  exit 2
fi

have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  have_gpu=1
fi
if [[ -z $target ]]; then
  target=$([[ $have_gpu == 1 ]] && echo cuda || echo cpu)
fi
arch=
if [[ $have_gpu == 1 ]]; then
  arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d ' .')
fi

left() { echo $((budget - ($(date +%s) - start))); }
log() { echo "run.sh: $*" | tee -a "$out/run.log"; }

# --- environment ------------------------------------------------------------
# Read-only queries; GPU settings are never changed.
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm)"
  if [[ $have_gpu == 1 ]]; then
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,clocks.max.sm \
      --format=csv
    nvidia-smi | sed -n 's/.*\(CUDA Version: *[0-9.]*\).*/\1/p' | head -n1
  else
    echo "gpu: none (nvidia-smi lists no GPU)"
  fi
  command -v nvcc >/dev/null && nvcc --version | tail -n2 | head -n1
  "$python" --version 2>&1
  cat "$bundle/BUNDLE.txt" 2>/dev/null
} >"$out/env.txt" 2>&1
"$python" - "$out/env.txt" "$out/env.json" "$target" "${arch:-}" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
json.dump({"lines": lines, "target": sys.argv[3], "arch": sys.argv[4] or None},
          open(sys.argv[2], "w"), indent=1)
PY
cat "$out/env.txt"

# graphc links NVRTC dynamically: find libnvrtc when the loader does not.
graphc=$bundle/bin/graphc
if ldd "$graphc" | grep -q 'libnvrtc.*not found'; then
  nvrtc=$(ldd "$graphc" | awk '/libnvrtc.*not found/ {print $1; exit}')
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/*/lib /usr/local/cuda-*/lib64 \
    $("$python" -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null | \
      xargs -n1 -I{} sh -c 'ls -d {}/nvidia/*/lib 2>/dev/null'); do
    if [[ -e $dir/$nvrtc ]]; then
      export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
      log "using $dir/$nvrtc"
      break
    fi
  done
fi
# The runtime opens cuBLASLt and cuDNN by soname when a model needs them:
# put their folder on the loader's path when the loader does not find them
# (pip's nvidia-* packages, which torch installs, keep them in site-packages).
for lib in libcublasLt.so.13 libcudnn.so.9; do
  if "$python" -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$lib" 2>/dev/null; then
    continue
  fi
  found=
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/*/lib \
    $("$python" -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null | \
      xargs -n1 -I{} sh -c 'ls -d {}/nvidia/*/lib {}/nvidia/cu*/lib 2>/dev/null'); do
    if [[ -e $dir/$lib ]]; then
      export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
      log "using $dir/$lib"
      found=1
      break
    fi
  done
  [[ -n $found ]] || log "no $lib here: models with library steps will not load"
done
if ! "$graphc" --help >/dev/null 2>&1; then
  log "graphc does not start here: $("$graphc" --help 2>&1 | head -n1)"
  log "$(grep '^graphc needs:' "$bundle/BUNDLE.txt" 2>/dev/null); this machine has $(getconf GNU_LIBC_VERSION 2>/dev/null)"
  ldd "$graphc" 2>&1 | tee -a "$out/run.log"
fi

# What graphc itself needs to compile a model there: a host C++ compiler (it
# links every model .so) and, for cuda, the toolkit headers at the path NVRTC
# was given when graphc was built.
if ! command -v c++ >/dev/null && ! command -v g++ >/dev/null && ! command -v clang++ >/dev/null; then
  log "no host C++ compiler (c++, g++, clang++): every compile will fail; set GRAPHC_CXX"
fi
if [[ $target == cuda && ! -f /usr/local/cuda/include/cuda_fp16.h ]]; then
  log "no /usr/local/cuda/include/cuda_fp16.h: NVRTC may not find the CUDA headers"
fi

export PYTHONPATH=$bundle/runtime/python${PYTHONPATH:+:$PYTHONPATH}
export GRAPHC_RUNTIME_LIBRARY=$bundle/lib/libgraphc_runtime.so
export GRAPHC_NODE_TEST_ROOT=$bundle/test/conformance/node
work=$(mktemp -d "${TMPDIR:-/tmp}/graphc-run.XXXXXX")
trap 'rm -rf "$work"' EXIT

declare -A stage_status
failed=0
# stage NAME TIMEOUT_S COMMAND...: runs it with its output in NAME.log, under
# a time limit, and records its status.
stage() {
  local name=$1 limit=$2
  shift 2
  if ((limit > $(left))); then limit=$(left); fi
  if ((limit < 10)); then
    log "$name: skipped, the time budget is spent"
    stage_status[$name]="skipped (time budget spent)"
    failed=1
    return
  fi
  log "$name: started (limit ${limit} s)"
  local t0=$(date +%s) rc
  timeout --kill-after=10 "$limit" bash -c '"$@"' "$name" "$@" >"$out/$name.log" 2>&1
  rc=$?
  tail -n 25 "$out/$name.log"
  if ((rc == 0)); then
    stage_status[$name]="ok ($(($(date +%s) - t0)) s)"
  elif ((rc == 124 || rc == 137)); then
    stage_status[$name]="FAILED: timed out after ${limit} s"
    failed=1
  else
    stage_status[$name]="FAILED: exit status $rc ($(($(date +%s) - t0)) s)"
    failed=1
  fi
  log "$name: ${stage_status[$name]}"
}

# 1. gtests, pointed at the bundle's test models and fake driver.
gtests() {
  local status=0
  export GRAPHC_TEST_MODEL_DIR="$bundle/gtest/models"
  export GRAPHC_TEST_FAKE_CUDA_LIBRARY="$bundle/gtest/lib/libgraphc_fake_cuda.so"
  # cuda-fake-driver-test links the fake driver and its RUNPATH names the
  # build tree it came from; the bundle's copy must be the one it loads, the
  # same the test then hands to the runtime (one copy, one state).
  export LD_LIBRARY_PATH="$bundle/gtest/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  for test in "$bundle"/gtest/bin/*; do
    echo "== $(basename "$test")"
    "$test" --gtest_brief=1 --gtest_output="json:$out/gtest-$(basename "$test").json" || status=1
  done
  echo "== runtime python test"
  "$python" "$bundle/test/runtime/test_python.py" "$bundle/gtest/models" || status=1
  return $status
}

# The native Triton backend's GPU instances on this GPU (BackendGpu in
# test/triton/BackendTest.cpp): --real-cuda keeps the fake driver out, and
# the test compiles its model for this SM with the bundle's graphc.
triton_backend_gpu() {
  # It links the runtime by its soname; the bundle has the library by name.
  mkdir -p "$work/triton-lib"
  ln -sf "$bundle/lib/libgraphc_runtime.so" "$work/triton-lib/libgraphc_runtime.so.0"
  export LD_LIBRARY_PATH="$work/triton-lib:$bundle/gtest/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  unset GRAPHC_CUDA_DRIVER_LIBRARY GRAPHC_CUBLASLT_LIBRARY
  GRAPHC_TEST_GRAPHC="$graphc" GRAPHC_TEST_PYTHON="$(command -v "$python")" \
    GRAPHC_TEST_TRITON_MODEL_SCRIPT="$bundle/test/triton/make_backend_models.py" \
    GRAPHC_TEST_TRITON_WORKDIR="$work/triton-backend" \
    "$bundle/gtest/triton/triton-backend-test" --real-cuda \
    --gtest_output="json:$out/gtest-triton-backend-gpu.json" | tee "$work/triton-backend.log"
  local status=${PIPESTATUS[0]}
  if [[ $have_gpu == 1 ]] && grep -q '^\[  SKIPPED \]' "$work/triton-backend.log"; then
    echo "triton-backend-gpu: skipped on a machine with a GPU" >&2
    return 1
  fi
  return "$status"
}

node_tests() {
  "$python" "$bundle/scripts/node_tests_target.py" --conformance "$bundle/test/conformance" \
    --graphc "$graphc" --target "$target" ${arch:+--arch "$arch"} --jobs "$jobs" \
    ${filter:+--filter "$filter"} --work-dir "$work/node" --json "$out/node-tests-$target.json" \
    --passing "$out/${target}_passing.txt"
}

# If, Loop and Scan against onnxruntime: on a GPU the loops the run decides
# are WHILE conditional nodes of the plan's CUDA graph on the real driver.
control_flow() {
  "$python" "$bundle/test/e2e/control_flow_tests.py" --graphc "$graphc" \
    --runtime "$bundle/lib/libgraphc_runtime.so" --target "$target" \
    --work-dir "$work"
}

# QDQ models against onnxruntime: on a GPU their int8 and e4m3fn GEMMs and
# int8 convolutions are the real cuBLASLt's and cuDNN's 8-bit kernels.
quantized() {
  "$python" "$bundle/test/e2e/quantized_tests.py" --graphc "$graphc" \
    --runtime "$bundle/lib/libgraphc_runtime.so" --target "$target" \
    --work-dir "$work"
}

model_tests() {
  "$python" "$bundle/scripts/model_tests.py" --graphc "$graphc" --models "$bundle/models" \
    --target "$target" ${arch:+--arch "$arch"} --work-dir "$work/models" \
    --json "$out/model-tests-$target.json"
}

reduced_precision_model_tests() {
  local status=0 precision
  for precision in fp16 bf16 tf32; do
    "$python" "$bundle/scripts/model_tests.py" --graphc "$graphc" --models "$bundle/models" \
      --target "$target" ${arch:+--arch "$arch"} --precision "$precision" \
      --work-dir "$work/models-$precision" \
      --json "$out/model-tests-$target-$precision.json" || status=1
  done
  return $status
}

verify_models() {
  "$python" "$bundle/scripts/verify_models.py" --graphc "$graphc" --models "$bundle/models" \
    --target "$target" --work-dirs "fp32=$work/models" "fp16=$work/models-fp16" \
    "bf16=$work/models-bf16" "tf32=$work/models-tf32" --json "$out/verify-$target.json"
}

graph_replay() {
  "$python" "$bundle/bench/graph_replay.py" --graphc "$graphc" --models "$bundle/models" \
    --json "$out/graph-replay.json"
}

kernels_bench() {
  "$python" "$bundle/bench/kernels.py" --graphc "$graphc" \
    --runtime "$bundle/lib/libgraphc_runtime.so" --out "$out/bench/results" \
    --work-dir "$work/kernels" --deadline-s "$((kernels_budget - 15))" \
    ${GRAPHC_KERNELS_ARGS:-}
}

bench() {
  "$python" "$bundle/bench/run_bench.py" --graphc "$graphc" --out "$out/bench/results" \
    --deadline-s "$(($(left) - 20))" "$@"
}

# The stages run under timeout(1), in a child bash: it needs these.
kernels_budget=${GRAPHC_KERNELS_BUDGET_S:-150}
export -f left gtests triton_backend_gpu node_tests control_flow quantized model_tests \
  reduced_precision_model_tests verify_models graph_replay \
  kernels_bench bench
export bundle out start budget jobs python target arch filter graphc work kernels_budget \
  have_gpu

if [[ $mode != bench-only ]]; then
  stage gtests 90 gtests
  stage triton-backend-gpu 90 triton_backend_gpu
  stage node-tests-$target 300 node_tests
  stage control-flow-$target 120 control_flow
  stage quantized-$target 120 quantized
  stage model-tests-$target 90 model_tests
  stage model-tests-$target-reduced-precision 120 reduced_precision_model_tests
  stage verify-$target 90 verify_models
  if [[ $have_gpu == 1 && $target == cuda ]]; then
    stage graph-replay 90 graph_replay
  else
    stage_status[graph-replay]="skipped: no GPU"
  fi
fi
if [[ $mode == bench-only || ($mode == all && $have_gpu == 1 && $target == cuda) ]]; then
  if [[ $kernels == 1 ]]; then
    stage kernels "$kernels_budget" kernels_bench
  else
    stage_status[kernels]="skipped: --no-kernels"
  fi
  stage bench 600 bench "${bench_args[@]}"
elif [[ $mode == all ]]; then
  stage_status[kernels]="skipped: no GPU"
  stage_status[bench]="skipped: no GPU"
fi

{
  echo "# graphc GPU run"
  echo
  echo '```'
  cat "$out/env.txt"
  echo '```'
  echo
  echo "| stage | result |"
  echo "|---|---|"
  for name in gtests triton-backend-gpu node-tests-$target control-flow-$target \
      quantized-$target model-tests-$target \
      model-tests-$target-reduced-precision verify-$target graph-replay kernels bench; do
    [[ -n ${stage_status[$name]:-} ]] && echo "| $name | ${stage_status[$name]} |"
  done
  echo
  echo "Logs and results: $(basename "$out")/ (total $(($(date +%s) - start)) s)."
} >"$out/summary.md"
cat "$out/summary.md"
exit $failed
