//===- Movement.cpp - data movement host kernels --------------------------===//
//
// Transpose, Concat, Split, Slice, Tile, Pad, DepthToSpace, SpaceToDepth,
// Trilu and ReverseSequence. Apart from Pad's constant and Trilu's zero they
// only move elements, so they dispatch on the element size.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/KernelSupport.h"

using namespace graphc::hk;

namespace {

/// Copies through a loop whose operand 0 is the output, operand 1 the input.
int stridedCopy(KernelContext &ctx, const StridedLoop<2> &loop,
                const void *in, void *out, int32_t dtype) {
  return dispatchBySize(ctx, dtype, "input", [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U *src = static_cast<const U *>(in);
    U *dst = static_cast<U *>(out);
    loop.run([&](const int64_t *offsets, int64_t n, const int64_t *inner) {
      U *o = dst + offsets[0];
      const U *i = src + offsets[1];
      if (inner[0] == 1 && inner[1] == 1)
        std::memcpy(o, i, static_cast<size_t>(n) * sizeof(U));
      else
        for (int64_t k = 0; k < n; ++k)
          o[k * inner[0]] = i[k * inner[1]];
    });
    return 0;
  });
}

/// Copies `count` blocks of `block` elements between strided positions.
void copyBlocks(const char *src, int64_t srcStride, char *dst, int64_t dstStride,
                int64_t count, int64_t blockBytes) {
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(dst + i * dstStride, src + i * srcStride,
                static_cast<size_t>(blockBytes));
}

} // namespace

GC_KERNEL_ATTRS(transpose, Transpose, a) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  const IntList &permAttr = a.perm;
  int perm[kMaxRank];
  bool seen[kMaxRank] = {};
  if (permAttr.present && permAttr.count != x.rank)
    return ctx.fail("perm has %lld entries for rank %d",
                    static_cast<long long>(permAttr.count), x.rank);
  for (int d = 0; d < x.rank; ++d) {
    int64_t p = permAttr.present ? permAttr[d] : x.rank - 1 - d;
    if (p < 0 || p >= x.rank || seen[p])
      return ctx.fail("perm is not a permutation");
    seen[p] = true;
    perm[d] = static_cast<int>(p);
  }
  Dims outDims, inStrides = Dims::of(x).strides();
  for (int d = 0; d < x.rank; ++d)
    outDims.push(x.dims[perm[d]]);
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  Dims outStrides = outDims.strides();
  StridedLoop<2> loop;
  loop.rank = x.rank;
  for (int d = 0; d < x.rank; ++d) {
    loop.dims[d] = outDims[d];
    loop.strides[0][d] = outStrides[d];
    loop.strides[1][d] = inStrides[perm[d]];
  }
  loop.coalesce();
  return stridedCopy(ctx, loop, x.data, ctx.out(0).data, x.dtype);
}

GC_KERNEL_ATTRS(concat, Concat, a) {
  if (ctx.numInputs < 1)
    return ctx.fail("expected at least 1 input");
  GC_TRY(ctx.expect(ctx.numInputs, 1));
  const gc_tensor &first = ctx.in(0);
  int axis;
  GC_TRY(ctx.normalizeAxis(a.axis, first.rank, axis));
  Dims outDims = Dims::of(first);
  outDims[axis] = 0;
  for (int k = 0; k < ctx.numInputs; ++k) {
    const gc_tensor &t = ctx.in(k);
    GC_TRY(ctx.checkSameDtype(k, first.dtype, "every input"));
    if (t.rank != first.rank)
      return ctx.fail("input %d has rank %d, expected %d", k, t.rank, first.rank);
    for (int d = 0; d < t.rank; ++d)
      if (d != axis && t.dims[d] != first.dims[d])
        return ctx.fail("input %d differs in dimension %d", k, d);
    outDims[axis] += t.dims[axis];
  }
  GC_TRY(ctx.checkOutput(0, first.dtype, outDims));
  int64_t outer, inner;
  GC_TRY(splitAxisBytes(ctx, first, axis, "input", outer, inner));
  char *out = static_cast<char *>(ctx.out(0).data);
  int64_t outRow = outDims[axis] * inner, offset = 0;
  for (int k = 0; k < ctx.numInputs; ++k) {
    int64_t row = ctx.in(k).dims[axis] * inner;
    if (row)
      copyBlocks(static_cast<const char *>(ctx.in(k).data), row, out + offset,
                 outRow, outer, row);
    offset += row;
  }
  return 0;
}

