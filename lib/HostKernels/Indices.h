//===- Indices.h - index tensors of gather and scatter ----------*- C++ -*-===//
//
// What the gather and scatter kernels check of their index tensors: the
// dtype, each index against the dimension it counts along (from the end
// when negative), and the axis of the element-wise forms.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_HOSTKERNELS_INDICES_H
#define GRAPHC_HOSTKERNELS_INDICES_H

#include "lib/HostKernels/KernelSupport.h"

namespace graphc::hk {

/// Resolves `index`, which may count from the end, against a dimension of
/// size `dim`; fails (as the caller's value) outside [-dim, dim).
inline int resolveIndex(KernelContext &ctx, int64_t index, int64_t dim,
                        int64_t &result) {
  if (index < -dim || index >= dim)
    return ctx.failValue("index %lld is out of range [-%lld, %lld)",
                         static_cast<long long>(index),
                         static_cast<long long>(dim),
                         static_cast<long long>(dim));
  result = index < 0 ? index + dim : index;
  return 0;
}

/// Fails unless input `i` holds i64 or i32 indices.
inline int checkIndices(KernelContext &ctx, int i) {
  int32_t dtype = ctx.in(i).dtype;
  if (!isIndexDtype(dtype))
    return ctx.unsupportedDtype("indices", dtype);
  return 0;
}

/// Reads the axis of GatherElements or ScatterElements: off it, `indices`
/// (of the rank of `data`) may not exceed `data`.
inline int elementsAxis(KernelContext &ctx, const gc_tensor &data,
                        const gc_tensor &indices, int64_t attrAxis,
                        int &axis) {
  GC_TRY(ctx.normalizeAxis(attrAxis, data.rank, axis));
  for (int d = 0; d < data.rank; ++d)
    if (d != axis && indices.dims[d] > data.dims[d])
      return ctx.fail("indices dimension %d exceeds the data", d);
  return 0;
}

} // namespace graphc::hk

#endif
