//===- Elementwise.cpp - unary elementwise host kernels -------------------===//
//
// One input, one output of the same shape. 16-bit floats compute in float and
// round once when stored; f32 computes in float like the ONNX reference.
// A kernel is its op's definition in lib/Support/ScalarOps.h evaluated in
// the compute type (`scalarMap`), which the generated code computes too;
// the few marked "own formula" still differ from it.
//
//===----------------------------------------------------------------------===//

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
  double alpha = ctx.getFloat("alpha", 0.01);
  return scalarMap<kFloats>(
      ctx, [=](auto &b, auto x) { return scalar::leakyRelu(b, x, alpha); });
}

// Own formula: two-sided where the definition is 1 / (1 + exp(-x)).
GC_KERNEL(sigmoid) {
  return unaryMap<kFloats>(ctx, [](auto x) {
    using A = decltype(x);
    // Evaluate on the side where exp cannot overflow.
    if (x >= A(0))
      return A(1) / (A(1) + std::exp(-x));
    A e = std::exp(x);
    return e / (A(1) + e);
  });
}

// Own formula: two-sided where the definition is x / (1 + exp(-x)).
GC_KERNEL(silu) {
  return unaryMap<kFloats>(ctx, [](auto x) {
    using A = decltype(x);
    // x * sigmoid(x), the sigmoid on the side where exp cannot overflow.
    if (x >= A(0))
      return x / (A(1) + std::exp(-x));
    A e = std::exp(x);
    return x * e / (A(1) + e);
  });
}

// Own formula: std::max/min, where the definition's max/min propagate NaN.
GC_KERNEL(hard_sigmoid) {
  double alpha = ctx.getFloat("alpha", 0.2), beta = ctx.getFloat("beta", 0.5);
  return unaryMap<kFloats>(ctx, [=](auto x) {
    using A = decltype(x);
    return std::max(A(0), std::min(A(1), A(alpha) * x + A(beta)));
  });
}

// Own formula: x / 6 where the definition has (1 / 6) * x; std::max/min.
GC_KERNEL(hard_swish) {
  return unaryMap<kFloats>(ctx, [](auto x) {
    using A = decltype(x);
    return x * std::max(A(0), std::min(A(1), x / A(6) + A(0.5)));
  });
}

GC_KERNEL(gelu) {
  const char *approximate = ctx.getString("approximate", "none");
  bool useTanh = std::strcmp(approximate, "tanh") == 0;
  if (!useTanh && std::strcmp(approximate, "none") != 0)
    return ctx.fail("unknown approximate mode '%s'", approximate);
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
  double alpha = ctx.getFloat("alpha", 1.0);
  return scalarMap<kFloats>(
      ctx, [=](auto &b, auto x) { return scalar::elu(b, x, alpha); });
}

// Own formula: gamma * (alpha * exp(x) - alpha) where the definition has
// gamma * (alpha * (exp(x) - 1)).
GC_KERNEL(selu) {
  double alpha = ctx.getFloat("alpha", 1.67326319217681884765625);
  double gamma = ctx.getFloat("gamma", 1.05070102214813232421875);
  return unaryMap<kFloats>(ctx, [=](auto x) {
    using A = decltype(x);
    return x > A(0) ? A(gamma) * x
                    : A(gamma) * (A(alpha) * std::exp(x) - A(alpha));
  });
}

// Own formula: std::max/min, where the definition's max/min propagate NaN.
GC_KERNEL(celu) {
  double alpha = ctx.getFloat("alpha", 1.0);
  if (alpha == 0)
    return ctx.fail("alpha must be non-zero");
  return unaryMap<kFloats>(ctx, [alpha](auto x) {
    using A = decltype(x);
    return std::max(A(0), x) +
           std::min(A(0), A(alpha) * (std::exp(x / A(alpha)) - A(1)));
  });
}

GC_KERNEL(thresholded_relu) {
  double alpha = ctx.getFloat("alpha", 1.0);
  return scalarMap<kFloats>(ctx, [=](auto &b, auto x) {
    return scalar::thresholdedRelu(b, x, alpha);
  });
}

GC_KERNEL(mish) {
  return scalarMap<kFloats>(ctx,
                            [](auto &b, auto x) { return scalar::mish(b, x); });
}

// Own formula for integers: compares and offsets in double, where the
// definition does in the integer type.
GC_KERNEL(shrink) {
  double bias = ctx.getFloat("bias", 0.0), lambd = ctx.getFloat("lambd", 0.5);
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
  bool negative = ctx.getInt("detect_negative", 1) != 0;
  bool positive = ctx.getInt("detect_positive", 1) != 0;
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
