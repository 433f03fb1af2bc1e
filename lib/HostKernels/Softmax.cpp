//===- Softmax.cpp - Softmax, LogSoftmax and Hardmax kernels --------------===//
//
// Opset-13 semantics: the normalisation runs along the single `axis`
// (default -1), every other dimension is independent.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelSupport.h"

using namespace graphc::hk;

namespace {

enum class SoftmaxKind { Softmax, LogSoftmax, Hardmax };

int softmaxLike(KernelContext &ctx, SoftmaxKind kind) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  int axis = 0;
  if (x.rank > 0)
    GC_TRY(ctx.normalizeAxis(ctx.getInt("axis", -1), x.rank, axis));
  int64_t outer, len, inner;
  splitAxis(x, axis, outer, len, inner);
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    const T *in = static_cast<const T *>(x.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const T *src = in + o * len * inner + i;
        T *dst = out + o * len * inner + i;
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
          continue;
        }
        if (std::isinf(maxValue))
          maxValue = 0;
        double sum = 0;
        for (int64_t k = 0; k < len; ++k)
          sum += std::exp(static_cast<double>(toArith(src[k * inner]) - maxValue));
        if (kind == SoftmaxKind::Softmax) {
          for (int64_t k = 0; k < len; ++k)
            dst[k * inner] = fromArith<T>(
                std::exp(static_cast<double>(toArith(src[k * inner]) - maxValue)) /
                sum);
        } else {
          double logSum = std::log(sum);
          for (int64_t k = 0; k < len; ++k)
            dst[k * inner] = fromArith<T>(
                static_cast<double>(toArith(src[k * inner]) - maxValue) - logSum);
        }
      }
    return 0;
  });
}

} // namespace

GC_KERNEL(softmax) { return softmaxLike(ctx, SoftmaxKind::Softmax); }
GC_KERNEL(log_softmax) { return softmaxLike(ctx, SoftmaxKind::LogSoftmax); }
GC_KERNEL(hardmax) { return softmaxLike(ctx, SoftmaxKind::Hardmax); }