GC_KERNEL_ATTRS(split, Split, a) {
  GC_TRY(ctx.expect(1, ctx.numOutputs));
  const gc_tensor &x = ctx.in(0);
  int axis;
  GC_TRY(ctx.normalizeAxis(a.axis, x.rank, axis));
  if (ctx.numOutputs < 1)
    return ctx.fail("expected at least 1 output");
  int64_t len = x.dims[axis];
  Dims explicitSizes;
  bool hasSizes = ctx.has(1);
  if (hasSizes) {
    if (numElements(ctx.in(1)) != ctx.numOutputs)
      return ctx.fail("split has %lld entries for %d outputs",
                      static_cast<long long>(numElements(ctx.in(1))),
                      ctx.numOutputs);
    GC_TRY(ctx.readInts(1, explicitSizes, "split"));
  }
  // Without sizes the parts are ceil(len / n), the last one smaller.
  int64_t chunk = (len + ctx.numOutputs - 1) / ctx.numOutputs;
  int64_t outer, inner;
  GC_TRY(splitAxisBytes(ctx, x, axis, "input", outer, inner));
  int64_t offset = 0;
  for (int k = 0; k < ctx.numOutputs; ++k) {
    int64_t part = hasSizes ? explicitSizes[k]
                            : std::min(chunk, std::max<int64_t>(len - k * chunk, 0));
    if (part < 0 || offset + part > len)
      return ctx.fail("split sizes exceed dimension %d of size %lld", axis,
                      static_cast<long long>(len));
    Dims outDims = Dims::of(x);
    outDims[axis] = part;
    GC_TRY(ctx.checkOutput(k, x.dtype, outDims));
    if (part)
      copyBlocks(static_cast<const char *>(x.data) + offset * inner,
                 len * inner, static_cast<char *>(ctx.out(k).data),
                 part * inner, outer, part * inner);
    offset += part;
  }
  if (offset != len)
    return ctx.fail("split sizes sum to %lld, dimension %d has %lld",
                    static_cast<long long>(offset), axis,
                    static_cast<long long>(len));
  return 0;
}

GC_KERNEL(slice) {
  GC_TRY(ctx.expect(3, 1));
  const gc_tensor &x = ctx.in(0);
  Dims starts, ends, axes, steps;
  GC_TRY(ctx.readInts(1, starts, "starts"));
  GC_TRY(ctx.readInts(2, ends, "ends"));
  if (starts.rank != ends.rank)
    return ctx.fail("starts and ends differ in length");
  if (ctx.has(3)) {
    GC_TRY(ctx.readInts(3, axes, "axes"));
  } else {
    for (int k = 0; k < starts.rank; ++k)
      axes.push(k);
  }
  if (ctx.has(4)) {
    GC_TRY(ctx.readInts(4, steps, "steps"));
  } else {
    for (int k = 0; k < starts.rank; ++k)
      steps.push(1);
  }
  if (axes.rank != starts.rank || steps.rank != starts.rank)
    return ctx.fail("axes and steps must match starts in length");
  int64_t begin[kMaxRank], step[kMaxRank];
  Dims outDims = Dims::of(x);
  bool seen[kMaxRank] = {};
  for (int d = 0; d < x.rank; ++d) {
    begin[d] = 0;
    step[d] = 1;
  }
  for (int k = 0; k < starts.rank; ++k) {
    int axis;
    GC_TRY(markAxis(ctx, axes[k], x.rank, seen, axis));
    int64_t dim = x.dims[axis], s = starts[k], e = ends[k], st = steps[k];
    if (st == 0)
      return ctx.fail("steps must be non-zero");
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    int64_t count;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      // Written so that no step, however large, overflows.
      count = e > s ? 1 + (e - s - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      int64_t magnitude = st == INT64_MIN ? INT64_MAX : -st;
      count = s > e ? 1 + (s - e - 1) / magnitude : 0;
    }
    // A step that selects at most one element never moves: keep its stride
    // product below from overflowing.
    if (count <= 1)
      st = 1;
    begin[axis] = s;
    step[axis] = st;
    outDims[axis] = count;
  }
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  if (outDims.product() == 0)
    return 0;
  Dims inStrides = Dims::of(x).strides(), outStrides = outDims.strides();
  int64_t base = 0;
  StridedLoop<2> loop;
  loop.rank = x.rank;
  for (int d = 0; d < x.rank; ++d) {
    base += begin[d] * inStrides[d];
    loop.dims[d] = outDims[d];
    loop.strides[0][d] = outStrides[d];
    loop.strides[1][d] = step[d] * inStrides[d];
  }
  loop.coalesce();
  size_t size = gc_dtype_size(x.dtype);
  return stridedCopy(ctx, loop,
                     static_cast<const char *>(x.data) + base * static_cast<int64_t>(size),
                     ctx.out(0).data, x.dtype);
}

