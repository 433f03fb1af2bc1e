//===- Binary.cpp - broadcasting binary, ternary and variadic kernels -----===//
//
// Numpy broadcasting throughout; the output is preallocated with the
// broadcast shape and checked against it. Integer division and modulo by
// zero produce 0 rather than trapping, since folding runs in the compiler.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"
#include "lib/Support/ScalarOps.h"

#include <utility>
#include <vector>

using namespace graphc::hk;
namespace scalar = graphc::scalar;

namespace {

/// out = f(a, b) over inputs 0 and 1 broadcast to the output, for the input
/// dtypes in Set; `f(T, T)` returns an element of the output's type.
template <unsigned Set, typename F>
int broadcastBinary(KernelContext &ctx, F f) {
  const gc_tensor &a = ctx.in(0), &b = ctx.in(1);
  StridedLoop<3> loop;
  GC_TRY(makeBroadcastLoop<3>(ctx, {&a, &b}, ctx.out(0), loop));
  return dispatch<Set>(ctx, a.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = decltype(f(std::declval<T>(), std::declval<T>()));
    binaryLoop(loop, static_cast<R *>(ctx.out(0).data),
               static_cast<const T *>(a.data), static_cast<const T *>(b.data),
               [&](T x, T y) { return f(x, y); });
    return 0;
  });
}

/// out = f(a, b) with one dtype for both inputs and the output.
template <unsigned Set, typename F> int binaryArith(KernelContext &ctx, F f) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &a = ctx.in(0);
  GC_TRY(ctx.checkSameDtype(1, a.dtype, "input 1"));
  if (ctx.out(0).dtype != a.dtype)
    return ctx.fail("output dtype %d differs from the input dtype %d",
                    ctx.out(0).dtype, a.dtype);
  return broadcastBinary<Set>(ctx, [&](auto x, auto y) {
    return fromArith<decltype(x)>(f(toArith(x), toArith(y)));
  });
}

/// out = f(a, b) into a bool tensor.
template <unsigned Set, typename F> int compare(KernelContext &ctx, F f) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &a = ctx.in(0);
  GC_TRY(ctx.checkSameDtype(1, a.dtype, "input 1"));
  if (ctx.out(0).dtype != GC_DTYPE_BOOL)
    return ctx.fail("output must be a bool tensor");
  return broadcastBinary<Set>(
      ctx, [&](auto x, auto y) -> bool { return f(toArith(x), toArith(y)); });
}

/// binaryArith of `body(b, x, y)`, an op's ScalarOps.h definition evaluated
/// in the arithmetic type.
template <unsigned Set, typename Body>
int scalarBinary(KernelContext &ctx, Body body) {
  return binaryArith<Set>(ctx, [&](auto x, auto y) {
    scalar::Eval<decltype(x)> b;
    return body(b, x, y);
  });
}

/// compare of `body(b, x, y)`.
template <unsigned Set, typename Body>
int scalarCompare(KernelContext &ctx, Body body) {
  return compare<Set>(ctx, [&](auto x, auto y) {
    scalar::Eval<decltype(x)> b;
    return static_cast<bool>(body(b, x, y));
  });
}

template <typename A> A maxOf(A a, A b) {
  if constexpr (std::is_floating_point_v<A>)
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<A>::quiet_NaN();
  return a < b ? b : a;
}
template <typename A> A minOf(A a, A b) {
  if constexpr (std::is_floating_point_v<A>)
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<A>::quiet_NaN();
  return b < a ? b : a;
}

/// Integer exponentiation by squaring; negative exponents truncate to 0
/// except for bases 1 and -1.
template <typename I, typename E> I intPow(I base, E exponent) {
  if (exponent < 0) {
    if (base == 1)
      return 1;
    if constexpr (std::is_signed_v<I>)
      if (base == -1)
        return (exponent % 2) ? I(-1) : I(1);
    return 0;
  }
  I result = 1;
  while (exponent) {
    if (exponent & 1)
      result = static_cast<I>(result * base);
    base = static_cast<I>(base * base);
    exponent >>= 1;
  }
  return result;
}

