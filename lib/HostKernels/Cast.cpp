//===- Cast.cpp - dtype conversion host kernel
//-----------------------------===//
//
// Cast and CastLike. Floats to integers truncate toward zero, anything to bool
// compares with zero, and narrowing to f16/bf16 rounds to nearest even (f64
// narrows in a single rounding). 8-bit floats go through float
// (lib/Support/Float8.h), as ONNX's reference does, with the `saturate`
// attribute.
//
//===----------------------------------------------------------------------===//

#include "lib/Artifact/OnnxDtype.h"
#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"
#include "lib/Support/Float8.h"

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
  bool fromF8 = graphc::rt::isFloat8Dtype(x.dtype),
       toF8 = graphc::rt::isFloat8Dtype(y.dtype);
  if (fromF8 || toF8) {
    // Any storage type <-> float <-> 8-bit float.
    auto load = [&](auto fromTag, int64_t i) -> float {
      using From = typename decltype(fromTag)::type;
      if constexpr (std::is_same_v<From, uint8_t>)
        if (fromF8)
          return graphc::gc_f8_to_float(
              x.dtype, static_cast<const uint8_t *>(x.data)[i]);
      return static_cast<float>(toArith(static_cast<const From *>(x.data)[i]));
    };
    auto convert = [&](auto fromTag) {
      return dispatch<kAll>(
          ctx, toF8 ? GC_DTYPE_U8 : y.dtype, "output", [&](auto toTag) {
            using To = typename decltype(toTag)::type;
            To *out = static_cast<To *>(y.data);
            for (int64_t i = 0; i < n; ++i) {
              float v = load(fromTag, i);
              if constexpr (std::is_same_v<To, uint8_t>)
                if (toF8) {
                  out[i] =
                      graphc::gc_f8_from_float(y.dtype, v, a.saturate != 0);
                  continue;
                }
              out[i] = fromArith<To>(v);
            }
            return 0;
          });
    };
    return dispatch<kAll>(ctx, fromF8 ? GC_DTYPE_U8 : x.dtype, "input",
                          convert);
  }
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
