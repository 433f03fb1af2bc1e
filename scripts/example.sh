#!/usr/bin/env bash
# Builds graphc and runs its main job on the bundled example model: check it,
# compile it (cuda when a GPU is present, else cpu), run it on random inputs
# and compare with onnxruntime.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GRAPHC_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" graphc graphc_runtime
py="$root/.venv/bin/python"
out="$build/example"
mkdir -p "$out"
"$py" "$root/examples/make_example.py" "$out/mlp.onnx"
graphc="$build/bin/graphc"
"$graphc" check "$out/mlp.onnx"
target=cpu
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  target=cuda
fi
echo "== compiling for $target"
"$graphc" compile "$out/mlp.onnx" -o "$out/mlp.so" --target "$target" --dim batch=4
"$graphc" inspect "$out/mlp.so"
"$py" "$root/examples/run_example.py" "$out/mlp.onnx" "$out/mlp.so" --batch 4 \
  --runtime "$build/lib/libgraphc_runtime.so"