/// Folds the variadic inputs pairwise into the output, left to right.
template <unsigned Set, typename F>
int variadicFold(KernelContext &ctx, F f, bool divideByCount) {
  if (ctx.numInputs < 1)
    return ctx.fail("expected at least 1 input");
  GC_TRY(ctx.expect(ctx.numInputs, 1));
  const gc_tensor &first = ctx.in(0);
  // As many inputs as the model gives (ONNX sets no limit).
  std::vector<const gc_tensor *> all(ctx.numInputs);
  for (int k = 0; k < ctx.numInputs; ++k) {
    GC_TRY(ctx.checkSameDtype(k, first.dtype, "every input"));
    all[k] = &ctx.in(k);
  }
  Dims shape;
  GC_TRY(broadcastShapes(ctx, all.data(), ctx.numInputs, shape));
  GC_TRY(ctx.checkOutput(0, first.dtype, shape));
  gc_tensor &out = ctx.out(0);
  return dispatch<Set>(ctx, first.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *o = static_cast<T *>(out.data);
    StridedLoop<2> copy;
    fillBroadcastLoop<2>({&first}, shape, copy);
    const T *src = static_cast<const T *>(first.data);
    copy.forEach([&](const int64_t *offsets) { o[offsets[0]] = src[offsets[1]]; });
    for (int k = 1; k < ctx.numInputs; ++k) {
      StridedLoop<3> loop;
      const gc_tensor *pair[2] = {&out, all[k]};
      GC_TRY(makeBroadcastLoop<3>(ctx, {pair[0], pair[1]}, out, loop));
      binaryLoop(loop, o, static_cast<const T *>(o),
                 static_cast<const T *>(all[k]->data), [&](T x, T y) {
                   return fromArith<T>(f(toArith(x), toArith(y)));
                 });
    }
    if (divideByCount) {
      using A = Arith<T>;
      for (int64_t i = 0, n = shape.product(); i < n; ++i)
        o[i] = fromArith<T>(toArith(o[i]) / static_cast<A>(ctx.numInputs));
    }
    return 0;
  });
}

} // namespace

// The kernels of the binary ops with a scalar definition.
#define GRAPHC_HOST_BINARY_KERNELS
#include "lib/HostKernels/HostPointwiseKernels.inc"
#undef GRAPHC_HOST_BINARY_KERNELS

// The kernels written by hand: ops without a scalar definition (pow's
// exponent type, bit_shift's direction string, where's three operands, the
// variadic ones) and those whose ODS definition says why (scalarHostKernel =
// 0).



GC_KERNEL(div) {
  return binaryArith<kNumeric>(ctx, [](auto x, auto y) {
    using A = decltype(x);
    if constexpr (std::is_integral_v<A>) {
      if (y == A(0))
        return A(0);
      if constexpr (std::is_signed_v<A>)
        if (y == A(-1))
          return static_cast<A>(-static_cast<std::make_unsigned_t<A>>(x));
    }
    return static_cast<A>(x / y);
  });
}

GC_KERNEL_ATTRS(mod, Mod, a) {
  bool useFmod = a.fmod != 0;
  return binaryArith<kNumeric>(ctx, [useFmod](auto x, auto y) {
    using A = decltype(x);
    if constexpr (std::is_floating_point_v<A>) {
      A r = std::fmod(x, y);
      // Python-style modulo takes the sign of the divisor.
      if (!useFmod && r != A(0) && ((r < A(0)) != (y < A(0))))
        r += y;
      return r;
    } else {
      if (y == A(0))
        return A(0);
      if constexpr (std::is_signed_v<A>) {
        if (y == A(-1))
          return A(0);
        A r = static_cast<A>(x % y);
        if (!useFmod && r != 0 && ((r < 0) != (y < 0)))
          r = static_cast<A>(r + y);
        return r;
      } else {
        return static_cast<A>(x % y);
      }
    }
  });
}

