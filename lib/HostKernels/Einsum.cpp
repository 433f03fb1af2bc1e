//===- Einsum.cpp - Einsum host kernel -------------------------------------===//
//
// General equations, including repeated labels (diagonals), ellipsis with
// broadcasting and the implicit output form, evaluated by iterating over
// the output labels and, inside, over the summed labels.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

using namespace graphc::hk;

namespace {

constexpr int kMaxOperands = 8;
constexpr int kLetterLabels = 52;
constexpr int kMaxLabels = kLetterLabels + kMaxRank;

int letterLabel(char c) {
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  return -1;
}

/// One side of the equation: a label per dimension; ellipsis dims get
/// labels kLetterLabels + i, right-aligned to `ellipsisRank`.
struct Term {
  int labels[kMaxRank];
  int rank = 0;
  int ellipsisAt = -1; ///< position of "..." among the letters, or -1
  int letters = 0;
};

int parseTerm(KernelContext &ctx, const char *begin, const char *end,
              Term &term) {
  for (const char *p = begin; p < end;) {
    if (*p == '.') {
      if (end - p < 3 || p[1] != '.' || p[2] != '.' || term.ellipsisAt >= 0)
        return ctx.fail("malformed ellipsis in the equation");
      term.ellipsisAt = term.letters;
      p += 3;
      continue;
    }
    int label = letterLabel(*p);
    if (label < 0)
      return ctx.fail("unexpected character '%c' in the equation", *p);
    if (term.letters >= kMaxRank)
      return ctx.fail("too many labels in one term");
    term.labels[term.letters++] = label;
    ++p;
  }
  return 0;
}

/// Expands a term's ellipsis into `count` labels for ellipsis dims that are
/// right-aligned within `total` broadcast dims.
int expandTerm(KernelContext &ctx, Term &term, int count, int total) {
  if (term.ellipsisAt < 0) {
    term.rank = term.letters;
    return 0;
  }
  if (term.letters + count > kMaxRank)
    return ctx.fail("rank too large");
  int expanded[kMaxRank];
  int n = 0;
  for (int i = 0; i < term.ellipsisAt; ++i)
    expanded[n++] = term.labels[i];
  for (int i = 0; i < count; ++i)
    expanded[n++] = kLetterLabels + total - count + i;
  for (int i = term.ellipsisAt; i < term.letters; ++i)
    expanded[n++] = term.labels[i];
  for (int i = 0; i < n; ++i)
    term.labels[i] = expanded[i];
  term.rank = n;
  return 0;
}

} // namespace

