//===- Quantization.cpp - ONNX quantization kernels -----------------------===//
//
// The reference semantics of graph.quantize_linear and
// graph.dequantize_linear: the ScalarOps.h definitions the targets' fused
// code is made of, evaluated in x's compute type (quantize) or float
// (dequantize), with scale and zero point broadcast to x.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"
#include "lib/Support/ScalarOps.h"

#include <limits>
#include <type_traits>

using namespace graphc::hk;
namespace scalar = graphc::scalar;

namespace {

constexpr unsigned kScaleTypes = kF32 | kF16 | kBF16;
constexpr unsigned kQuantizedTypes = kI8 | kU8 | kI16 | kU16;

/// Calls `fn(x, scale, zeroPoint)` with the data of the three inputs, x's
/// element type from XSet, the scale's from kScaleTypes and the zero point's
/// from ZSet.
template <unsigned XSet, unsigned ZSet, typename Fn>
int forQuantization(KernelContext &ctx, StridedLoop<4> &loop, Fn fn) {
  const gc_tensor &x = ctx.in(0), &scale = ctx.in(1), &zero = ctx.in(2);
  return dispatch<XSet>(ctx, x.dtype, "x", [&](auto xTag) {
    using X = typename decltype(xTag)::type;
    return dispatch<kScaleTypes>(ctx, scale.dtype, "scale", [&](auto sTag) {
      using S = typename decltype(sTag)::type;
      return dispatch<ZSet>(ctx, zero.dtype, "zero point", [&](auto zTag) {
        using Z = typename decltype(zTag)::type;
        return fn(static_cast<const X *>(x.data),
                  static_cast<const S *>(scale.data),
                  static_cast<const Z *>(zero.data));
      });
    });
  });
}

} // namespace

GC_KERNEL(quantize_linear) {
  GC_TRY(ctx.expect(3, 1));
  StridedLoop<4> loop;
  GC_TRY(makeBroadcastLoop<4>(ctx, {&ctx.in(0), &ctx.in(1), &ctx.in(2)},
                              ctx.out(0), loop));
  if (ctx.out(0).dtype != ctx.in(2).dtype)
    return ctx.fail("output dtype differs from the zero point's");
  return forQuantization<kFloats, kQuantizedTypes>(
      ctx, loop, [&](const auto *x, const auto *scale, const auto *zero) {
        using X = std::remove_const_t<std::remove_pointer_t<decltype(x)>>;
        using Z = std::remove_const_t<std::remove_pointer_t<decltype(zero)>>;
        // The compute type of x, as in the targets' code.
        using C = Arith<X>;
        Z *out = static_cast<Z *>(ctx.out(0).data);
        scalar::Eval<C> b;
        constexpr double low = std::numeric_limits<Z>::lowest();
        constexpr double high = std::numeric_limits<Z>::max();
        loop.forEach([&](const int64_t *offsets) {
          C q =
              scalar::quantizeLinear(b, toArith(x[offsets[1]]),
                                     static_cast<C>(toArith(scale[offsets[2]])),
                                     zero[offsets[3]], low, high);
          out[offsets[0]] = static_cast<Z>(q);
        });
        return 0;
      });
}

GC_KERNEL(dequantize_linear) {
  GC_TRY(ctx.expect(3, 1));
  GC_TRY(ctx.checkSameDtype(2, ctx.in(0).dtype, "the zero point"));
  if (ctx.out(0).dtype != ctx.in(1).dtype)
    return ctx.fail("output dtype differs from the scale's");
  StridedLoop<4> loop;
  GC_TRY(makeBroadcastLoop<4>(ctx, {&ctx.in(0), &ctx.in(1), &ctx.in(2)},
                              ctx.out(0), loop));
  return forQuantization<kQuantizedTypes | kI32, kQuantizedTypes | kI32>(
      ctx, loop, [&](const auto *x, const auto *scale, const auto *zero) {
        using S = std::remove_const_t<std::remove_pointer_t<decltype(scale)>>;
        S *out = static_cast<S *>(ctx.out(0).data);
        scalar::Eval<float> b;
        loop.forEach([&](const int64_t *offsets) {
          out[offsets[0]] = fromArith<S>(scalar::dequantizeLinear(
              b, x[offsets[1]], toArith(scale[offsets[2]]), zero[offsets[3]]));
        });
        return 0;
      });
}
