//===- Scatter.cpp - ScatterElements and ScatterND host kernels -----------===//
//
// The output starts as a copy of data; updates are applied in index order
// with the `reduction` (none, add, mul, max, min).
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/Indices.h"

using namespace graphc::hk;

namespace {

enum class Reduction { None, Add, Mul, Max, Min };

int readReduction(KernelContext &ctx, const char *value,
                  Reduction &reduction) {
  static const Choice<Reduction> choices[] = {{"none", Reduction::None},
                                              {"add", Reduction::Add},
                                              {"mul", Reduction::Mul},
                                              {"max", Reduction::Max},
                                              {"min", Reduction::Min}};
  return readChoice(ctx, "reduction", value, choices, reduction);
}

template <typename T> T combine(Reduction reduction, T current, T update) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (reduction) {
    case Reduction::None:
      return update;
    case Reduction::Add:
    case Reduction::Max:
      return current || update;
    case Reduction::Mul:
    case Reduction::Min:
      return current && update;
    }
    return update;
  } else {
    auto a = toArith(current), b = toArith(update);
    switch (reduction) {
    case Reduction::None:
      return update;
    case Reduction::Add:
      return fromArith<T>(a + b);
    case Reduction::Mul:
      return fromArith<T>(a * b);
    case Reduction::Max:
      return b > a ? update : current;
    case Reduction::Min:
      return b < a ? update : current;
    }
    return update;
  }
}

int copyData(KernelContext &ctx) {
  const gc_tensor &data = ctx.in(0);
  GC_TRY(ctx.checkOutput(0, data.dtype, Dims::of(data)));
  size_t bytes = static_cast<size_t>(numElements(data)) * gc_dtype_size(data.dtype);
  if (bytes)
    std::memmove(ctx.out(0).data, data.data, bytes);
  return 0;
}

} // namespace

GC_KERNEL_ATTRS(scatter_elements, ScatterElements, a) {
  GC_TRY(ctx.expect(3, 1));
  const gc_tensor &data = ctx.in(0), &indices = ctx.in(1), &updates = ctx.in(2);
  GC_TRY(checkIndices(ctx, 1));
  GC_TRY(ctx.checkSameDtype(2, data.dtype, "updates"));
  if (indices.rank != data.rank || updates.rank != data.rank)
    return ctx.fail("data, indices and updates must have the same rank");
  for (int d = 0; d < indices.rank; ++d)
    if (indices.dims[d] != updates.dims[d])
      return ctx.fail("indices and updates must have the same shape");
  int axis;
  GC_TRY(elementsAxis(ctx, data, indices, a.axis, axis));
  Reduction reduction;
  GC_TRY(readReduction(ctx, a.reduction, reduction));
  GC_TRY(copyData(ctx));
  Dims strides = Dims::of(data).strides();
  return dispatch<kAll>(ctx, data.dtype, "data", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *upd = static_cast<const T *>(updates.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    int64_t index[kMaxRank] = {};
    for (int64_t i = 0, n = numElements(indices); i < n; ++i) {
      int64_t target;
      GC_TRY(resolveIndex(ctx, intAt(indices, i), data.dims[axis], target));
      int64_t offset = 0;
      for (int d = 0; d < data.rank; ++d)
        offset += (d == axis ? target : index[d]) * strides[d];
      out[offset] = combine(reduction, out[offset], upd[i]);
      nextIndex(index, indices.dims, data.rank);
    }
    return 0;
  });
}

GC_KERNEL_ATTRS(scatter_nd, ScatterNd, a) {
  GC_TRY(ctx.expect(3, 1));
  const gc_tensor &data = ctx.in(0), &indices = ctx.in(1), &updates = ctx.in(2);
  if (indices.dtype != GC_DTYPE_I64)
    return ctx.unsupportedDtype("indices", indices.dtype);
  GC_TRY(ctx.checkSameDtype(2, data.dtype, "updates"));
  if (indices.rank < 1)
    return ctx.fail("indices must have rank >= 1");
  int64_t depth = indices.dims[indices.rank - 1];
  if (depth > data.rank)
    return ctx.fail("index depth %lld exceeds the data rank %d",
                    static_cast<long long>(depth), data.rank);
  // updates.shape == indices.shape[:-1] + data.shape[depth:]
  bool shapeOk = updates.rank == indices.rank - 1 + data.rank - depth;
  for (int d = 0; shapeOk && d < indices.rank - 1; ++d)
    shapeOk = updates.dims[d] == indices.dims[d];
  for (int d = static_cast<int>(depth); shapeOk && d < data.rank; ++d)
    shapeOk = updates.dims[indices.rank - 1 + d - depth] == data.dims[d];
  if (!shapeOk)
    return ctx.fail("updates shape does not match indices and data");
  Reduction reduction;
  GC_TRY(readReduction(ctx, a.reduction, reduction));
  GC_TRY(copyData(ctx));
  Dims strides = Dims::of(data).strides();
  int64_t slice = 1;
  for (int d = static_cast<int>(depth); d < data.rank; ++d)
    slice *= data.dims[d];
  int64_t tuples = depth ? numElements(indices) / depth : numElements(indices);
  const int64_t *idx = static_cast<const int64_t *>(indices.data);
  return dispatch<kAll>(ctx, data.dtype, "data", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *upd = static_cast<const T *>(updates.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t offset = 0;
      for (int64_t k = 0; k < depth; ++k) {
        int64_t i;
        GC_TRY(resolveIndex(ctx, idx[t * depth + k], data.dims[k], i));
        offset += i * strides[static_cast<int>(k)];
      }
      for (int64_t j = 0; j < slice; ++j)
        out[offset + j] = combine(reduction, out[offset + j], upd[t * slice + j]);
    }
    return 0;
  });
}
