//===- Signal.cpp - DFT host kernel
//-----------------------------------------===//
//
// The reference semantics of graph.dft: a direct O(n^2) sum accumulated in
// double, with the twiddles of angle 2 pi m / n for m = j * k mod n (reduced
// exactly, so that large products keep their precision).
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"

#include <cmath>
#include <vector>

using namespace graphc::hk;

namespace {

/// Reads the optional scalar input `i` (i32 or i64) into `value`.
int readScalar(KernelContext &ctx, int i, const char *what, int64_t &value) {
  if (!ctx.has(i))
    return 0;
  const gc_tensor &t = ctx.in(i);
  if (numElements(t) != 1 || !isIndexDtype(t.dtype))
    return ctx.fail("%s must be a scalar i32 or i64 tensor", what);
  value = intAt(t, 0);
  return 0;
}

} // namespace

GC_KERNEL_ATTRS(dft, Dft, a) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  if (x.rank < 2 || (x.dims[x.rank - 1] != 1 && x.dims[x.rank - 1] != 2))
    return ctx.fail("input must have rank >= 2 and a last dim of 1 (real) or "
                    "2 (complex)");
  int64_t axisValue = -2;
  GC_TRY(readScalar(ctx, 2, "axis", axisValue));
  int axis;
  GC_TRY(ctx.normalizeAxis(axisValue, x.rank, axis));
  if (axis == x.rank - 1)
    return ctx.fail("axis may not be the last (complex) dim");
  int64_t len = x.dims[axis];
  int64_t n = len;
  GC_TRY(readScalar(ctx, 1, "dft_length", n));
  if (n < 1)
    return ctx.fail("dft_length must be positive");
  int64_t bins = a.onesided ? n / 2 + 1 : n;
  Dims outDims = Dims::of(x);
  outDims[axis] = bins;
  outDims[x.rank - 1] = 2;
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  int64_t components = x.dims[x.rank - 1];
  int64_t outer = productOf(x.dims, axis);
  int64_t inner = productOf(x.dims + axis + 1, x.rank - axis - 2);
  int64_t used = std::min(n, len);
  if (outDims.product() == 0)
    return 0;
  // The output holds at least n / 2 + 1 elements, so the table is bounded
  // by what the caller allocated.
  std::vector<double> cosTable(static_cast<size_t>(n)),
      sinTable(static_cast<size_t>(n));
  double sign = a.inverse ? 1.0 : -1.0;
  for (int64_t m = 0; m < n; ++m) {
    double angle = 2.0 * M_PI * static_cast<double>(m) / static_cast<double>(n);
    cosTable[m] = std::cos(angle);
    sinTable[m] = sign * std::sin(angle);
  }
  double scale = a.inverse ? 1.0 / static_cast<double>(n) : 1.0;
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = static_cast<const T *>(x.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < bins; ++k)
        for (int64_t i = 0; i < inner; ++i) {
          double re = 0, im = 0;
          int64_t m = 0; // j * k mod n
          for (int64_t j = 0; j < used; ++j) {
            const T *at = in + ((o * len + j) * inner + i) * components;
            double xr = toArith(at[0]);
            double xi = components == 2 ? double(toArith(at[1])) : 0.0;
            re += xr * cosTable[m] - xi * sinTable[m];
            im += xr * sinTable[m] + xi * cosTable[m];
            m += k % n;
            if (m >= n)
              m -= n;
          }
          T *dst = out + ((o * bins + k) * inner + i) * 2;
          dst[0] = fromArith<T>(re * scale);
          dst[1] = fromArith<T>(im * scale);
        }
    return 0;
  });
}
