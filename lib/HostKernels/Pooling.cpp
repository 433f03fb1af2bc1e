//===- Pooling.cpp - MaxPool, AveragePool, LpPool and global pooling ------===//
//
// Windows follow the ONNX reference (Window.h). Padded positions never win a
// max and are excluded from averages unless count_include_pad is set.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/Window.h"

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
  int64_t planes = x.dims[0] * x.dims[1], inSize = w.inSize();
  Dims inStrides = Dims(w.in, w.nd).strides();
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
        forEachIndex(w.kernel, w.nd, [&](const int64_t *k) {
          int64_t offset = 0;
          for (int d = 0; d < w.nd; ++d) {
            int64_t i = o[d] * w.stride[d] - w.padBegin[d] + k[d] * w.dilation[d];
            if (i < 0 || i >= w.in[d])
              return;
            offset += i * inStrides[d];
          }
          A v = toArith(src[offset]);
          ++count;
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
      });
    }
    return 0;
  });
}

/// MaxPool, AveragePool, LpPool: windows from the attrs struct `a`.
template <unsigned Set, typename Attrs>
int windowPool(KernelContext &ctx, const Attrs &a, const PoolOp &op,
               bool ceilMode) {
  GC_TRY(ctx.expect(1, 1));
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
  // storage_order only affects the Indices output, which is not modelled.
  return windowPool<kFloats | kI8 | kU8>(ctx, a, {PoolKind::Max},
                                         a.ceilMode != 0);
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
