#!/usr/bin/env bash
# Installs the exporters the bench/ scripts use (torch, torchvision,
# transformers, onnxscript) into their own venv, .venv-torch, idempotently.
# Several GB: never part of the test command.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
venv="$root/.venv-torch"
requirements="$root/scripts/requirements-torch.txt"
stamp="$venv/.requirements.stamp"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if [ ! -f "$stamp" ] || ! cmp -s "$requirements" "$stamp"; then
  echo "setup-torch: installing torch, torchvision, transformers into .venv-torch (several GB)"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
fi
