//===- Elementwise.cpp - unary elementwise host kernels -------------------===//
//
// One input, one output of the same shape. 16-bit floats compute in float and
// round once when stored; f32 computes in float like the ONNX reference.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelSupport.h"

#include <algorithm>

using namespace graphc::hk;

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

template <typename A> A softplusOf(A x) {
  // log(1 + e^x) without overflow for large x.
  return x > A(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

} // namespace

GC_KERNEL(abs) {
  return unaryMap<kNumeric>(ctx, [](auto x) {
    using A = decltype(x);
    if constexpr (std::is_unsigned_v<A>)
      return x;
    else
      return x < A(0) ? A(-x) : x;
  });
}

GC_KERNEL(neg) {
  return unaryMap<kFloats | kSigned>(ctx, [](auto x) { return -x; });
}

GC_KERNEL(exp) {
  return unaryMap<kFloats>(ctx, [](auto x) { return std::exp(x); });
}

GC_KERNEL(log) {
  return unaryMap<kFloats>(ctx, [](auto x) { return std::log(x); });
}

GC_KERNEL(sqrt) {
  return unaryMap<kFloats>(ctx, [](auto x) { return std::sqrt(x); });
}

GC_KERNEL(reciprocal) {
  return unaryMap<kFloats>(ctx, [](auto x) { return decltype(x)(1) / x; });
}

GC_KERNEL(relu) {
  return unaryMap<kFloats | kSigned>(ctx, [](auto x) {
    return x > decltype(x)(0) ? x : decltype(x)(0);
  });
}

GC_KERNEL(leaky_relu) {
  double alpha = ctx.getFloat("alpha", 0.01);
  return unaryMap<kFloats>(ctx, [alpha](auto x) {
    using A = decltype(x);
    return x >= A(0) ? x : x * A(alpha);
  });
}

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

GC_KERNEL(hard_sigmoid) {
  double alpha = ctx.getFloat("alpha", 0.2), beta = ctx.getFloat("beta", 0.5);
  return unaryMap<kFloats>(ctx, [=](auto x) {
    using A = decltype(x);
    return std::max(A(0), std::min(A(1), A(alpha) * x + A(beta)));
  });
}

GC_KERNEL(hard_swish) {
  return unaryMap<kFloats>(ctx, [](auto x) {
    using A = decltype(x);
    return x * std::max(A(0), std::min(A(1), x / A(6) + A(0.5)));
  });
}

GC_KERNEL(tanh) {
  return unaryMap<kFloats>(ctx, [](auto x) { return std::tanh(x); });
}

GC_KERNEL(erf) {
  return unaryMap<kFloats>(ctx, [](auto x) { return std::erf(x); });
}

GC_KERNEL(gelu) {
  const char *approximate = ctx.getString("approximate", "none");
  bool useTanh = std::strcmp(approximate, "tanh") == 0;
  if (!useTanh && std::strcmp(approximate, "none") != 0)
    return ctx.fail("unknown approximate mode '%s'", approximate);
  return unaryMap<kFloats>(ctx, [useTanh](auto x) {
    using A = decltype(x);
    if (useTanh) {
      const A k = A(0.79788456080286535588); // sqrt(2 / pi)
      return A(0.5) * x * (A(1) + std::tanh(k * (x + A(0.044715) * x * x * x)));
    }
    return A(0.5) * x * (A(1) + std::erf(x * A(0.70710678118654752440)));
  });
}

GC_KERNEL(softplus) {
  return unaryMap<kFloats>(ctx, [](auto x) { return softplusOf(x); });
}

GC_KERNEL(softsign) {
  return unaryMap<kFloats>(
      ctx, [](auto x) { return x / (decltype(x)(1) + std::fabs(x)); });
}

GC_KERNEL(elu) {
  double alpha = ctx.getFloat("alpha", 1.0);
  return unaryMap<kFloats>(ctx, [alpha](auto x) {
    using A = decltype(x);
    return x < A(0) ? A(alpha) * (std::exp(x) - A(1)) : x;
  });
}

GC_KERNEL(selu) {
  double alpha = ctx.getFloat("alpha", 1.67326319217681884765625);
  double gamma = ctx.getFloat("gamma", 1.05070102214813232421875);
  return unaryMap<kFloats>(ctx, [=](auto x) {
    using A = decltype(x);
    return x > A(0) ? A(gamma) * x
                    : A(gamma) * (A(alpha) * std::exp(x) - A(alpha));
  });
}

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
  return unaryMap<kFloats>(ctx, [alpha](auto x) {
    using A = decltype(x);
    return x > A(alpha) ? x : A(0);
  });
}

