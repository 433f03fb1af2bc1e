#!/usr/bin/env bash
# Runs Triton Inference Server on a model repository written by
# `graphc triton`, without a container: the tritonserver binary and Python
# backend that PyTriton's wheel ships, installed in .venv-triton by
# `scripts/setup.sh --with-triton`.
#
#   bash scripts/tritonserver.sh REPOSITORY [tritonserver options...]
#
# It listens on 127.0.0.1 (HTTP 8000, gRPC 8001, metrics 8002) unless the
# options say otherwise (--http-address 0.0.0.0 ...; later options win).
# The Python backend's stub runs the venv's Python, which has numpy; the
# graphc package comes with each repository entry. The process execs into
# tritonserver, so signals reach the server itself (SIGTERM or SIGINT: a
# clean shutdown).
#
# Repository entries of graphc's native backend (backend "graphc") carry
# the backend library and need nothing else; entries of the Python backend
# use the stub this script sets up. GRAPHC_TRITONSERVER_PRELOAD, when set,
# is the LD_PRELOAD of the server process alone (not of this script's
# Python): the sanitizer test preloads the ASan runtime with it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${GRAPHC_TRITON_VENV:-$root/.venv-triton}"
if [[ $# -lt 1 ]]; then
  echo "usage: scripts/tritonserver.sh REPOSITORY [tritonserver options...]" >&2
  exit 2
fi
repository=$1
shift
if [[ ! -x $venv/bin/python ]]; then
  echo "tritonserver.sh: no Triton venv at $venv; run scripts/setup.sh --with-triton" >&2
  exit 1
fi
if [[ ! -d $repository ]]; then
  echo "tritonserver.sh: the model repository $repository is not a directory" >&2
  exit 1
fi

# Where the wheel put the server, its libraries, and the Python the stub
# must load (the venv's: its version picks the stub; its library directory
# holds libpython when the interpreter was built shared).
read -r pytriton libs python_version python_libdir < <("$venv/bin/python" - <<'EOF'
import os, sys, sysconfig
import pytriton
package = os.path.dirname(pytriton.__file__)
print(package, os.path.join(os.path.dirname(package), "nvidia_pytriton.libs"),
      f"{sys.version_info[0]}.{sys.version_info[1]}",
      sysconfig.get_config_var("LIBDIR") or "")
EOF
)
server="$pytriton/tritonserver"
stub="$server/python_backend_stubs/$python_version/triton_python_backend_stub"
if [[ ! -x $stub ]]; then
  echo "tritonserver.sh: PyTriton has no Python backend stub for Python $python_version" >&2
  exit 1
fi

# Triton looks for the stub beside the backend library: a backends
# directory with the stub of this Python, made once per venv.
backends="$venv/graphc-triton-backends"
if [[ ! -x $backends/python/triton_python_backend_stub ]] ||
  ! cmp -s "$stub" "$backends/python/triton_python_backend_stub"; then
  staging="$backends.tmp.$$"
  rm -rf "$staging"
  mkdir -p "$staging"
  cp -r "$server/backends/python" "$staging/"
  cp "$stub" "$staging/python/"
  rm -rf "$backends"
  mv "$staging" "$backends"
fi

export LD_LIBRARY_PATH="$libs${python_libdir:+:$python_libdir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The stub runs the first python3 on PATH as its interpreter home: the venv.
export PATH="$venv/bin:$PATH"
preload=()
if [[ -n ${GRAPHC_TRITONSERVER_PRELOAD:-} ]]; then
  preload=(env "LD_PRELOAD=$GRAPHC_TRITONSERVER_PRELOAD")
fi
exec "${preload[@]}" "$server/bin/tritonserver" \
  --model-repository "$repository" \
  --backend-directory "$backends" \
  --cache-directory "$server/caches" \
  --http-address 127.0.0.1 --grpc-address 127.0.0.1 --metrics-address 127.0.0.1 \
  "$@"
