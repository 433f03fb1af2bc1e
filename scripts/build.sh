#!/usr/bin/env bash
# Configures and builds graphc in build/ (Release, Ninja, ccache when present).
# Usage: scripts/build.sh [ninja targets...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GRAPHC_BUILD_DIR:-$root/build}"
# ccache lives inside the build tree so that CI caches it with the build.
export CCACHE_DIR="${CCACHE_DIR:-$build/.ccache}"
export CCACHE_BASEDIR="$root"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
ninja -C "$build" "$@"