GC_KERNEL(tile) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0);
  Dims repeats;
  GC_TRY(ctx.readInts(1, repeats, "repeats"));
  if (repeats.rank != x.rank)
    return ctx.fail("repeats has %d entries for rank %d", repeats.rank, x.rank);
  if (2 * x.rank > kMaxRank)
    return ctx.fail("rank %d is too large", x.rank);
  Dims outDims;
  for (int d = 0; d < x.rank; ++d) {
    if (repeats[d] < 0)
      return ctx.fail("repeats must be non-negative");
    outDims.push(x.dims[d] * repeats[d]);
  }
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  // View the output as [r0, d0, r1, d1, ...]: repeats move only the output.
  Dims inStrides = Dims::of(x).strides(), outStrides = outDims.strides();
  StridedLoop<2> loop;
  loop.rank = 2 * x.rank;
  for (int d = 0; d < x.rank; ++d) {
    loop.dims[2 * d] = repeats[d];
    loop.strides[0][2 * d] = x.dims[d] * outStrides[d];
    loop.strides[1][2 * d] = 0;
    loop.dims[2 * d + 1] = x.dims[d];
    loop.strides[0][2 * d + 1] = outStrides[d];
    loop.strides[1][2 * d + 1] = inStrides[d];
  }
  loop.coalesce();
  return stridedCopy(ctx, loop, x.data, ctx.out(0).data, x.dtype);
}

