//===- Cast.cpp - dtype conversion host kernel -----------------------------===//
//
// Cast and CastLike. Floats to integers truncate toward zero, anything to bool
// compares with zero, and narrowing to f16/bf16 rounds to nearest even (f64
// narrows in a single rounding).
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

using namespace graphc::hk;

GC_KERNEL_ATTRS(cast, Cast, a) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  gc_tensor &y = ctx.out(0);
  int64_t to = a.to;
  if (to != y.dtype)
    return ctx.fail("attribute 'to' (%lld) does not match the output dtype %d",
                    static_cast<long long>(to), y.dtype);
  GC_TRY(ctx.checkOutput(0, y.dtype, Dims::of(x)));
  int64_t n = numElements(x);
  return dispatch<kAll>(ctx, x.dtype, "input", [&](auto fromTag) {
    using From = typename decltype(fromTag)::type;
    return dispatch<kAll>(ctx, y.dtype, "output", [&](auto toTag) {
      using To = typename decltype(toTag)::type;
      const From *in = static_cast<const From *>(x.data);
      To *out = static_cast<To *>(y.data);
      for (int64_t i = 0; i < n; ++i)
        out[i] = convertValue<To>(in[i]);
      return 0;
    });
  });
}
