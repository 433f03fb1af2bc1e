//===- Softmax.cpp - Softmax, LogSoftmax and Hardmax kernels --------------===//
//
// Opset-13 semantics: the normalisation runs along the single `axis`
// (default -1), every other dimension is independent.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

using namespace graphc::hk;

namespace {

enum class SoftmaxKind { Softmax, LogSoftmax, Hardmax };

/// Softmax, LogSoftmax or Hardmax along the axis of `Attrs`, its op's
/// attributes.
template <typename Attrs> int softmaxLike(KernelContext &ctx, SoftmaxKind kind) {
  Attrs opAttrs;
  GC_TRY(opAttrs.read(ctx));
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  int axis = 0;
  if (x.rank > 0)
    GC_TRY(ctx.normalizeAxis(opAttrs.axis, x.rank, axis));
  return forEachAxisLine<kFloats>(
      ctx, x, axis,
      [&](auto tag, const auto *src, auto *dst, int64_t len, int64_t inner) {
        using T = typename decltype(tag)::type;
        using A = Arith<T>;
        A maxValue = -std::numeric_limits<A>::infinity();
        int64_t argMax = 0;
        for (int64_t k = 0; k < len; ++k) {
          A v = toArith(src[k * inner]);
          if (v > maxValue) {
            maxValue = v;
            argMax = k;
          }
        }
        if (kind == SoftmaxKind::Hardmax) {
          for (int64_t k = 0; k < len; ++k)
            dst[k * inner] = fromArith<T>(A(k == argMax ? 1 : 0));
          return;
        }
        if (std::isinf(maxValue))
          maxValue = 0;
        double sum = 0;
        for (int64_t k = 0; k < len; ++k)
          sum +=
              std::exp(static_cast<double>(toArith(src[k * inner]) - maxValue));
        if (kind == SoftmaxKind::Softmax) {
          for (int64_t k = 0; k < len; ++k)
            dst[k * inner] =
                fromArith<T>(std::exp(static_cast<double>(
                                 toArith(src[k * inner]) - maxValue)) /
                             sum);
        } else {
          double logSum = std::log(sum);
          for (int64_t k = 0; k < len; ++k)
            dst[k * inner] = fromArith<T>(
                static_cast<double>(toArith(src[k * inner]) - maxValue) -
                logSum);
        }
      });
}

} // namespace

GC_KERNEL(softmax) {
  return softmaxLike<attrs::Softmax>(ctx, SoftmaxKind::Softmax);
}
GC_KERNEL(log_softmax) {
  return softmaxLike<attrs::LogSoftmax>(ctx, SoftmaxKind::LogSoftmax);
}
GC_KERNEL(hardmax) {
  return softmaxLike<attrs::Hardmax>(ctx, SoftmaxKind::Hardmax);
}
