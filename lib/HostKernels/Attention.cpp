//===- Attention.cpp - scaled dot-product attention host kernel -----------===//
//
// The reference of graph.attention: per batch, query head and query row,
// the scores scale * q.k + mask (in the arithmetic type), the softmax of
// the row computed like the softmax kernel's (max subtracted, an infinite
// max taken as 0, the sum in double), NaN probabilities zeroed under
// nan_to_zero, and the probability-weighted sum of V rows in double.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

#include <vector>

using namespace graphc::hk;

GC_KERNEL_ATTRS(attention, Attention, opAttrs) {
  GC_TRY(ctx.expect(3, 1));
  const gc_tensor &q = ctx.in(0), &k = ctx.in(1), &v = ctx.in(2);
  if (q.rank != 4 || k.rank != 4 || v.rank != 4)
    return ctx.fail("Q, K and V must be 4-d: [batch, heads, sequence, head "
                    "size]");
  GC_TRY(ctx.checkSameDtype(1, q.dtype, "K"));
  GC_TRY(ctx.checkSameDtype(2, q.dtype, "V"));
  const int64_t batch = q.dims[0], heads = q.dims[1], queries = q.dims[2],
                depth = q.dims[3];
  const int64_t kvHeads = k.dims[1], keys = k.dims[2], valueDepth = v.dims[3];
  if (k.dims[0] != batch || v.dims[0] != batch)
    return ctx.fail("Q, K and V have different batch sizes");
  if (k.dims[3] != depth)
    return ctx.fail("Q and K have different head sizes");
  if (v.dims[1] != kvHeads || v.dims[2] != keys)
    return ctx.fail("K and V have different heads or sequence lengths");
  if (kvHeads == 0 ? heads != 0 : heads % kvHeads != 0)
    return ctx.fail("Q's %lld heads are not a multiple of K and V's %lld",
                    static_cast<long long>(heads),
                    static_cast<long long>(kvHeads));
  const int64_t group = kvHeads ? heads / kvHeads : 1;
  int64_t outDims[] = {batch, heads, queries, valueDepth};
  GC_TRY(ctx.checkOutput(0, q.dtype, Dims(outDims, 4)));
  int64_t scoreDims[] = {batch, heads, queries, keys};
  const Dims scores(scoreDims, 4);
  Dims maskStrides;
  const bool hasMask = ctx.has(3);
  if (hasMask) {
    const gc_tensor &mask = ctx.in(3);
    GC_TRY(ctx.checkSameDtype(3, q.dtype, "the mask"));
    bool broadcasts = mask.rank <= 4;
    for (int d = 0; broadcasts && d < mask.rank; ++d) {
      int64_t dim = mask.dims[d], target = scores[4 - mask.rank + d];
      broadcasts = dim == target || dim == 1;
    }
    if (!broadcasts)
      return ctx.fail("the mask does not broadcast to the scores [batch, "
                      "heads, query, key]");
    maskStrides = broadcastStrides(mask, scores);
  }
  const double scale = opAttrs.scale;
  const bool causal = opAttrs.isCausal != 0;
  const bool nanToZero = opAttrs.nanToZero != 0;
  return dispatch<kFloats>(ctx, q.dtype, "Q", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    const T *qData = static_cast<const T *>(q.data);
    const T *kData = static_cast<const T *>(k.data);
    const T *vData = static_cast<const T *>(v.data);
    const T *maskData =
        hasMask ? static_cast<const T *>(ctx.in(3).data) : nullptr;
    T *out = static_cast<T *>(ctx.out(0).data);
    std::vector<A> row(static_cast<size_t>(keys));
    std::vector<double> probability(static_cast<size_t>(keys));
    std::vector<double> acc(static_cast<size_t>(valueDepth));
    const A scaleValue = static_cast<A>(scale);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t kvHead = h / group;
        const T *kBase = kData + (b * kvHeads + kvHead) * keys * depth;
        const T *vBase = vData + (b * kvHeads + kvHead) * keys * valueDepth;
        for (int64_t i = 0; i < queries; ++i) {
          const T *qRow = qData + ((b * heads + h) * queries + i) * depth;
          A maxValue = -std::numeric_limits<A>::infinity();
          for (int64_t j = 0; j < keys; ++j) {
            A dot = 0;
            for (int64_t d = 0; d < depth; ++d)
              dot += toArith(qRow[d]) * toArith(kBase[j * depth + d]);
            A score = dot * scaleValue;
            if (maskData)
              score += toArith(maskData[b * maskStrides[0] +
                                        h * maskStrides[1] +
                                        i * maskStrides[2] +
                                        j * maskStrides[3]]);
            if (causal && j > i)
              score = -std::numeric_limits<A>::infinity();
            row[j] = score;
            if (score > maxValue)
              maxValue = score;
          }
          if (std::isinf(maxValue))
            maxValue = 0;
          double sum = 0;
          for (int64_t j = 0; j < keys; ++j)
            sum += probability[j] =
                std::exp(static_cast<double>(row[j] - maxValue));
          for (double &a : acc)
            a = 0;
          for (int64_t j = 0; j < keys; ++j) {
            // The probability as the softmax kernel would store it.
            double p = static_cast<double>(
                toArith(fromArith<T>(probability[j] / sum)));
            if (nanToZero && std::isnan(p))
              p = 0;
            for (int64_t d = 0; d < valueDepth; ++d)
              acc[d] += p * toArith(vBase[j * valueDepth + d]);
          }
          T *dst = out + ((b * heads + h) * queries + i) * valueDepth;
          for (int64_t d = 0; d < valueDepth; ++d)
            dst[d] = fromArith<T>(acc[d]);
        }
      }
    return 0;
  });
}
