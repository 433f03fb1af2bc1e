//===- Gather.cpp - Gather, GatherElements, GatherND and OneHot -----------===//
//
// Negative indices count from the end of their axis; indices outside the
// axis are an error rather than an out-of-bounds read.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/Indices.h"

using namespace graphc::hk;

GC_KERNEL_ATTRS(gather, Gather, a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &data = ctx.in(0), &indices = ctx.in(1);
  GC_TRY(checkIndices(ctx, 1));
  int axis;
  GC_TRY(ctx.normalizeAxis(a.axis, data.rank, axis));
  Dims outDims;
  for (int d = 0; d < axis; ++d)
    outDims.push(data.dims[d]);
  if (outDims.rank + indices.rank + data.rank - axis - 1 > kMaxRank)
    return ctx.fail("output rank is too large");
  for (int d = 0; d < indices.rank; ++d)
    outDims.push(indices.dims[d]);
  for (int d = axis + 1; d < data.rank; ++d)
    outDims.push(data.dims[d]);
  GC_TRY(ctx.checkOutput(0, data.dtype, outDims));
  int64_t outer, inner, dim = data.dims[axis];
  GC_TRY(splitAxisBytes(ctx, data, axis, "data", outer, inner));
  int64_t count = numElements(indices);
  const char *src = static_cast<const char *>(data.data);
  char *dst = static_cast<char *>(ctx.out(0).data);
  for (int64_t i = 0; i < count; ++i) {
    int64_t index;
    GC_TRY(resolveIndex(ctx, intAt(indices, i), dim, index));
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + (o * count + i) * inner, src + (o * dim + index) * inner,
                  static_cast<size_t>(inner));
  }
  return 0;
}

GC_KERNEL_ATTRS(gather_elements, GatherElements, a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &data = ctx.in(0), &indices = ctx.in(1);
  GC_TRY(checkIndices(ctx, 1));
  if (indices.rank != data.rank)
    return ctx.fail("indices must have the rank of data");
  int axis;
  GC_TRY(elementsAxis(ctx, data, indices, a.axis, axis));
  GC_TRY(ctx.checkOutput(0, data.dtype, Dims::of(indices)));
  Dims dataStrides = Dims::of(data).strides();
  return dispatchBySize(ctx, data.dtype, "data", [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U *src = static_cast<const U *>(data.data);
    U *dst = static_cast<U *>(ctx.out(0).data);
    int64_t total = numElements(indices);
    int64_t index[kMaxRank] = {};
    for (int64_t i = 0; i < total; ++i) {
      int64_t target;
      GC_TRY(resolveIndex(ctx, intAt(indices, i), data.dims[axis], target));
      int64_t offset = 0;
      for (int d = 0; d < data.rank; ++d)
        offset += (d == axis ? target : index[d]) * dataStrides[d];
      dst[i] = src[offset];
      nextIndex(index, indices.dims, data.rank);
    }
    return 0;
  });
}

