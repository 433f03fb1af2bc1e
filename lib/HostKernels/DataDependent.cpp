//===- DataDependent.cpp - NonZero, Compress host kernels -----------------===//
//
// Ops whose result extents the run decides. Each writes its result as a
// tensor of the output's (bound) dims whose leading corner holds the
// result, zeros elsewhere, and its last output, an i64 scalar, the extent
// it found (GraphDataDependentOps.td).
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

#include <cstring>

using namespace graphc::hk;

namespace {
int checkCount(KernelContext &ctx, int output) {
  const gc_tensor &count = ctx.out(output);
  if (count.dtype != GC_DTYPE_I64 || numElements(count) != 1)
    return ctx.fail("the count output must be one i64 element");
  return 0;
}
} // namespace

GC_KERNEL(non_zero) {
  GC_TRY(ctx.expect(1, 2));
  const gc_tensor &x = ctx.in(0);
  gc_tensor &indices = ctx.out(0);
  GC_TRY(checkCount(ctx, 1));
  if (indices.dtype != GC_DTYPE_I64 || indices.rank != 2 ||
      indices.dims[0] != x.rank)
    return ctx.fail("indices must be i64 [%d, bound]", x.rank);
  int64_t bound = indices.dims[1], total = numElements(x);
  auto *out = static_cast<int64_t *>(indices.data);
  std::memset(out, 0, sizeof(int64_t) * x.rank * bound);
  int64_t found = 0;
  GC_TRY(dispatch<kAll>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = static_cast<const T *>(x.data);
    Dims at;
    at.rank = x.rank;
    for (int64_t i = 0; i < total; ++i, nextIndex(at.v, x.dims, x.rank)) {
      if (!(toArith(in[i]) != toArith(T{})))
        continue;
      if (found == bound)
        return ctx.fail("more than the bound of %lld nonzero elements",
                        static_cast<long long>(bound));
      for (int d = 0; d < x.rank; ++d)
        out[d * bound + found] = at[d];
      ++found;
    }
    return 0;
  }));
  *static_cast<int64_t *>(ctx.out(1).data) = found;
  return 0;
}

GC_KERNEL_ATTRS(compress, Compress, a) {
  GC_TRY(ctx.expect(2, 2));
  const gc_tensor &input = ctx.in(0), &condition = ctx.in(1);
  gc_tensor &output = ctx.out(0);
  GC_TRY(checkCount(ctx, 1));
  if (condition.rank != 1 || condition.dtype != GC_DTYPE_BOOL)
    return ctx.fail("condition must be a 1-d bool tensor");
  // Without an axis the input is read flattened: one line of single
  // elements. The output's extent along the line is the bound.
  int64_t outer = 1, len = numElements(input), inner = 1, bound = 0;
  Dims expected;
  if (a.axis) {
    int axis;
    GC_TRY(ctx.normalizeAxis(*a.axis, input.rank, axis));
    splitAxis(input, axis, outer, len, inner);
    expected = Dims::of(input);
    if (output.rank == input.rank)
      expected[axis] = bound = output.dims[axis];
  } else {
    bound = output.rank == 1 ? output.dims[0] : 0;
    expected.push(bound);
  }
  GC_TRY(ctx.checkOutput(0, input.dtype, expected));
  int64_t length = condition.dims[0];
  if (length > len)
    return ctx.fail("condition has %lld elements, more than the %lld it "
                    "selects from",
                    static_cast<long long>(length), static_cast<long long>(len));
  const auto *keep = static_cast<const bool *>(condition.data);
  int64_t found = 0;
  for (int64_t j = 0; j < length; ++j)
    found += keep[j] ? 1 : 0;
  if (found > bound)
    return ctx.fail("selects %lld, more than the bound of %lld",
                    static_cast<long long>(found), static_cast<long long>(bound));
  size_t size = gc_dtype_size(input.dtype);
  const auto *in = static_cast<const char *>(input.data);
  auto *out = static_cast<char *>(output.data);
  std::memset(out, 0, size * numElements(output));
  for (int64_t o = 0; o < outer; ++o) {
    int64_t k = 0;
    for (int64_t j = 0; j < length; ++j) {
      if (!keep[j])
        continue;
      std::memcpy(out + (o * bound + k) * inner * size,
                  in + (o * len + j) * inner * size, inner * size);
      ++k;
    }
  }
  *static_cast<int64_t *>(ctx.out(1).data) = found;
  return 0;
}
