#!/usr/bin/env bash
# Builds graphc and runs every test: lit (dialects, passes, importer, tools),
# GoogleTest suites, ONNX conformance and model tests. GPU tests skip with a
# clear line when no GPU is present.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GRAPHC_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
