//===- Pooling.cpp - MaxPool, AveragePool, LpPool, global pools, MaxUnpool ===//
//
// Windows follow the ONNX reference (Window.h). Padded positions never win a
// max and are excluded from averages unless count_include_pad is set.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/Indices.h"
#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/Window.h"
#include "lib/Support/ImageBlocks.h"

#include <cstring>

using namespace graphc::hk;

namespace {

enum class PoolKind { Max, Average, Lp };

/// What a pool computes over each window, from the op's attributes.
struct PoolOp {
  PoolKind kind;
  /// Averages divide by the whole window, padding included.
  bool countPad = false;
  /// The exponent of an Lp pool.
  double p = 0;
  /// A max pool's Indices output (output 1): 0 row-major positions, 1
  /// column-major (storage_order); -1 without it.
  int64_t storageOrder = -1;
};

/// Pools input 0 over the windows `w`.
template <unsigned Set>
int pool(KernelContext &ctx, const PoolOp &op, const Window &w) {
  const gc_tensor &x = ctx.in(0);
  PoolKind kind = op.kind;
  bool countPad = op.countPad;
  double p = op.p;
  Dims outDims;
  outDims.push(x.dims[0]);
  outDims.push(x.dims[1]);
  for (int d = 0; d < w.nd; ++d)
    outDims.push(w.out[d]);
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  bool withIndices = op.storageOrder >= 0;
  if (withIndices)
    GC_TRY(ctx.checkOutput(1, GC_DTYPE_I64, outDims));
  int64_t planes = x.dims[0] * x.dims[1], inSize = w.inSize();
  Dims inStrides = Dims(w.in, w.nd).strides();
  // The column-major strides of storage_order = 1.
  Dims columnStrides = inStrides;
  for (int64_t d = 0, stride = 1; d < w.nd; stride *= w.in[d], ++d)
    columnStrides[static_cast<int>(d)] = stride;
  int64_t *indices =
      withIndices ? static_cast<int64_t *>(ctx.out(1).data) : nullptr;
  return dispatch<Set>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    const T *in = static_cast<const T *>(x.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t plane = 0; plane < planes; ++plane) {
      const T *src = in + plane * inSize;
      forEachIndex(w.out, w.nd, [&](const int64_t *o) {
        A best = std::numeric_limits<A>::lowest();
        if constexpr (std::is_floating_point_v<A>)
          best = -std::numeric_limits<A>::infinity();
        double sum = 0;
        int64_t count = 0;
        // The ONNX reference's index: the first element, then each larger.
        A indexed = best;
        int64_t index = -1;
        forEachIndex(w.kernel, w.nd, [&](const int64_t *k) {
          int64_t offset = 0, columnOffset = 0;
          for (int d = 0; d < w.nd; ++d) {
            int64_t i = o[d] * w.stride[d] - w.padBegin[d] + k[d] * w.dilation[d];
            if (i < 0 || i >= w.in[d])
              return;
            offset += i * inStrides[d];
            columnOffset += i * columnStrides[d];
          }
          A v = toArith(src[offset]);
          ++count;
          if (withIndices && (index < 0 || v > indexed)) {
            indexed = v;
            index =
                plane * inSize + (op.storageOrder == 0 ? offset : columnOffset);
          }
          if (kind == PoolKind::Max)
            best = v > best ? v : best;
          else if (kind == PoolKind::Average)
            sum += static_cast<double>(v);
          else
            sum += std::pow(std::fabs(static_cast<double>(v)), p);
        });
        T result;
        if (kind == PoolKind::Max)
          result = fromArith<T>(best);
        else if (kind == PoolKind::Average)
          result = fromArith<T>(sum / static_cast<double>(
                                          countPad ? w.kernelSize() : count));
        else
          result = fromArith<T>(std::pow(sum, 1.0 / p));
        *out++ = result;
        if (withIndices)
          *indices++ = index;
      });
    }
    return 0;
  });
}

/// MaxPool, AveragePool, LpPool: windows from the attrs struct `a`.
template <unsigned Set, typename Attrs>
int windowPool(KernelContext &ctx, const Attrs &a, const PoolOp &op,
               bool ceilMode) {
  GC_TRY(ctx.expect(1, op.storageOrder >= 0 ? 2 : 1));
  Window w;
  GC_TRY(computeWindow(ctx, a, ctx.in(0), nullptr, ceilMode, w));
  return pool<Set>(ctx, op, w);
}

/// The global pools: one window covering all spatial dims.
template <unsigned Set> int globalPool(KernelContext &ctx, const PoolOp &op) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  if (x.rank < 3)
    return ctx.fail("input must have rank >= 3 ([N, C, spatial...])");
  Window w;
  w.nd = x.rank - 2;
  for (int d = 0; d < w.nd; ++d) {
    w.in[d] = w.kernel[d] = x.dims[d + 2];
    w.stride[d] = w.dilation[d] = w.out[d] = 1;
    w.padBegin[d] = w.padEnd[d] = 0;
  }
  return pool<Set>(ctx, op, w);
}

} // namespace