GC_KERNEL_ATTRS(einsum, Einsum, opAttrs) {
  if (ctx.numInputs < 1 || ctx.numInputs > kMaxOperands)
    return ctx.fail("expected 1 to %d inputs", kMaxOperands);
  GC_TRY(ctx.expect(ctx.numInputs, 1));
  const char *equation = opAttrs.equation;
  char compact[512];
  size_t length = 0;
  for (const char *p = equation; *p; ++p)
    if (*p != ' ') {
      if (length + 1 >= sizeof(compact))
        return ctx.fail("equation too long");
      compact[length++] = *p;
    }
  compact[length] = 0;
  const char *arrow = std::strstr(compact, "->");
  const char *lhsEnd = arrow ? arrow : compact + length;

  Term inputs[kMaxOperands];
  int count = 0;
  for (const char *p = compact;; ++count) {
    const char *comma = p;
    while (comma < lhsEnd && *comma != ',')
      ++comma;
    if (count >= ctx.numInputs)
      return ctx.fail("the equation has more terms than inputs");
    GC_TRY(parseTerm(ctx, p, comma, inputs[count]));
    if (comma == lhsEnd) {
      ++count;
      break;
    }
    p = comma + 1;
  }
  if (count != ctx.numInputs)
    return ctx.fail("the equation has %d terms for %d inputs", count,
                    ctx.numInputs);

  int ellipsisRank = 0;
  int ellipsisOf[kMaxOperands];
  for (int k = 0; k < count; ++k) {
    const gc_tensor &t = ctx.in(k);
    ellipsisOf[k] = t.rank - inputs[k].letters;
    if ((inputs[k].ellipsisAt < 0 && ellipsisOf[k] != 0) || ellipsisOf[k] < 0)
      return ctx.fail("term %d does not match the rank %d of input %d", k,
                      t.rank, k);
    ellipsisRank = std::max(ellipsisRank, ellipsisOf[k]);
  }
  int64_t size[kMaxLabels];
  int uses[kMaxLabels] = {};
  for (int l = 0; l < kMaxLabels; ++l)
    size[l] = -1;
  int64_t strides[kMaxOperands][kMaxLabels] = {};
  for (int k = 0; k < count; ++k) {
    GC_TRY(expandTerm(ctx, inputs[k], ellipsisOf[k], ellipsisRank));
    const gc_tensor &t = ctx.in(k);
    Dims own = Dims::of(t).strides();
    for (int d = 0; d < t.rank; ++d) {
      int label = inputs[k].labels[d];
      int64_t dim = t.dims[d];
      ++uses[label];
      bool ellipsis = label >= kLetterLabels;
      if (size[label] < 0 || (ellipsis && size[label] == 1))
        size[label] = dim;
      else if (dim != size[label] && !(ellipsis && dim == 1))
        return ctx.fail("label dimension %lld of input %d conflicts with %lld",
                        static_cast<long long>(dim), k,
                        static_cast<long long>(size[label]));
      // Broadcast ellipsis dims do not move; repeated labels walk diagonals.
      if (!(ellipsis && dim == 1))
        strides[k][label] += own[d];
    }
  }

  int outLabels[kMaxLabels], outRank = 0;
  bool inOutput[kMaxLabels] = {};
  if (arrow) {
    Term out;
    GC_TRY(parseTerm(ctx, arrow + 2, compact + length, out));
    GC_TRY(expandTerm(ctx, out, out.ellipsisAt >= 0 ? ellipsisRank : 0,
                      ellipsisRank));
    for (int d = 0; d < out.rank; ++d) {
      int label = out.labels[d];
      if (size[label] < 0)
        return ctx.fail("output label does not appear in any input");
      if (inOutput[label])
        return ctx.fail("output label repeated");
      inOutput[label] = true;
      outLabels[outRank++] = label;
    }
  } else {
    for (int i = 0; i < ellipsisRank; ++i) {
      inOutput[kLetterLabels + i] = true;
      outLabels[outRank++] = kLetterLabels + i;
    }
    for (int l = 0; l < kLetterLabels; ++l)
      if (uses[l] == 1) {
        inOutput[l] = true;
        outLabels[outRank++] = l;
      }
  }
  if (outRank > kMaxRank)
    return ctx.fail("output rank too large");
  int sumLabels[kMaxLabels], sumRank = 0;
  for (int l = 0; l < kMaxLabels; ++l)
    if (size[l] >= 0 && !inOutput[l])
      sumLabels[sumRank++] = l;

  Dims outDims;
  for (int d = 0; d < outRank; ++d)
    outDims.push(size[outLabels[d]]);
  int32_t dtype = ctx.in(0).dtype;
  for (int k = 1; k < count; ++k)
    GC_TRY(ctx.checkSameDtype(k, dtype, "every input"));
  GC_TRY(ctx.checkOutput(0, dtype, outDims));

  return dispatch<kFloats | kInts>(ctx, dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<
        isFloatLike<T>, double,
        std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
    const T *data[kMaxOperands];
    for (int k = 0; k < count; ++k)
      data[k] = static_cast<const T *>(ctx.in(k).data);
    T *out = static_cast<T *>(ctx.out(0).data);
    int64_t total = outDims.product();
    int64_t sumTotal = 1;
    for (int s = 0; s < sumRank; ++s)
      sumTotal *= size[sumLabels[s]];
    // Steps `index` over the sizes of `labels` (the last the fastest),
    // moving each operand's `offsets` with it.
    auto advance = [&](const int *labels, int rank, int64_t *index,
                       int64_t *offsets) {
      for (int d = rank - 1; d >= 0; --d) {
        int label = labels[d];
        for (int k = 0; k < count; ++k)
          offsets[k] += strides[k][label];
        if (++index[d] < size[label])
          return;
        for (int k = 0; k < count; ++k)
          offsets[k] -= strides[k][label] * size[label];
        index[d] = 0;
      }
    };
    int64_t outIndex[kMaxLabels] = {}, base[kMaxOperands] = {};
    for (int64_t o = 0; o < total; ++o) {
      Acc acc = 0;
      int64_t sumIndex[kMaxLabels] = {}, offset[kMaxOperands];
      for (int k = 0; k < count; ++k)
        offset[k] = base[k];
      for (int64_t s = 0; s < sumTotal; ++s) {
        Acc product = 1;
        for (int k = 0; k < count; ++k)
          product *= static_cast<Acc>(toArith(data[k][offset[k]]));
        acc += product;
        advance(sumLabels, sumRank, sumIndex, offset);
      }
      out[o] = fromArith<T>(acc);
      advance(outLabels, outRank, outIndex, base);
    }
    return 0;
  });
}
