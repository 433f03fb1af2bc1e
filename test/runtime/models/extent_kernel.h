/*===- extent_kernel.h - extent_model's kernel, shared with its tests -----===*
 *
 * keep_positive on n = 4 * rows elements of x (rows of 4): the positive
 * elements go to kept[0, count) in row-major order, their row and column
 * indices to where[0, count) and where[n, n + count) (NonZero's [2, n]
 * layout at its bound n), and their number to *count; the rest of kept and
 * where is zeroed. A hook for the tests of what the runtime refuses: with
 * x[0] = 1000 the count is reported as n + 1 (past the bound), with
 * x[0] = -1000 as -1. The cpu model calls it from its host functions, the
 * cuda tests from the fake driver's kernel.
 *===----------------------------------------------------------------------===*/
#ifndef GRAPHC_TEST_RUNTIME_MODELS_EXTENT_KERNEL_H
#define GRAPHC_TEST_RUNTIME_MODELS_EXTENT_KERNEL_H

#include <stdint.h>
#include <string.h>

static inline void extent_keep_positive(const float *x, int n, float *kept,
                                        int64_t *where, int64_t *count) {
  int64_t found = 0;
  memset(kept, 0, sizeof(float) * (size_t)n);
  memset(where, 0, sizeof(int64_t) * 2 * (size_t)n);
  for (int i = 0; i < n; ++i) {
    if (!(x[i] > 0))
      continue;
    kept[found] = x[i];
    where[found] = i / 4;
    where[n + found] = i % 4;
    ++found;
  }
  if (x[0] == 1000.0f)
    found = n + 1;
  else if (x[0] == -1000.0f)
    found = -1;
  *count = found;
}

#endif