GC_KERNEL_ATTRS(max_pool, MaxPool, a) {
  // storage_order only affects the Indices output (max_pool_with_indices).
  return windowPool<kFloats | kI8 | kU8>(ctx, a, {PoolKind::Max},
                                         a.ceilMode != 0);
}
GC_KERNEL_ATTRS(max_pool_with_indices, MaxPoolWithIndices, a) {
  if (a.storageOrder != 0 && a.storageOrder != 1)
    return ctx.fail("storage_order must be 0 or 1");
  return windowPool<kFloats | kI8 | kU8>(
      ctx, a, {PoolKind::Max, false, 0, a.storageOrder}, a.ceilMode != 0);
}
GC_KERNEL_ATTRS(average_pool, AveragePool, a) {
  return windowPool<kFloats>(
      ctx, a, {PoolKind::Average, a.countIncludePad != 0}, a.ceilMode != 0);
}
GC_KERNEL_ATTRS(lp_pool, LpPool, a) {
  return windowPool<kFloats>(
      ctx, a, {PoolKind::Lp, false, static_cast<double>(a.p)},
      a.ceilMode != 0);
}
GC_KERNEL(global_average_pool) {
  return globalPool<kFloats>(ctx, {PoolKind::Average});
}
GC_KERNEL(global_max_pool) { return globalPool<kFloats>(ctx, {PoolKind::Max}); }
GC_KERNEL_ATTRS(global_lp_pool, GlobalLpPool, a) {
  return globalPool<kFloats>(ctx,
                             {PoolKind::Lp, false, static_cast<double>(a.p)});
}

/// MaxUnpool: X's values at their flat indices (counting from the end when
/// negative) into the unpooled shape, which is the leading corner of the
/// result; the last of repeated indices wins, as in the ONNX reference.
GC_KERNEL_ATTRS(max_unpool, MaxUnpool, a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0), &indices = ctx.in(1);
  GC_TRY(checkIndices(ctx, 1));
  if (x.rank < 3)
    return ctx.fail("input must have rank >= 3 ([N, C, spatial...])");
  if (indices.rank != x.rank)
    return ctx.fail("indices must have the input's shape");
  for (int d = 0; d < x.rank; ++d)
    if (indices.dims[d] != x.dims[d])
      return ctx.fail("indices must have the input's shape");
  int nd = x.rank - 2;
  const IntList &kernel = a.kernelShape, &pads = a.pads, &strides = a.strides;
  if (kernel.count != nd || (strides.present && strides.count != nd) ||
      (pads.present && pads.count != 2 * nd))
    return ctx.fail("kernel_shape, strides and pads must match the %d spatial "
                    "dims",
                    nd);
  Dims unpooled;
  unpooled.push(x.dims[0]);
  unpooled.push(x.dims[1]);
  for (int d = 0; d < nd; ++d) {
    std::optional<int64_t> dim = graphc::unpooledDim(
        x.dims[d + 2], kernel[d], strides.present ? strides[d] : 1,
        pads.present ? pads[d] : 0, pads.present ? pads[nd + d] : 0);
    if (!dim)
      return ctx.fail("kernel_shape, strides and pads make unpooled dim %d "
                      "invalid",
                      d + 2);
    unpooled.push(*dim);
  }
  Dims outDims = unpooled;
  if (ctx.has(2)) {
    GC_TRY(ctx.readInts(2, outDims, "output_shape"));
    if (outDims.rank != x.rank)
      return ctx.fail("output_shape must have %d entries", x.rank);
    for (int d = 0; d < x.rank; ++d)
      if (d < 2 ? outDims[d] != unpooled[d] : outDims[d] < unpooled[d])
        return ctx.fail("output_shape cannot hold the unpooled shape");
  }
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  std::optional<int64_t> total =
      graphc::checkedElementCount(unpooled.v, x.rank);
  if (!total)
    return ctx.fail("the unpooled shape is too large");
  Dims unpooledStrides = unpooled.strides(), outStrides = outDims.strides();
  size_t size = gc_dtype_size(x.dtype);
  char *out = static_cast<char *>(ctx.out(0).data);
  std::memset(out, 0, static_cast<size_t>(outDims.product()) * size);
  const char *in = static_cast<const char *>(x.data);
  for (int64_t e = 0, n = numElements(x); e < n; ++e) {
    int64_t flat;
    GC_TRY(resolveIndex(ctx, intAt(indices, e), *total, flat));
    int64_t offset = 0;
    for (int d = 0; d < x.rank; ++d)
      offset += (flat / unpooledStrides[d]) % unpooled[d] * outStrides[d];
    std::memcpy(out + offset * static_cast<int64_t>(size),
                in + e * static_cast<int64_t>(size), size);
  }
  return 0;
}