GC_KERNEL_ATTRS(gather_nd, GatherNd, a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &data = ctx.in(0), &indices = ctx.in(1);
  if (indices.dtype != GC_DTYPE_I64)
    return ctx.unsupportedDtype("indices", indices.dtype);
  int64_t batchDims = a.batchDims;
  if (indices.rank < 1 || batchDims < 0 || batchDims >= indices.rank ||
      batchDims >= data.rank)
    return ctx.fail("batch_dims must be smaller than both ranks");
  int64_t depth = indices.dims[indices.rank - 1];
  if (depth < 1 || batchDims + depth > data.rank)
    return ctx.fail("index depth %lld does not fit the data rank %d",
                    static_cast<long long>(depth), data.rank);
  int64_t batch = 1;
  for (int d = 0; d < batchDims; ++d) {
    if (indices.dims[d] != data.dims[d])
      return ctx.fail("batch dimension %d differs between data and indices", d);
    batch *= data.dims[d];
  }
  Dims outDims;
  for (int d = 0; d < indices.rank - 1; ++d)
    outDims.push(indices.dims[d]);
  for (int d = static_cast<int>(batchDims + depth); d < data.rank; ++d)
    outDims.push(data.dims[d]);
  GC_TRY(ctx.checkOutput(0, data.dtype, outDims));
  size_t size = gc_dtype_size(data.dtype);
  if (!size)
    return ctx.unsupportedDtype("data", data.dtype);
  Dims dataStrides = Dims::of(data).strides();
  int64_t slice = static_cast<int64_t>(size);
  for (int d = static_cast<int>(batchDims + depth); d < data.rank; ++d)
    slice *= data.dims[d];
  int64_t batchStride = batchDims ? dataStrides[static_cast<int>(batchDims) - 1] : 0;
  int64_t tuples = numElements(indices) / depth;
  int64_t perBatch = batch ? tuples / batch : 0;
  const int64_t *idx = static_cast<const int64_t *>(indices.data);
  const char *src = static_cast<const char *>(data.data);
  char *dst = static_cast<char *>(ctx.out(0).data);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = perBatch ? (t / perBatch) * batchStride : 0;
    for (int64_t k = 0; k < depth; ++k) {
      int d = static_cast<int>(batchDims + k);
      int64_t i;
      GC_TRY(resolveIndex(ctx, idx[t * depth + k], data.dims[d], i));
      offset += i * dataStrides[d];
    }
    std::memcpy(dst + t * slice, src + offset * static_cast<int64_t>(size),
                static_cast<size_t>(slice));
  }
  return 0;
}

GC_KERNEL_ATTRS(one_hot, OneHot, a) {
  GC_TRY(ctx.expect(3, 1));
  const gc_tensor &indices = ctx.in(0), &depthTensor = ctx.in(1),
                  &values = ctx.in(2);
  if (numElements(depthTensor) != 1)
    return ctx.fail("depth must be a scalar");
  if (numElements(values) != 2)
    return ctx.fail("values must hold [off_value, on_value]");
  double depthValue = 0;
  GC_TRY(dispatch<kNumeric>(ctx, depthTensor.dtype, "depth", [&](auto tag) {
    using T = typename decltype(tag)::type;
    depthValue = static_cast<double>(toArith(*static_cast<const T *>(depthTensor.data)));
    return 0;
  }));
  int64_t depth = static_cast<int64_t>(depthValue);
  if (depth < 1)
    return ctx.fail("depth must be positive");
  int outRank = indices.rank + 1;
  if (outRank > kMaxRank)
    return ctx.fail("output rank is too large");
  int axis;
  GC_TRY(ctx.normalizeAxis(a.axis, outRank, axis));
  Dims outDims;
  for (int d = 0, next = 0; d < outRank; ++d)
    outDims.push(d == axis ? depth : indices.dims[next++]);
  GC_TRY(ctx.checkOutput(0, values.dtype, outDims));
  int64_t outer = productOf(outDims.v, axis);
  int64_t inner = productOf(outDims.v + axis + 1, outRank - axis - 1);
  return dispatchBySize(ctx, values.dtype, "values", [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U off = static_cast<const U *>(values.data)[0];
    const U on = static_cast<const U *>(values.data)[1];
    U *out = static_cast<U *>(ctx.out(0).data);
    int64_t total = outDims.product();
    for (int64_t i = 0; i < total; ++i)
      out[i] = off;
    return dispatch<kNumeric>(ctx, indices.dtype, "indices", [&](auto itag) {
      using I = typename decltype(itag)::type;
      const I *idx = static_cast<const I *>(indices.data);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          // Fractional indices truncate; out-of-range ones set nothing.
          int64_t k = static_cast<int64_t>(toArith(idx[o * inner + i]));
          if (k < 0)
            k += depth;
          if (k >= 0 && k < depth)
            out[(o * depth + k) * inner + i] = on;
        }
      return 0;
    });
  });
}
