#!/usr/bin/env bash
# Builds graphc and runs every test: lit (dialects, passes, importer, tools),
# GoogleTest suites, ONNX conformance and model tests. GPU tests skip with a
# clear line when no GPU is present.
#
# Then the sanitizer runs, each in its own clang build tree that builds only
# what its tests need (ccache inside the tree, like build/):
#   build-asan  ASan+UBSan: the unit and runtime suites, the importer lit
#               tests, every 10th cpu conformance test, and each fuzz target
#               for GRAPHC_FUZZ_SECONDS (45) plus its committed regressions
#   build-tsan  TSan: the runtime's multi-threaded suites
# Prints the time each stage took, then a summary (conformance counts, the
# reason of every skipped test, totals); exits non-zero when any stage fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GRAPHC_BUILD_DIR:-$root/build}"
jobs="$(nproc)"
bash "$root/scripts/setup.sh" --with-triton

status=0
stage() { # stage NAME COMMAND...: runs and times one stage, recording failure
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  if "$@"; then
    echo "== $name: passed in $((SECONDS - start)) s"
  else
    echo "== $name: FAILED after $((SECONDS - start)) s"
    status=1
  fi
}

# forget_results TREE: drops ctest's logs of an earlier run, so that the
# summary never reports a stage that did not run this time.
forget_results() {
  rm -f "$1"/Testing/Temporary/LastTest*.log
}

# Every graphc compile of the tests keeps its compiled parts in a cache in
# the tree under test, never in the user's cache directory.
main_tests() {
  forget_results "$build"
  bash "$root/scripts/build.sh" && (cd "$build" &&
    GRAPHC_CACHE_DIR="$build/test-compile-cache" ctest --output-on-failure -j "$jobs")
}

# sanitizer_tests DIR CMAKE_ARGS...: configures DIR with clang when needed,
# builds the sanitizer tests' targets and runs them.
sanitizer_tests() {
  local tree=$1
  shift
  forget_results "$tree"
  if [ ! -f "$tree/build.ninja" ]; then
    cmake -S "$root" -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
      -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
      -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" "$@" >/dev/null || return 1
  fi
  CCACHE_DIR="$tree/.ccache" CCACHE_BASEDIR="$root" \
    GRAPHC_CACHE_DIR="$tree/test-compile-cache" \
    ninja -C "$tree" -j "$jobs" graphc-sanitizer-tests || return 1
  (cd "$tree" && GRAPHC_CACHE_DIR="$tree/test-compile-cache" \
    ctest --output-on-failure -L sanitizer -j "$jobs")
}

stage "build and tests" main_tests
stage "ASan+UBSan build, sanitized tests and fuzzing" \
  sanitizer_tests "$root/build-asan" -DGRAPHC_SANITIZE=address,undefined -DGRAPHC_FUZZ=ON
stage "TSan build and runtime tests" \
  sanitizer_tests "$root/build-tsan" -DGRAPHC_SANITIZE=thread

# What ctest keeps in its logs only: the conformance counts, why each skipped
# test was skipped, and the totals of all three trees.
echo "== summary"
"$root/.venv/bin/python" "$root/scripts/test_report.py" \
  "$build" "$root/build-asan" "$root/build-tsan"
exit $status
