#!/usr/bin/env bash
# Installs everything graphc needs to build and test, idempotently:
# Debian packages (when missing) and a Python venv with pinned packages in .venv.
# Quiet when everything is already there.
#
# --with-triton also makes .venv-triton: Triton Inference Server (the
# tritonserver binary PyTriton's wheel ships, about 370 MB with its clients)
# for the serving test, which the test command runs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

apt_packages=(
  cmake ninja-build g++ ccache python3-venv
  llvm-19-dev libmlir-19-dev mlir-19-tools
  libonnx-dev libprotobuf-dev protobuf-compiler
  libcli11-dev nlohmann-json3-dev libdlpack-dev libgtest-dev
  pkg-config binutils
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

# The CUDA toolkit (NVRTC) builds the cuda target; without it graphc builds
# and tests the cpu target only. NVIDIA's toolkit in /usr/local/cuda (or nvcc
# on PATH) is used as it is; otherwise Debian's nvidia-cuda-toolkit when apt
# can install it. It lives in Debian's non-free component, which is not
# enabled here behind anyone's back. GRAPHC_SETUP_CUDA=0 skips this step.
cuda_nvcc=$(command -v nvcc || true)
[ -z "$cuda_nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && cuda_nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$cuda_nvcc" ] && [ "${GRAPHC_SETUP_CUDA:-1}" != 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  candidate=$(apt-cache policy nvidia-cuda-toolkit 2>/dev/null | awk '/Candidate:/ {print $2}')
  if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
    # The package lists may just be stale.
    $sudo_cmd apt-get update -qq
    candidate=$(apt-cache policy nvidia-cuda-toolkit 2>/dev/null | awk '/Candidate:/ {print $2}')
  fi
  if [ -n "$candidate" ] && [ "$candidate" != "(none)" ]; then
    echo "setup: no CUDA toolkit found; installing Debian's nvidia-cuda-toolkit $candidate (for the cuda target)"
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq nvidia-cuda-toolkit >/dev/null
  else
    if grep -rqsw non-free /etc/apt/sources.list /etc/apt/sources.list.d/; then
      why="apt has no installable candidate for it (apt-cache policy nvidia-cuda-toolkit)"
      how="install NVIDIA's CUDA toolkit in /usr/local/cuda"
    else
      why="it is in the non-free component, which this machine's apt sources do not enable"
      how="install NVIDIA's CUDA toolkit in /usr/local/cuda, or add non-free to the components in /etc/apt/sources.list.d/ and rerun this script"
    fi
    echo "setup: no CUDA toolkit found (no nvcc on PATH or in /usr/local/cuda/bin), and" \
      "apt cannot install Debian's nvidia-cuda-toolkit: $why. graphc builds and tests the" \
      "cpu target without it; for the cuda target $how, then reconfigure graphc" \
      "(rm -rf build)." >&2
  fi
fi

# Python: test references (onnx, onnxruntime, numpy) and lit. Pinned so the
# conformance counts are reproducible.
source "$root/scripts/venv.sh"
ensure_venv "$root/.venv" "$root/scripts/requirements.txt" .venv
if [ "${1:-}" = --with-triton ]; then
  ensure_venv "$root/.venv-triton" "$root/scripts/requirements-triton.txt" .venv-triton
fi
