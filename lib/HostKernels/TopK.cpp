//===- TopK.cpp - TopK host kernel -----------------------------------------===//
//
// The K largest (or smallest) entries along an axis, sorted, with ties
// broken towards the lower index as the ONNX specification requires.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

#include <algorithm>
#include <vector>

using namespace graphc::hk;

GC_KERNEL_ATTRS(top_k, TopK, a) {
  GC_TRY(ctx.expect(2, 2));
  const gc_tensor &x = ctx.in(0), &kTensor = ctx.in(1);
  if (numElements(kTensor) != 1 || !isIndexDtype(kTensor.dtype))
    return ctx.fail("k must be a single i64 value");
  if (x.rank < 1)
    return ctx.fail("input must have rank >= 1");
  int axis;
  GC_TRY(ctx.normalizeAxis(a.axis, x.rank, axis));
  bool largest = a.largest != 0;
  int64_t k = intAt(kTensor, 0);
  int64_t outer, len, inner;
  splitAxis(x, axis, outer, len, inner);
  if (k < 0 || k > len)
    return ctx.fail("k = %lld is outside [0, %lld]", static_cast<long long>(k),
                    static_cast<long long>(len));
  Dims outDims = Dims::of(x);
  outDims[axis] = k;
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  GC_TRY(ctx.checkOutput(1, GC_DTYPE_I64, outDims));
  return dispatch<kNumeric>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    const T *in = static_cast<const T *>(x.data);
    T *values = static_cast<T *>(ctx.out(0).data);
    int64_t *indices = static_cast<int64_t *>(ctx.out(1).data);
    std::vector<int64_t> order(len);
    std::vector<A> row(len);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        for (int64_t j = 0; j < len; ++j) {
          order[j] = j;
          row[j] = toArith(in[(o * len + j) * inner + i]);
        }
        // NaN sorts as the largest value, like numpy.
        auto before = [&](int64_t a, int64_t b) {
          A va = row[a], vb = row[b];
          bool aNan = va != va, bNan = vb != vb;
          if (aNan || bNan) {
            if (aNan && bNan)
              return a < b;
            return largest ? aNan : bNan;
          }
          if (va != vb)
            return largest ? va > vb : va < vb;
          return a < b;
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          before);
        for (int64_t j = 0; j < k; ++j) {
          int64_t at = (o * k + j) * inner + i;
          values[at] = in[(o * len + order[j]) * inner + i];
          indices[at] = order[j];
        }
      }
    return 0;
  });
}