GC_KERNEL_ATTRS(pad, Pad, a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0);
  enum PadMode { Constant, Reflect, Edge, Wrap } mode;
  // In PadMode's order: modes[mode].name names the mode in messages.
  static const Choice<PadMode> modes[] = {{"constant", Constant},
                                          {"reflect", Reflect},
                                          {"edge", Edge},
                                          {"wrap", Wrap}};
  GC_TRY(readChoice(ctx, "mode", a.mode, modes, mode));
  const gc_tensor &padsTensor = ctx.in(1);
  if (padsTensor.dtype != GC_DTYPE_I64 || padsTensor.rank != 1)
    return ctx.fail("pads must be a 1-D i64 tensor");
  int axes[kMaxRank], numAxes = 0;
  if (ctx.has(3)) {
    Dims axisValues;
    GC_TRY(ctx.readInts(3, axisValues, "axes"));
    for (int k = 0; k < axisValues.rank; ++k)
      GC_TRY(ctx.normalizeAxis(axisValues[k], x.rank, axes[numAxes++]));
  } else {
    for (int d = 0; d < x.rank; ++d)
      axes[numAxes++] = d;
  }
  if (padsTensor.dims[0] != 2 * numAxes)
    return ctx.fail("pads has %lld entries, expected %d",
                    static_cast<long long>(padsTensor.dims[0]), 2 * numAxes);
  const int64_t *pads = static_cast<const int64_t *>(padsTensor.data);
  int64_t before[kMaxRank] = {}, after[kMaxRank] = {};
  for (int k = 0; k < numAxes; ++k) {
    before[axes[k]] = pads[k];
    after[axes[k]] = pads[k + numAxes];
  }
  // Negative pads crop first; the remaining window [lo, lo + len) is padded.
  int64_t lo[kMaxRank], len[kMaxRank], pre[kMaxRank];
  Dims outDims;
  for (int d = 0; d < x.rank; ++d) {
    lo[d] = before[d] < 0 ? -before[d] : 0;
    len[d] = x.dims[d] - lo[d] - (after[d] < 0 ? -after[d] : 0);
    if (len[d] < 0)
      return ctx.fail("negative pads remove more than dimension %d holds", d);
    pre[d] = before[d] > 0 ? before[d] : 0;
    outDims.push(len[d] + pre[d] + (after[d] > 0 ? after[d] : 0));
    if (mode != Constant && len[d] == 0 && outDims[d] > 0)
      return ctx.fail("%s padding of an empty dimension", modes[mode].name);
  }
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  if (ctx.has(2)) {
    if (numElements(ctx.in(2)) != 1)
      return ctx.fail("constant_value must be a scalar");
    GC_TRY(ctx.checkSameDtype(2, x.dtype, "constant_value"));
  }
  Dims inStrides = Dims::of(x).strides();
  return dispatchBySize(ctx, x.dtype, "input", [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U *in = static_cast<const U *>(x.data);
    U *out = static_cast<U *>(ctx.out(0).data);
    U fill{};
    if (ctx.has(2))
      std::memcpy(&fill, ctx.in(2).data, sizeof(U));
    auto source = [&](int d, int64_t o) -> int64_t {
      int64_t i = o - pre[d];
      int64_t n = len[d];
      if (i >= 0 && i < n)
        return lo[d] + i;
      switch (mode) {
      case Constant:
        return -1;
      case Edge:
        return lo[d] + (i < 0 ? 0 : n - 1);
      case Wrap:
        return lo[d] + ((i % n) + n) % n;
      case Reflect: {
        if (n == 1)
          return lo[d];
        int64_t period = 2 * (n - 1);
        int64_t m = ((i % period) + period) % period;
        return lo[d] + (m < n ? m : period - m);
      }
      }
      return -1;
    };
    int64_t total = outDims.product();
    int64_t index[kMaxRank] = {};
    for (int64_t o = 0; o < total; ++o) {
      int64_t offset = 0;
      bool inside = true;
      for (int d = 0; d < x.rank && inside; ++d) {
        int64_t i = source(d, index[d]);
        inside = i >= 0;
        offset += i * inStrides[d];
      }
      out[o] = inside ? in[offset] : fill;
      nextIndex(index, outDims.v, x.rank);
    }
    return 0;
  });
}

namespace {

/// DepthToSpace / SpaceToDepth as one index mapping between
/// [N, C*b*b, H, W] (depth) and [N, C, H*b, W*b] (space). `b` is the
/// blocksize attribute and `mode` DepthToSpace's (unused for SpaceToDepth).
int blockRearrange(KernelContext &ctx, bool toSpace, int64_t b,
                   const char *mode) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  if (x.rank != 4)
    return ctx.fail("input must be 4-D");
  if (b < 1)
    return ctx.fail("blocksize must be positive");
  bool crd = false;
  if (toSpace) {
    crd = !std::strcmp(mode, "CRD");
    if (!crd && std::strcmp(mode, "DCR"))
      return ctx.fail("unknown mode '%s'", mode);
  }
  int64_t N = x.dims[0];
  int64_t C, H, W; // of the space form
  Dims outDims;
  if (toSpace) {
    if (x.dims[1] % (b * b))
      return ctx.fail("channels must be divisible by blocksize^2");
    C = x.dims[1] / (b * b);
    H = x.dims[2] * b;
    W = x.dims[3] * b;
    int64_t dims[4] = {N, C, H, W};
    outDims = Dims(dims, 4);
  } else {
    if (x.dims[2] % b || x.dims[3] % b)
      return ctx.fail("height and width must be divisible by blocksize");
    C = x.dims[1];
    H = x.dims[2];
    W = x.dims[3];
    int64_t dims[4] = {N, C * b * b, H / b, W / b};
    outDims = Dims(dims, 4);
  }
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  int64_t h = H / b, w = W / b;
  return dispatchBySize(ctx, x.dtype, "input", [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U *in = static_cast<const U *>(x.data);
    U *out = static_cast<U *>(ctx.out(0).data);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < b; ++i)
          for (int64_t j = 0; j < b; ++j) {
            int64_t depthChannel = crd ? (c * b + i) * b + j : (i * b + j) * C + c;
            for (int64_t y = 0; y < h; ++y)
              for (int64_t z = 0; z < w; ++z) {
                int64_t depth = ((n * C * b * b + depthChannel) * h + y) * w + z;
                int64_t space = ((n * C + c) * H + y * b + i) * W + z * b + j;
                if (toSpace)
                  out[space] = in[depth];
                else
                  out[depth] = in[space];
              }
          }
    return 0;
  });
}

} // namespace

