#!/usr/bin/env bash
# Builds the self-contained graphc (-DGRAPHC_STATIC=ON) in build-static/ with
# the runtime, its gtests and the Triton backend's, then checks what the GPU
# machines need: graphc at most 48 MiB, only system libraries (and NVRTC) in
# its ldd, and no glibc symbol newer than this machine's.
#   scripts/build-static.sh [ninja args...]      (e.g. -j2)
# GRAPHC_STATIC_BUILD_DIR overrides the build tree.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GRAPHC_STATIC_BUILD_DIR:-$root/build-static}"
export CCACHE_DIR="${CCACHE_DIR:-$root/build/.ccache}"
export CCACHE_BASEDIR="$root"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DGRAPHC_STATIC=ON >/dev/null
fi
ninja -C "$build" "$@" graphc graphc_runtime runtime-test cuda-fake-driver-test \
  library-steps-test triton-backend-test

graphc="$build/bin/graphc"
limit=$((48 * 1024 * 1024))
size=$(stat -c %s "$graphc")
echo "build-static: $graphc is $size bytes ($((size / 1024 / 1024)) MiB)"
status=0
if ((size > limit)); then
  echo "build-static: graphc is larger than 48 MiB" >&2
  status=1
fi

# Allowed at load time: glibc's libraries and NVRTC (the CUDA toolkit's, on
# every machine that compiles for cuda).
echo "build-static: ldd $graphc"
ldd "$graphc" | sed 's/^/  /'
unexpected=$(ldd "$graphc" | awk '{print $1}' |
  grep -Ev '^(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2|lib(c|m|dl|pthread|rt)\.so\.[0-9]+|libnvrtc\.so\.[0-9]+)$' || true)
if [[ -n $unexpected ]]; then
  echo "build-static: graphc needs libraries the GPU machines may lack:" $unexpected >&2
  status=1
fi

# The newest glibc symbol version graphc and the runtime library need: at
# most 2.34 (cmake/GlibcCompat.c stands in for the newer calls of the static
# libstdc++ and libgcc), so that they start on Ubuntu 22.04 and RHEL 9 too.
oldest_glibc=GLIBC_2.34
for binary in "$graphc" "$build"/lib/libgraphc_runtime.so; do
  needed=$(objdump -T "$binary" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n1)
  echo "build-static: $(basename "$binary") needs $needed (at most $oldest_glibc allowed)"
  if [[ $(printf '%s\n%s\n' "$needed" "$oldest_glibc" | sort -V | tail -n1) != "$oldest_glibc" ]]; then
    echo "build-static: $(basename "$binary") needs a glibc newer than $oldest_glibc:" >&2
    objdump -T "$binary" | grep -F "($needed)" >&2
    status=1
  fi
done
exit $status
