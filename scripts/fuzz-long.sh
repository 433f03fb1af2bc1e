#!/usr/bin/env bash
# A long fuzzing campaign (not part of the test command): every fuzz target
# on all cores until it has run RUNS inputs (default 10 million) or for
# MAX_SECONDS (default 3600), whichever comes first, from fresh random seeds.
# Corpora are kept in build-asan/fuzz-long/<target>/corpus between campaigns
# (the test command's seeded runs start afresh in test/fuzz/<target>);
# findings go to build-asan/fuzz-long/<target>/findings. Prints executions and
# exec/s per target; exits non-zero when a target finds anything.
#
#   scripts/fuzz-long.sh [target...]     (default: all; e.g. importer npy)
#   RUNS=N MAX_SECONDS=S JOBS=N scripts/fuzz-long.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tree="$root/build-asan"
runs="${RUNS:-10000000}"
max_seconds="${MAX_SECONDS:-3600}"
jobs="${JOBS:-$(nproc)}"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(importer tensor-file npy artifact descriptor)

bash "$root/scripts/setup.sh"
if [ ! -f "$tree/build.ninja" ]; then
  cmake -S "$root" -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DGRAPHC_SANITIZE=address,undefined -DGRAPHC_FUZZ=ON >/dev/null
fi
CCACHE_DIR="$tree/.ccache" CCACHE_BASEDIR="$root" \
  ninja -C "$tree" graphc-sanitizer-tests
py="$root/.venv/bin/python"
fuzz="$tree/test/fuzz"
ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0 "$py" "$root/test/fuzz/make_seeds.py" "$fuzz/seeds" \
  --graphc "$tree/bin/graphc" --test-models "$tree/test/runtime/models"

status=0
for target in "${targets[@]}"; do
  dict=()
  [ "$target" = importer ] && dict=(--dict "$fuzz/seeds/importer.dict")
  "$py" "$root/test/fuzz/run_fuzzer.py" "$tree/bin/fuzz-$target" \
    --work-dir "$tree/fuzz-long/$target" --seeds "$fuzz/seeds/$target" "${dict[@]}" \
    --jobs "$jobs" --runs "$runs" --seconds "$max_seconds" | tail -n 40 || status=1
done
exit $status