GC_KERNEL(pow) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &a = ctx.in(0), &b = ctx.in(1);
  if (ctx.out(0).dtype != a.dtype)
    return ctx.fail("output dtype must match the base dtype");
  StridedLoop<3> loop;
  GC_TRY(makeBroadcastLoop<3>(ctx, {&a, &b}, ctx.out(0), loop));
  constexpr unsigned kPowTypes = kFloats | kI32 | kI64;
  return dispatch<kPowTypes>(ctx, a.dtype, "base", [&](auto baseTag) {
    using T = typename decltype(baseTag)::type;
    return dispatch<kNumeric>(ctx, b.dtype, "exponent", [&](auto expTag) {
      using E = typename decltype(expTag)::type;
      binaryLoop(loop, static_cast<T *>(ctx.out(0).data),
                 static_cast<const T *>(a.data),
                 static_cast<const E *>(b.data), [](T x, E y) {
                   auto base = toArith(x);
                   auto exponent = toArith(y);
                   using BA = decltype(base);
                   using EA = decltype(exponent);
                   if constexpr (std::is_integral_v<BA> &&
                                 std::is_integral_v<EA>)
                     return intPow(base, exponent);
                   else if constexpr (std::is_same_v<BA, float> &&
                                      !std::is_same_v<EA, double>)
                     return fromArith<T>(
                         std::pow(base, static_cast<float>(exponent)));
                   else
                     return fromArith<T>(std::pow(static_cast<double>(base),
                                                  static_cast<double>(exponent)));
                 });
      return 0;
    });
  });
}










GC_KERNEL_ATTRS(bit_shift, BitShift, a) {
  const char *direction = a.direction;
  bool left = std::strcmp(direction, "LEFT") == 0;
  if (!left && std::strcmp(direction, "RIGHT") != 0)
    return ctx.fail("direction must be LEFT or RIGHT, got '%s'", direction);
  return binaryArith<kUnsigned>(ctx, [left](auto x, auto y) {
    using A = decltype(x);
    // Shifting by the bit width or more clears every bit.
    if (y >= A(sizeof(A) * 8))
      return A(0);
    return left ? A(x << y) : A(x >> y);
  });
}




GC_KERNEL(where) {
  GC_TRY(ctx.expect(3, 1));
  const gc_tensor &cond = ctx.in(0), &x = ctx.in(1), &y = ctx.in(2);
  if (cond.dtype != GC_DTYPE_BOOL)
    return ctx.unsupportedDtype("condition", cond.dtype);
  GC_TRY(ctx.checkSameDtype(2, x.dtype, "input 2"));
  if (ctx.out(0).dtype != x.dtype)
    return ctx.fail("output dtype differs from the input dtype");
  StridedLoop<4> loop;
  GC_TRY(makeBroadcastLoop<4>(ctx, {&cond, &x, &y}, ctx.out(0), loop));
  return dispatch<kAll>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *o = static_cast<T *>(ctx.out(0).data);
    const bool *c = static_cast<const bool *>(cond.data);
    const T *px = static_cast<const T *>(x.data);
    const T *py = static_cast<const T *>(y.data);
    loop.forEach([&](const int64_t *offsets) {
      o[offsets[0]] = c[offsets[1]] ? px[offsets[2]] : py[offsets[3]];
    });
    return 0;
  });
}

GC_KERNEL(sum) {
  return variadicFold<kFloats | kInts>(
      ctx, [](auto x, auto y) { return x + y; }, false);
}

GC_KERNEL(mean) {
  return variadicFold<kFloats>(
      ctx, [](auto x, auto y) { return x + y; }, true);
}

GC_KERNEL(max) {
  return variadicFold<kNumeric>(
      ctx, [](auto x, auto y) { return maxOf(x, y); }, false);
}

GC_KERNEL(min) {
  return variadicFold<kNumeric>(
      ctx, [](auto x, auto y) { return minOf(x, y); }, false);
}
