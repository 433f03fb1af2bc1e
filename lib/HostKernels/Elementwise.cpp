//===- Elementwise.cpp - unary elementwise host kernels -------------------===//
//
// One input, one output of the same shape. 16-bit floats compute in float and
// round once when stored; f32 computes in float like the ONNX reference.
// A kernel is its op's definition in lib/Support/ScalarOps.h evaluated in
// the compute type (`scalarMap`), which the generated code computes too, with
// the op's attributes from its generated struct (KernelAttrs.h).
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"
#include "lib/Support/ScalarOps.h"

#include <algorithm>

using namespace graphc::hk;
namespace scalar = graphc::scalar;

namespace {

/// Maps `f` over input 0 into output 0 (same dtype and shape) in the storage
/// types of `Set`; `f` receives and returns the arithmetic type.
template <unsigned Set, typename F> int unaryMap(KernelContext &ctx, F f) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  return dispatch<Set>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = static_cast<const T *>(x.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t i = 0, n = numElements(x); i < n; ++i)
      out[i] = fromArith<T>(f(toArith(in[i])));
    return 0;
  });
}

/// unaryMap of `body(b, x)`, an op's ScalarOps.h definition evaluated in
/// the arithmetic type.
template <unsigned Set, typename Body>
int scalarMap(KernelContext &ctx, Body body) {
  return unaryMap<Set>(ctx, [&](auto x) {
    using A = decltype(x);
    scalar::Eval<A> b;
    return static_cast<A>(body(b, x));
  });
}

/// Like unaryMap for predicates: float input, bool output.
template <typename F> int floatPredicate(KernelContext &ctx, F f) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  GC_TRY(ctx.checkOutput(0, GC_DTYPE_BOOL, Dims::of(x)));
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = static_cast<const T *>(x.data);
    bool *out = static_cast<bool *>(ctx.out(0).data);
    for (int64_t i = 0, n = numElements(x); i < n; ++i)
      out[i] = f(toArith(in[i]));
    return 0;
  });
}

} // namespace

GC_KERNEL(abs) {
  return scalarMap<kNumeric>(ctx,
                             [](auto &b, auto x) { return scalar::abs(b, x); });
}

GC_KERNEL(neg) {
  return scalarMap<kFloats | kSigned>(
      ctx, [](auto &b, auto x) { return scalar::neg(b, x); });
}

GC_KERNEL(reciprocal) {
  return scalarMap<kFloats>(
      ctx, [](auto &b, auto x) { return scalar::reciprocal(b, x); });
}

GC_KERNEL(relu) {
  return scalarMap<kFloats | kSigned>(
      ctx, [](auto &b, auto x) { return scalar::relu(b, x); });
}

GC_KERNEL(leaky_relu) {
  attrs::LeakyRelu a;
  GC_TRY(a.read(ctx));
  return scalarMap<kFloats>(
      ctx, [=](auto &b, auto x) { return scalar::leakyRelu(b, x, a.alpha); });
}

GC_KERNEL(sigmoid) {
  return scalarMap<kFloats>(
      ctx, [](auto &b, auto x) { return scalar::sigmoid(b, x); });
}

GC_KERNEL(silu) {
  return scalarMap<kFloats>(ctx,
                            [](auto &b, auto x) { return scalar::silu(b, x); });
}

GC_KERNEL(hard_sigmoid) {
  attrs::HardSigmoid a;
  GC_TRY(a.read(ctx));
  return scalarMap<kFloats>(ctx, [=](auto &b, auto x) {
    return scalar::hardSigmoid(b, x, a.alpha, a.beta);
  });
}

GC_KERNEL(hard_swish) {
  return scalarMap<kFloats>(
      ctx, [](auto &b, auto x) { return scalar::hardSwish(b, x); });
}

GC_KERNEL(gelu) {
  attrs::Gelu a;
  GC_TRY(a.read(ctx));
  bool useTanh = std::strcmp(a.approximate, "tanh") == 0;
  if (!useTanh && std::strcmp(a.approximate, "none") != 0)
    return ctx.fail("unknown approximate mode '%s'", a.approximate);
  return scalarMap<kFloats>(
      ctx, [=](auto &b, auto x) { return scalar::gelu(b, x, useTanh); });
}

GC_KERNEL(softplus) {
  return scalarMap<kFloats>(
      ctx, [](auto &b, auto x) { return scalar::softplus(b, x); });
}

GC_KERNEL(softsign) {
  return scalarMap<kFloats>(
      ctx, [](auto &b, auto x) { return scalar::softsign(b, x); });
}

GC_KERNEL(elu) {
  attrs::Elu a;
  GC_TRY(a.read(ctx));
  return scalarMap<kFloats>(
      ctx, [=](auto &b, auto x) { return scalar::elu(b, x, a.alpha); });
}

GC_KERNEL(selu) {
  attrs::Selu a;
  GC_TRY(a.read(ctx));
  return scalarMap<kFloats>(ctx, [=](auto &b, auto x) {
    return scalar::selu(b, x, a.alpha, a.gamma);
  });
}

GC_KERNEL(celu) {
  attrs::Celu a;
  GC_TRY(a.read(ctx));
  if (a.alpha == 0)
    return ctx.fail("alpha must be non-zero");
  return scalarMap<kFloats>(
      ctx, [=](auto &b, auto x) { return scalar::celu(b, x, a.alpha); });
}