GC_KERNEL(mish) {
  return unaryMap<kFloats>(
      ctx, [](auto x) { return x * std::tanh(softplusOf(x)); });
}

GC_KERNEL(shrink) {
  double bias = ctx.getFloat("bias", 0.0), lambd = ctx.getFloat("lambd", 0.5);
  return unaryMap<kNumeric>(ctx, [=](auto x) {
    using A = decltype(x);
    using C = std::conditional_t<std::is_same_v<A, float>, float, double>;
    C v = static_cast<C>(x);
    C r = v < C(-lambd) ? v + C(bias) : v > C(lambd) ? v - C(bias) : C(0);
    return fromArith<A>(r);
  });
}

GC_KERNEL(floor) {
  return unaryMap<kFloats>(ctx, [](auto x) { return std::floor(x); });
}

GC_KERNEL(ceil) {
  return unaryMap<kFloats>(ctx, [](auto x) { return std::ceil(x); });
}

GC_KERNEL(round) {
  // nearbyint rounds halves to even in the default rounding mode.
  return unaryMap<kFloats>(ctx, [](auto x) { return std::nearbyint(x); });
}

GC_KERNEL(sign) {
  return unaryMap<kNumeric>(ctx, [](auto x) {
    using A = decltype(x);
    return x > A(0) ? A(1) : x < A(0) ? A(-1) : A(0);
  });
}

#define GC_FLOAT_FUNCTION_KERNEL(name, fn)                                     \
  GC_KERNEL(name) {                                                            \
    return unaryMap<kFloats>(ctx, [](auto x) { return fn(x); });               \
  }
GC_FLOAT_FUNCTION_KERNEL(sin, std::sin)
GC_FLOAT_FUNCTION_KERNEL(cos, std::cos)
GC_FLOAT_FUNCTION_KERNEL(tan, std::tan)
GC_FLOAT_FUNCTION_KERNEL(asin, std::asin)
GC_FLOAT_FUNCTION_KERNEL(acos, std::acos)
GC_FLOAT_FUNCTION_KERNEL(atan, std::atan)
GC_FLOAT_FUNCTION_KERNEL(sinh, std::sinh)
GC_FLOAT_FUNCTION_KERNEL(cosh, std::cosh)
GC_FLOAT_FUNCTION_KERNEL(asinh, std::asinh)
GC_FLOAT_FUNCTION_KERNEL(acosh, std::acosh)
GC_FLOAT_FUNCTION_KERNEL(atanh, std::atanh)
#undef GC_FLOAT_FUNCTION_KERNEL

GC_KERNEL(not) {
  return unaryMap<kBoolBit>(ctx, [](bool x) { return !x; });
}

GC_KERNEL(bitwise_not) {
  return unaryMap<kInts>(ctx, [](auto x) { return decltype(x)(~x); });
}

GC_KERNEL(is_nan) {
  return floatPredicate(ctx, [](auto x) { return std::isnan(x); });
}

GC_KERNEL(is_inf) {
  bool negative = ctx.getInt("detect_negative", 1) != 0;
  bool positive = ctx.getInt("detect_positive", 1) != 0;
  return floatPredicate(ctx, [=](auto x) {
    return std::isinf(x) && (x > 0 ? positive : negative);
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