GC_KERNEL_ATTRS(depth_to_space, DepthToSpace, a) {
  return blockRearrange(ctx, true, a.blocksize, a.mode);
}
GC_KERNEL_ATTRS(space_to_depth, SpaceToDepth, a) {
  return blockRearrange(ctx, false, a.blocksize, nullptr);
}

GC_KERNEL_ATTRS(trilu, Trilu, a) {
  GC_TRY(ctx.expect(1, 1));
  const gc_tensor &x = ctx.in(0);
  if (x.rank < 2)
    return ctx.fail("input must have rank >= 2");
  int64_t k = 0;
  if (ctx.has(1)) {
    if (numElements(ctx.in(1)) != 1 || ctx.in(1).dtype != GC_DTYPE_I64)
      return ctx.fail("k must be a scalar i64 tensor");
    k = intAt(ctx.in(1), 0);
  }
  bool upper = a.upper != 0;
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  int64_t rows = x.dims[x.rank - 2], cols = x.dims[x.rank - 1];
  int64_t matrices = rows * cols != 0 ? numElements(x) / (rows * cols) : 0;
  return dispatchBySize(ctx, x.dtype, "input", [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U *in = static_cast<const U *>(x.data);
    U *out = static_cast<U *>(ctx.out(0).data);
    for (int64_t m = 0; m < matrices; ++m)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          int64_t at = (m * rows + i) * cols + j;
          bool keep = upper ? j - i >= k : j - i <= k;
          // All-zero bits are zero in every supported dtype.
          out[at] = keep ? in[at] : U(0);
        }
    return 0;
  });
}

GC_KERNEL_ATTRS(reverse_sequence, ReverseSequence, a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0), &lens = ctx.in(1);
  int64_t batchAxis = a.batchAxis, timeAxis = a.timeAxis;
  if (x.rank < 2 || (batchAxis != 0 && batchAxis != 1) ||
      (timeAxis != 0 && timeAxis != 1) || batchAxis == timeAxis)
    return ctx.fail("batch_axis and time_axis must be 0 and 1 in some order");
  int64_t batch = x.dims[batchAxis], time = x.dims[timeAxis];
  if (lens.rank != 1 || lens.dims[0] != batch || !isIndexDtype(lens.dtype))
    return ctx.fail("sequence_lens must be an integer tensor of shape [%lld]",
                    static_cast<long long>(batch));
  GC_TRY(ctx.checkOutput(0, x.dtype, Dims::of(x)));
  int64_t inner = numElements(x) / (batch * time != 0 ? batch * time : 1);
  Dims strides = Dims::of(x).strides();
  return dispatchBySize(ctx, x.dtype, "input", [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U *in = static_cast<const U *>(x.data);
    U *out = static_cast<U *>(ctx.out(0).data);
    for (int64_t b = 0; b < batch; ++b) {
      int64_t len = intAt(lens, b);
      if (len < 0 || len > time)
        return ctx.failValue("sequence length %lld is out of range [0, %lld)",
                             static_cast<long long>(len),
                             static_cast<long long>(time + 1));
      for (int64_t t = 0; t < time; ++t) {
        int64_t from = t < len ? len - 1 - t : t;
        const U *src = in + b * strides[batchAxis] + from * strides[timeAxis];
        U *dst = out + b * strides[batchAxis] + t * strides[timeAxis];
        std::memcpy(dst, src, static_cast<size_t>(inner) * sizeof(U));
      }
    }
    return 0;
  });
}
