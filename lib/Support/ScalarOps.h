//===- ScalarOps.h - the scalar semantics of pointwise ops ------*- C++ -*-===//
//
// One element of each pointwise op's result, defined once as a template
// over a builder `b` and operand values `x`. The body is written as the C++
// the CUDA and cpu targets generate: infix operators, b.paren() where the
// text has parentheses, b.cast() for static_cast<compute type>, b.<fn>()
// for the gc_<fn> helpers of the generated code.
//
// Two builders instantiate the bodies:
//  - scalar::Eval<A> (below) evaluates directly in compute type A (float for
//    f16/bf16/f32, double for f64, the integer type for integers): values are
//    native C++ values, so an operator is that operator and a body compiles
//    to the expression the generated code holds. The host kernels, the
//    runtime's reference epilogues and constant folding use it.
//  - scalar::TreeBuilder (ScalarTree.h) records the expression tree that the
//    compiler renders as text (lib/Codegen/ScalarExpr.cpp) or evaluates in
//    double (pad-safety reasoning).
//
// Standard C++ only: the runtime and the host-kernel archive include it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_SCALAROPS_H
#define GRAPHC_LIB_SUPPORT_SCALAROPS_H

#include <cmath>
#include <type_traits>

namespace graphc::scalar {

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// sqrt(2 / pi) and the cubic coefficient of the tanh approximation of GELU,
/// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
inline constexpr double kGeluTanhScale = 0.7978845608028654;
inline constexpr double kGeluTanhCubic = 0.044715;
/// 1 / sqrt(2), the scale of x in the erf form of GELU.
inline constexpr double kSqrtHalf = 0.7071067811865476;

//===----------------------------------------------------------------------===//
// The helper functions of generated code
//===----------------------------------------------------------------------===//

/// X(name): the one-operand gc_<name> helpers of the generated code.
#define GRAPHC_SCALAR_UNARY_FUNCTIONS(X)                                       \
  X(exp)                                                                       \
  X(log) X(log1p) X(sqrt) X(tanh) X(erf) X(sin) X(cos) X(tan) X(asin) X(acos)  \
      X(atan) X(sinh) X(cosh) X(asinh) X(acosh) X(atanh) X(floor) X(ceil)      \
          X(rint) X(fabs) X(isnan) X(isinf)
/// X(name): the two-operand gc_<name> helpers.
#define GRAPHC_SCALAR_BINARY_FUNCTIONS(X)                                      \
  X(max) X(min) X(pow) X(ipow) X(fmod) X(pymod) X(clip_low) X(clip_high)

/// The builder evaluating in compute type A: what the generated code
/// computes, with the host's <cmath> in place of the device's.
template <typename A> struct Eval {
  static constexpr bool isFloat() { return std::is_floating_point_v<A>; }

  /// A literal of the compute type (scalar ops' literals always are).
  A constant(double v) const {
    if constexpr (std::is_same_v<A, bool>)
      return v != 0;
    else if constexpr (std::is_floating_point_v<A>)
      return static_cast<A>(v);
    else
      return static_cast<A>(static_cast<long long>(v));
  }
  bool boolean(bool v) const { return v; }
  template <typename X> X paren(X x) const { return x; }
  template <typename X> A cast(X x) const { return static_cast<A>(x); }
  template <typename X> double castDouble(X x) const {
    return static_cast<double>(x);
  }
  template <typename X> long long castInt64(X x) const {
    return static_cast<long long>(x);
  }
  template <typename X> float castFloat(X x) const {
    return static_cast<float>(x);
  }
  template <typename C, typename X, typename Y>
  auto select(C c, X x, Y y) const {
    return c ? x : y;
  }

  template <typename X> auto exp(X x) const { return std::exp(x); }
  template <typename X> auto log(X x) const { return std::log(x); }
  template <typename X> auto log1p(X x) const { return std::log1p(x); }
  template <typename X> auto sqrt(X x) const { return std::sqrt(x); }
  template <typename X> auto tanh(X x) const { return std::tanh(x); }
  template <typename X> auto erf(X x) const { return std::erf(x); }
  template <typename X> auto sin(X x) const { return std::sin(x); }
  template <typename X> auto cos(X x) const { return std::cos(x); }
  template <typename X> auto tan(X x) const { return std::tan(x); }
  template <typename X> auto asin(X x) const { return std::asin(x); }
  template <typename X> auto acos(X x) const { return std::acos(x); }
  template <typename X> auto atan(X x) const { return std::atan(x); }
  template <typename X> auto sinh(X x) const { return std::sinh(x); }
  template <typename X> auto cosh(X x) const { return std::cosh(x); }
  template <typename X> auto asinh(X x) const { return std::asinh(x); }
  template <typename X> auto acosh(X x) const { return std::acosh(x); }
  template <typename X> auto atanh(X x) const { return std::atanh(x); }
  template <typename X> auto floor(X x) const { return std::floor(x); }
  template <typename X> auto ceil(X x) const { return std::ceil(x); }
  template <typename X> auto rint(X x) const { return std::rint(x); }
  template <typename X> auto fabs(X x) const { return std::fabs(x); }
  template <typename X> bool isnan(X x) const {
    if constexpr (std::is_floating_point_v<X>)
      return std::isnan(x);
    else
      return false;
  }
  template <typename X> bool isinf(X x) const { return std::isinf(x); }

  /// Max/min propagating NaN like numpy (and ONNX Max/Min).
  template <typename X> X max(X a, X b) const {
    return (a > b || isnan(a)) ? a : b;
  }
  template <typename X> X min(X a, X b) const {
    return (a < b || isnan(a)) ? a : b;
  }
  template <typename X> X pow(X a, X b) const { return std::pow(a, b); }
  /// Integer power by squaring; negative exponents follow integer division.
  long long ipow(long long base, long long e) const {
    if (e < 0)
      return base == 1 ? 1 : (base == -1 ? ((e & 1) ? -1 : 1) : 0);
    long long result = 1;
    while (e) {
      if (e & 1)
        result *= base;
      base *= base;
      e >>= 1;
    }
    return result;
  }
  template <typename X> X fmod(X a, X b) const { return std::fmod(a, b); }
  /// Modulo with the sign of the divisor (ONNX Mod with fmod = 0).
  template <typename X> X pymod(X a, X b) const {
    if constexpr (std::is_floating_point_v<X>) {
      X r = std::fmod(a, b);
      return (r != X(0) && ((r < X(0)) != (b < X(0)))) ? r + b : r;
    } else {
      X r = a % b;
      return (r != 0 && ((r < 0) != (b < 0))) ? X(r + b) : r;
    }
  }
  /// Clip's bounds, applied low first.
  template <typename X> X clip_low(X x, X low) const {
    return x < low ? low : x;
  }
  template <typename X> X clip_high(X x, X high) const {
    return x > high ? high : x;
  }
};

//===----------------------------------------------------------------------===//
// Pointwise ops. `x`, `y`: operands in the compute type, then the op's
// attributes in their ODS order: a graph op whose ODS definition names a
// template here (`let scalarDefinition = "softsign"`) gets its
// ScalarComputeOpInterface model and its host kernel generated from it by
// graphc-tblgen, which passes the attributes (I64Attr as int64_t, F32Attr as
// double) in that order.
//===----------------------------------------------------------------------===//

/// The math function of the op's own name: the gc_<fn> helper.
#define GRAPHC_SCALAR_MATH_OP(fn)                                              \
  template <typename B, typename X> auto fn(B &b, X x) { return b.fn(x); }
GRAPHC_SCALAR_MATH_OP(exp)
GRAPHC_SCALAR_MATH_OP(log)
GRAPHC_SCALAR_MATH_OP(sqrt)
GRAPHC_SCALAR_MATH_OP(tanh)
GRAPHC_SCALAR_MATH_OP(erf)
GRAPHC_SCALAR_MATH_OP(floor)
GRAPHC_SCALAR_MATH_OP(ceil)
GRAPHC_SCALAR_MATH_OP(sin)
GRAPHC_SCALAR_MATH_OP(cos)
GRAPHC_SCALAR_MATH_OP(tan)
GRAPHC_SCALAR_MATH_OP(asin)
GRAPHC_SCALAR_MATH_OP(acos)
GRAPHC_SCALAR_MATH_OP(atan)
GRAPHC_SCALAR_MATH_OP(sinh)
GRAPHC_SCALAR_MATH_OP(cosh)
GRAPHC_SCALAR_MATH_OP(asinh)
GRAPHC_SCALAR_MATH_OP(acosh)
GRAPHC_SCALAR_MATH_OP(atanh)
#undef GRAPHC_SCALAR_MATH_OP

/// The C++ infix operator of the op.
#define GRAPHC_SCALAR_INFIX_OP(fn, op)                                         \
  template <typename B, typename X, typename Y> auto fn(B &, X x, Y y) {       \
    return x op y;                                                             \
  }
GRAPHC_SCALAR_INFIX_OP(add, +)
GRAPHC_SCALAR_INFIX_OP(sub, -)
GRAPHC_SCALAR_INFIX_OP(mul, *)
GRAPHC_SCALAR_INFIX_OP(div, /)
GRAPHC_SCALAR_INFIX_OP(equal, ==)
GRAPHC_SCALAR_INFIX_OP(less, <)
GRAPHC_SCALAR_INFIX_OP(lessOrEqual, <=)
GRAPHC_SCALAR_INFIX_OP(greater, >)
GRAPHC_SCALAR_INFIX_OP(greaterOrEqual, >=)
GRAPHC_SCALAR_INFIX_OP(logicalAnd, &&)
GRAPHC_SCALAR_INFIX_OP(logicalOr, ||)
GRAPHC_SCALAR_INFIX_OP(logicalXor, !=)
GRAPHC_SCALAR_INFIX_OP(bitwiseAnd, &)
GRAPHC_SCALAR_INFIX_OP(bitwiseOr, |)
GRAPHC_SCALAR_INFIX_OP(bitwiseXor, ^)
#undef GRAPHC_SCALAR_INFIX_OP

template <typename B, typename X> auto identity(B &, X x) { return x; }

template <typename B, typename X> auto abs(B &b, X x) {
  return b.select(x < b.constant(0), b.cast(-x), x);
}
template <typename B, typename X> auto neg(B &b, X x) { return b.cast(-x); }
template <typename B, typename X> auto reciprocal(B &b, X x) {
  return b.constant(1) / x;
}
template <typename B, typename X> auto relu(B &b, X x) {
  return b.select(x > b.constant(0), x, b.constant(0));
}
template <typename B, typename X> auto leakyRelu(B &b, X x, double alpha) {
  return b.select(x >= b.constant(0), x, b.constant(alpha) * x);
}
template <typename B, typename X> auto sigmoid(B &b, X x) {
  return b.constant(1) / b.paren(b.constant(1) + b.exp(-x));
}
template <typename B, typename X> auto silu(B &b, X x) {
  return x / b.paren(b.constant(1) + b.exp(-x));
}
template <typename B, typename X>
auto hardSigmoid(B &b, X x, double alpha, double beta) {
  return b.max(b.constant(0),
               b.min(b.constant(1), b.constant(alpha) * x + b.constant(beta)));
}
template <typename B, typename X> auto hardSwish(B &b, X x) {
  return x * b.max(b.constant(0),
                   b.min(b.constant(1),
                         b.constant(1.0 / 6.0) * x + b.constant(0.5)));
}
/// GELU, with the tanh approximation or (`useTanh` false) exact, with erf.
template <typename B, typename X> auto gelu(B &b, X x, bool useTanh) {
  auto c = [&](double v) { return b.constant(v); };
  if (useTanh)
    return c(0.5) * x *
           b.paren(c(1) + b.tanh(c(kGeluTanhScale) *
                                 b.paren(x + c(kGeluTanhCubic) * x * x * x)));
  return c(0.5) * x * b.paren(c(1) + b.erf(x * c(kSqrtHalf)));
}
/// log(1 + e^x) without overflow for large x.
template <typename B, typename X> auto softplus(B &b, X x) {
  return b.select(x > b.constant(0), x + b.log1p(b.exp(-x)), b.log1p(b.exp(x)));
}
template <typename B, typename X> auto softsign(B &b, X x) {
  return x / b.paren(b.constant(1) + b.fabs(x));
}
template <typename B, typename X> auto elu(B &b, X x, double alpha) {
  return b.select(x >= b.constant(0), x,
                  b.constant(alpha) * b.paren(b.exp(x) - b.constant(1)));
}
template <typename B, typename X>
auto selu(B &b, X x, double alpha, double gamma) {
  return b.constant(gamma) *
         b.paren(
             b.select(x > b.constant(0), x,
                      b.constant(alpha) * b.paren(b.exp(x) - b.constant(1))));
}
template <typename B, typename X> auto celu(B &b, X x, double alpha) {
  return b.max(b.constant(0), x) +
         b.min(b.constant(0),
               b.constant(alpha) *
                   b.paren(b.exp(x / b.constant(alpha)) - b.constant(1)));
}
template <typename B, typename X>
auto thresholdedRelu(B &b, X x, double alpha) {
  return b.select(x > b.constant(alpha), x, b.constant(0));
}
template <typename B, typename X> auto mish(B &b, X x) {
  return x * b.tanh(softplus(b, x));
}
template <typename B, typename X>
auto shrink(B &b, X x, double bias, double lambd) {
  return b.select(
      x < -b.constant(lambd), b.cast(x + b.constant(bias)),
      b.paren(b.select(x > b.constant(lambd), b.cast(x - b.constant(bias)),
                       b.constant(0))));
}
/// Round halves to even.
template <typename B, typename X> auto round(B &b, X x) { return b.rint(x); }
template <typename B, typename X> auto sign(B &b, X x) {
  return b.cast(b.paren(x > b.constant(0)) - b.paren(x < b.constant(0)));
}
template <typename B, typename X> auto logicalNot(B &, X x) { return !x; }
template <typename B, typename X> auto bitwiseNot(B &, X x) { return ~x; }
template <typename B, typename X> auto isNan(B &b, X x) { return b.isnan(x); }
template <typename B, typename X>
auto isInf(B &b, X x, bool negative, bool positive) {
  if (positive && negative)
    return b.isinf(x) && b.paren(x > b.constant(0) || x < b.constant(0));
  if (positive || negative)
    return b.isinf(x) &&
           b.paren(positive ? x > b.constant(0) : x < b.constant(0));
  return b.boolean(false);
}

/// Pow's exponent may have another type than its base: a float base raises
/// to the exponent converted; an integer base to a float exponent computes in
/// double; integers raise by squaring.
template <typename B, typename X, typename Y>
auto pow(B &b, X x, Y y, bool floatBase, bool floatExponent) {
  if (floatBase)
    return b.pow(x, b.cast(y));
  if (floatExponent)
    return b.pow(b.castDouble(x), b.castDouble(y));
  return b.ipow(b.castInt64(x), b.castInt64(y));
}
/// ONNX Mod: C fmod (fmod = 1; integers: %) or the sign of the divisor.
template <typename B, typename X> auto mod(B &b, X x, X y, bool fmod) {
  if (fmod) {
    if constexpr (std::is_floating_point_v<X>)
      return b.fmod(x, y);
    else if constexpr (std::is_integral_v<X>)
      return static_cast<X>(x % y);
    else
      return b.isFloat() ? b.fmod(x, y) : x % y;
  }
  return b.pymod(x, y);
}
template <typename B, typename X> auto prelu(B &b, X x, X slope) {
  return b.select(x < b.constant(0), x * slope, x);
}
/// min(max(x, lo), hi): with lo > hi every element becomes hi.
template <typename B, typename X>
auto clip(B &b, X x, const X *low, const X *high) {
  if (low)
    x = b.clip_low(x, *low);
  if (high)
    x = b.clip_high(x, *high);
  return x;
}

/// ONNX QuantizeLinear to an integer type of range [low, high], in float:
/// x / scale rounded half to even, plus the zero point, saturated. NaN
/// saturates to `low` (comparisons with NaN are false), so the conversion to
/// the integer type that follows is always in range.
template <typename B, typename X, typename S, typename Z>
auto quantizeLinear(B &b, X x, S scale, Z zeroPoint, double low, double high) {
  auto q = b.rint(x / scale) + b.castFloat(zeroPoint);
  return b.clip_high(b.select(q >= b.constant(low), q, b.constant(low)),
                     b.constant(high));
}
/// ONNX DequantizeLinear from an integer type, in float like the reference:
/// (float(x) - float(zero point)) * scale.
template <typename B, typename X, typename S, typename Z>
auto dequantizeLinear(B &b, X x, S scale, Z zeroPoint) {
  return b.paren(b.castFloat(x) - b.castFloat(zeroPoint)) * b.castFloat(scale);
}

} // namespace graphc::scalar

#endif