GC_KERNEL(thresholded_relu) {
  attrs::ThresholdedRelu a;
  GC_TRY(a.read(ctx));
  return scalarMap<kFloats>(ctx, [=](auto &b, auto x) {
    return scalar::thresholdedRelu(b, x, a.alpha);
  });
}

GC_KERNEL(mish) {
  return scalarMap<kFloats>(ctx,
                            [](auto &b, auto x) { return scalar::mish(b, x); });
}

// Own formula for integers: compares and offsets in double, where the
// definition does in the integer type.
GC_KERNEL(shrink) {
  attrs::Shrink a;
  GC_TRY(a.read(ctx));
  double bias = a.bias, lambd = a.lambd;
  return unaryMap<kNumeric>(ctx, [=](auto x) {
    using A = decltype(x);
    if constexpr (std::is_floating_point_v<A>) {
      scalar::Eval<A> b;
      return scalar::shrink(b, x, lambd, bias);
    }
    using C = std::conditional_t<std::is_same_v<A, float>, float, double>;
    C v = static_cast<C>(x);
    C r = v < C(-lambd) ? v + C(bias) : v > C(lambd) ? v - C(bias) : C(0);
    return fromArith<A>(r);
  });
}

GC_KERNEL(round) {
  return scalarMap<kFloats>(
      ctx, [](auto &b, auto x) { return scalar::round(b, x); });
}

GC_KERNEL(sign) {
  return scalarMap<kNumeric>(
      ctx, [](auto &b, auto x) { return scalar::sign(b, x); });
}

// The math function of the op's own name.
#define GC_FLOAT_FUNCTION_KERNEL(name)                                         \
  GC_KERNEL(name) {                                                            \
    return scalarMap<kFloats>(ctx, [](auto &b, auto x) { return b.name(x); }); \
  }
GC_FLOAT_FUNCTION_KERNEL(exp)
GC_FLOAT_FUNCTION_KERNEL(log)
GC_FLOAT_FUNCTION_KERNEL(sqrt)
GC_FLOAT_FUNCTION_KERNEL(tanh)
GC_FLOAT_FUNCTION_KERNEL(erf)
GC_FLOAT_FUNCTION_KERNEL(floor)
GC_FLOAT_FUNCTION_KERNEL(ceil)
GC_FLOAT_FUNCTION_KERNEL(sin)
GC_FLOAT_FUNCTION_KERNEL(cos)
GC_FLOAT_FUNCTION_KERNEL(tan)
GC_FLOAT_FUNCTION_KERNEL(asin)
GC_FLOAT_FUNCTION_KERNEL(acos)
GC_FLOAT_FUNCTION_KERNEL(atan)
GC_FLOAT_FUNCTION_KERNEL(sinh)
GC_FLOAT_FUNCTION_KERNEL(cosh)
GC_FLOAT_FUNCTION_KERNEL(asinh)
GC_FLOAT_FUNCTION_KERNEL(acosh)
GC_FLOAT_FUNCTION_KERNEL(atanh)
#undef GC_FLOAT_FUNCTION_KERNEL

GC_KERNEL(not ) {
  return scalarMap<kBoolBit>(
      ctx, [](auto &b, auto x) { return scalar::logicalNot(b, x); });
}

GC_KERNEL(bitwise_not) {
  return scalarMap<kInts>(
      ctx, [](auto &b, auto x) { return scalar::bitwiseNot(b, x); });
}

GC_KERNEL(is_nan) {
  return floatPredicate(ctx, [](auto x) {
    scalar::Eval<decltype(x)> b;
    return scalar::isNan(b, x);
  });
}

GC_KERNEL(is_inf) {
  attrs::IsInf a;
  GC_TRY(a.read(ctx));
  bool negative = a.detectNegative != 0;
  bool positive = a.detectPositive != 0;
  return floatPredicate(ctx, [=](auto x) {
    scalar::Eval<decltype(x)> b;
    return scalar::isInf(b, x, positive, negative);
  });
}

GC_KERNEL(identity) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  size_t bytes = numElements(x) * gc_dtype_size(x.dtype);
  if (bytes && gc_dtype_size(x.dtype) == 0)
    return ctx.unsupportedDtype("input", x.dtype);
  if (bytes)
    std::memmove(ctx.out(0).data, x.data, bytes);
  return 0;
}

GC_KERNEL(clip) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  for (int slot = 1; slot <= 2; ++slot) {
    if (!ctx.has(slot))
      continue;
    if (numElements(ctx.in(slot)) != 1)
      return ctx.fail("input %d (%s) must be a scalar", slot,
                      slot == 1 ? "min" : "max");
    GC_TRY(ctx.checkSameDtype(slot, x.dtype, slot == 1 ? "min" : "max"));
  }
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  return dispatch<kNumeric>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    A lo = std::numeric_limits<A>::lowest(), hi = std::numeric_limits<A>::max();
    if constexpr (std::is_floating_point_v<A>) {
      lo = -std::numeric_limits<A>::infinity();
      hi = std::numeric_limits<A>::infinity();
    }
    if (ctx.has(1))
      lo = toArith(static_cast<const T *>(ctx.in(1).data)[0]);
    if (ctx.has(2))
      hi = toArith(static_cast<const T *>(ctx.in(2).data)[0]);
    const T *in = static_cast<const T *>(x.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t i = 0, n = numElements(x); i < n; ++i) {
      A v = toArith(in[i]);
      // min(max(x, lo), hi) as in ONNX: hi wins when lo > hi.
      v = v < lo ? lo : v;
      v = v > hi ? hi : v;
      out[i] = fromArith<T>(v);
    }
    return 0;
  });
}
