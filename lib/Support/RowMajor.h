//===- RowMajor.h - stepping through an index space in order ----*- C++ -*-===//
//
// The row-major walk the host kernels and the shared convolution take
// through a tensor's indices. Header only and dependency free.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_ROWMAJOR_H
#define GRAPHC_LIB_SUPPORT_ROWMAJOR_H

#include <cstdint>

namespace graphc {

/// Steps the row-major index `index` over `dims` (rank n) to the next one;
/// false, with `index` back at all zeros, after the last.
inline bool nextIndex(int64_t *index, const int64_t *dims, int n) {
  for (int d = n - 1; d >= 0; --d) {
    if (++index[d] < dims[d])
      return true;
    index[d] = 0;
  }
  return false;
}

} // namespace graphc

#endif // GRAPHC_LIB_SUPPORT_ROWMAJOR_H
