//===- Elementwise.cpp - unary elementwise host kernels -------------------===//
//
// One input, one output of the same shape. 16-bit floats compute in float and
// round once when stored; f32 computes in float like the ONNX reference.
// A kernel is its op's definition in lib/Support/ScalarOps.h evaluated in
// the compute type (`scalarMap`), which the generated code computes too, with
// the op's attributes from its generated struct (KernelAttrs.h); most are
// generated from the op definitions (graphc-tblgen
// -gen-host-pointwise-kernels).
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

/// scalarMap for predicates: a bool output.
template <unsigned Set, typename Body>
int scalarPredicate(KernelContext &ctx, Body body) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  GC_TRY(ctx.checkOutput(0, GC_DTYPE_BOOL, Dims::of(x)));
  return dispatch<Set>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    scalar::Eval<A> b;
    const T *in = static_cast<const T *>(x.data);
    bool *out = static_cast<bool *>(ctx.out(0).data);
    for (int64_t i = 0, n = numElements(x); i < n; ++i)
      out[i] = static_cast<bool>(body(b, toArith(in[i])));
    return 0;
  });
}

} // namespace

// The kernels of the unary ops with a scalar definition.
#define GRAPHC_HOST_UNARY_KERNELS
#include "lib/HostKernels/HostPointwiseKernels.inc"
#undef GRAPHC_HOST_UNARY_KERNELS

// The kernels written by hand: ops without a scalar definition (gelu's
// formula is picked by a string, clip's bounds are optional operands) and
// those whose ODS definition says why (scalarHostKernel = 0).









GC_KERNEL_ATTRS(gelu, Gelu, a) {
  bool useTanh = std::strcmp(a.approximate, "tanh") == 0;
  if (!useTanh && std::strcmp(a.approximate, "none") != 0)
    return ctx.fail("unknown approximate mode '%s'", a.approximate);
  return scalarMap<kFloats>(
      ctx, [=](auto &b, auto x) { return scalar::gelu(b, x, useTanh); });
}





GC_KERNEL_ATTRS(celu, Celu, a) {
  if (a.alpha == 0)
    return ctx.fail("alpha must be non-zero");
  return scalarMap<kFloats>(
      ctx, [=](auto &b, auto x) { return scalar::celu(b, x, a.alpha); });
}



// Own formula for integers: compares and offsets in double, where the
// definition does in the integer type.
GC_KERNEL_ATTRS(shrink, Shrink, a) {
  double bias = a.bias, lambd = a.lambd;
  return unaryMap<kNumeric>(ctx, [=](auto x) {
    using A = decltype(x);
    if constexpr (std::is_floating_point_v<A>) {
      scalar::Eval<A> b;
      return scalar::shrink(b, x, bias, lambd);
    }
    using C = std::conditional_t<std::is_same_v<A, float>, float, double>;
    C v = static_cast<C>(x);
    C r = v < C(-lambd) ? v + C(bias) : v > C(lambd) ? v - C(bias) : C(0);
    return fromArith<A>(r);
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
