#!/usr/bin/env bash
# The GPU device bundle's stage scripts (scripts/device, bench/compile_times.py)
# run on the cpu target with the regular build, so they keep working as the
# conformance and model-test scripts they reuse change:
#   device_scripts_test.sh GRAPHC RUNTIME_LIBRARY WORK_DIR PYTHON
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
graphc=$1 runtime=$2 work=$3 python=$4
rm -rf "$work"
mkdir -p "$work"
export PYTHONPATH=$root/runtime/python GRAPHC_RUNTIME_LIBRARY=$runtime

for script in scripts/device/run.sh scripts/device-bundle.sh scripts/build-static.sh; do
  bash -n "$root/$script"
done

"$python" "$root/scripts/device/make_model_refs.py" "$work/models"
"$python" "$root/scripts/device/model_tests.py" --graphc "$graphc" \
  --models "$work/models" --target cpu --work-dir "$work/model-tests" \
  --json "$work/model-tests.json"
"$python" - "$work/model-tests.json" "$work/models/manifest.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
expected = {m["tag"] for m in json.load(open(sys.argv[2]))["models"]}
assert expected and {r["tag"] for r in results} == expected, (expected, results)
assert all(r["status"] == "pass" for r in results), results
PY
# The reduced-precision stage's run, on fp16.
"$python" "$root/scripts/device/model_tests.py" --graphc "$graphc" \
  --models "$work/models" --target cpu --precision fp16 --work-dir "$work/model-tests-fp16" \
  --json "$work/model-tests-fp16.json"
"$python" - "$work/model-tests-fp16.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
assert results and all(r["status"] == "pass" and r["precision"] == "fp16"
                       for r in results), results
PY

# Node tests come from GRAPHC_NODE_TEST_ROOT, as in the bundle: a listed
# test missing there is reported, not taken from the installed onnx.
node_root=$("$python" -c 'import os, onnx; print(os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node"))')
mkdir -p "$work/node"
cp -r "$node_root/test_abs" "$node_root/test_relu" "$work/node/"
status=0
GRAPHC_NODE_TEST_ROOT=$work/node "$python" "$root/scripts/device/node_tests_target.py" \
  --conformance "$root/test/conformance" --graphc "$graphc" --target cpu \
  --jobs 2 --filter '^test_(abs|relu|softmax_axis_0)$' \
  --work-dir "$work/node-tests" --json "$work/node-tests.json" \
  --passing "$work/passing.txt" || status=$?
[[ $status == 1 ]] || { echo "node_tests_target.py: exit status $status, expected 1"; exit 1; }
printf 'test_abs\ntest_relu\n' | diff - "$work/passing.txt"
"$python" - "$work/node-tests.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))["results"]["test_softmax_axis_0"]
assert result == {"category": "run-error",
                  "reason": "the node test is not in the bundle"}, result
PY

"$python" "$root/bench/compile_times.py" --graphc "$graphc" --models "$work/models" \
  --targets cpu --repeat 1 --out "$work/compile-times"
ls "$work"/compile-times/*-compile.md "$work"/compile-times/*-compile.json >/dev/null
echo "device scripts: ok"
