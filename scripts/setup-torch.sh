#!/usr/bin/env bash
# Installs the exporters the bench/ scripts use (torch, torchvision,
# transformers, onnxscript) into their own venv, .venv-torch, idempotently.
# Several GB: never part of the test command.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
source "$root/scripts/venv.sh"
ensure_venv "$root/.venv-torch" "$root/scripts/requirements-torch.txt" .venv-torch
