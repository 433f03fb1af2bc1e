#!/usr/bin/env bash
# Installs everything graphc needs to build and test, idempotently:
# Debian packages (when missing) and a Python venv with pinned packages in .venv.
# Quiet when everything is already there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

apt_packages=(
  cmake ninja-build g++ ccache python3-venv
  llvm-19-dev libmlir-19-dev mlir-19-tools
  libonnx-dev libprotobuf-dev protobuf-compiler
  libcli11-dev nlohmann-json3-dev libdlpack-dev libgtest-dev
  clang-19 libclang-rt-19-dev lld-19
)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python: test references (onnx, onnxruntime, numpy) and lit. Pinned so the
# conformance counts are reproducible.
venv="$root/.venv"
requirements="$root/scripts/requirements.txt"
stamp="$venv/.requirements.stamp"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if [ ! -f "$stamp" ] || ! cmp -s "$requirements" "$stamp"; then
  echo "setup: installing Python packages into .venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
fi
