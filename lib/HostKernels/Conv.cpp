//===- Conv.cpp - Conv and ConvTranspose host kernels ---------------------===//
//
// Conv lowers each (image, group) to im2col + the shared blocked GEMM;
// ConvTranspose is the adjoint: GEMM into columns, then col2im.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/Gemm.h"
#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/Window.h"

#include <cstring>
#include <vector>

using namespace graphc::hk;

namespace {

/// Columns [channels * kernelSize, count] of one image: the inputs under
/// each kernel tap for output positions [first, first + count) (flat,
/// row-major over w.out).
template <typename A>
void im2col(const A *image, int64_t channels, const Window &w, int64_t first,
            int64_t count, A *col) {
  int64_t inSize = w.inSize();
  int last = w.nd - 1;
  int64_t rowLength = w.out[last];
  Dims inStrides = Dims(w.in, w.nd).strides();
  A *row = col;
  for (int64_t c = 0; c < channels; ++c) {
    const A *plane = image + c * inSize;
    forEachIndex(w.kernel, w.nd, [&](const int64_t *k) {
      A *dst = row;
      // Runs along the last output dim; the outer dims from each run's
      // row number.
      for (int64_t p = first, end = first + count; p < end;) {
        int64_t outer = p / rowLength, j0 = p % rowLength;
        int64_t n = std::min(rowLength - j0, end - p);
        int64_t base = 0;
        bool inside = true;
        for (int d = last - 1; d >= 0; --d) {
          int64_t o = outer % w.out[d];
          outer /= w.out[d];
          int64_t i = o * w.stride[d] - w.padBegin[d] + k[d] * w.dilation[d];
          inside &= i >= 0 && i < w.in[d];
          base += i * inStrides[d];
        }
        if (!inside) {
          std::fill(dst, dst + n, A(0));
        } else {
          int64_t start = k[last] * w.dilation[last] - w.padBegin[last];
          for (int64_t j = 0; j < n; ++j) {
            int64_t i = start + (j0 + j) * w.stride[last];
            dst[j] = i >= 0 && i < w.in[last] ? plane[base + i] : A(0);
          }
        }
        dst += n;
        p += n;
      }
      row += count;
    });
  }
}

/// Adds columns [channels * kernelSize, count], for input positions
/// [first, first + count) (flat over w.in), into an image of `w.out` (the
/// transposed-conv output), skipping positions outside it.
template <typename A>
void col2im(const A *col, int64_t channels, const Window &w, int64_t first,
            int64_t count, A *image) {
  int64_t outSize = w.outSize();
  Dims outStrides = Dims(w.out, w.nd).strides();
  const A *src = col;
  for (int64_t c = 0; c < channels; ++c) {
    A *plane = image + c * outSize;
    forEachIndex(w.kernel, w.nd, [&](const int64_t *k) {
      int64_t i[kMaxRank];
      int64_t rest = first;
      for (int d = w.nd - 1; d >= 0; --d) {
        i[d] = rest % w.in[d];
        rest /= w.in[d];
      }
      for (int64_t t = 0; t < count; ++t) {
        int64_t offset = 0;
        bool inside = true;
        for (int d = 0; d < w.nd; ++d) {
          int64_t o = i[d] * w.stride[d] - w.padBegin[d] + k[d] * w.dilation[d];
          inside &= o >= 0 && o < w.out[d];
          offset += o * outStrides[d];
        }
        if (inside)
          plane[offset] += *src;
        ++src;
        nextIndex(i, w.in, w.nd);
      }
    });
  }
}

/// Positions per tile of a convolution whose columns have `rows` elements
/// each, so that a tile's columns fit kMaxTileScratchBytes (at least one).
int64_t tilePositions(int64_t rows, int64_t positions, size_t elementBytes) {
  int64_t perTile = kMaxTileScratchBytes / (std::max<int64_t>(rows, 1) *
                                            static_cast<int64_t>(elementBytes));
  return std::max<int64_t>(1, std::min(perTile, positions));
}

/// Checks the optional bias (input 2) against `channels` output channels.
int checkBias(KernelContext &ctx, int32_t dtype, int64_t channels) {
  if (!ctx.has(2))
    return 0;
  const gc_tensor &b = ctx.in(2);
  GC_TRY(ctx.checkSameDtype(2, dtype, "bias"));
  if (b.rank != 1 || b.dims[0] != channels)
    return ctx.fail("bias must have shape [%lld]",
                    static_cast<long long>(channels));
  return 0;
}

/// Moves dim `from` of a dense tensor of `rank` dims to position `to`,
/// keeping the others in order: the channels of a channels-last tensor to
/// dim 1 (from rank - 1 to 1), or back (from 1 to rank - 1).
std::vector<char> moveDim(const gc_tensor &t, int from, int to, Dims &dims) {
  size_t element = gc_dtype_size(t.dtype);
  int rank = t.rank;
  // order[d]: the source dim that becomes dim d.
  std::vector<int> order;
  for (int d = 0; d < rank; ++d)
    if (d != from)
      order.push_back(d);
  order.insert(order.begin() + to, from);
  dims = Dims();
  for (int d = 0; d < rank; ++d)
    dims.push(t.dims[order[d]]);
  Dims sourceStrides = Dims(t.dims, rank).strides();
  std::vector<char> moved(static_cast<size_t>(dims.product()) * element);
  char *to_ = moved.data();
  forEachIndex(dims.v, rank, [&](const int64_t *index) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d)
      offset += index[d] * sourceStrides[order[d]];
    std::memcpy(to_, static_cast<const char *>(t.data) + offset * element,
                element);
    to_ += element;
  });
  return moved;
}

int convChannelsFirst(KernelContext &ctx, const attrs::Conv &a);

/// A channels-last conv (X [N, spatial..., C], W [M, k..., C/group], Y
/// [N, out..., M]) computed as the channels-first one on moved copies: the
/// reference is for correctness, not speed.
int convChannelsLast(KernelContext &ctx, const attrs::Conv &a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0), &wt = ctx.in(1);
  if (x.rank < 3 || wt.rank != x.rank)
    return ctx.fail("input and weight must have the same rank >= 3");
  int last = x.rank - 1;
  Dims xDims, wDims;
  std::vector<char> xFirst = moveDim(x, last, 1, xDims);
  std::vector<char> wFirst = moveDim(wt, last, 1, wDims);
  gc_tensor inputs[3] = {{x.dtype, x.rank, xDims.v, xFirst.data()},
                         {wt.dtype, wt.rank, wDims.v, wFirst.data()},
                         ctx.has(2) ? ctx.in(2) : gc_tensor{0, -1, nullptr,
                                                            nullptr}};
  // The output, channels first: Y's dims with its last one moved to 1.
  const gc_tensor &y = ctx.out(0);
  if (y.rank != x.rank)
    return ctx.fail("output rank %d is not the input's %d", y.rank, x.rank);
  Dims yDims;
  yDims.push(y.dims[0]);
  yDims.push(y.dims[last]);
  for (int d = 1; d < last; ++d)
    yDims.push(y.dims[d]);
  std::vector<char> yFirst(static_cast<size_t>(yDims.product()) *
                           gc_dtype_size(y.dtype));
  gc_tensor output = {y.dtype, y.rank, yDims.v, yFirst.data()};
  KernelContext first{inputs,   ctx.has(2) ? 3 : 2, &output, 1, ctx.attrs,
                      ctx.err,  ctx.errLen,          ctx.op};
  GC_TRY(convChannelsFirst(first, a));
  Dims movedDims;
  std::vector<char> moved = moveDim(output, 1, last, movedDims);
  std::memcpy(y.data, moved.data(), moved.size());
  return 0;
}

} // namespace

GC_KERNEL(conv) {
  attrs::Conv a;
  GC_TRY(a.read(ctx));
  if (a.channelsLast)
    return convChannelsLast(ctx, a);
  return convChannelsFirst(ctx, a);
}

namespace {
int convChannelsFirst(KernelContext &ctx, const attrs::Conv &a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0), &wt = ctx.in(1);
  GC_TRY(ctx.checkSameDtype(1, x.dtype, "weight"));
  if (x.rank < 3 || wt.rank != x.rank)
    return ctx.fail("input and weight must have the same rank >= 3");
  Window w;
  GC_TRY(computeWindow(ctx, a, x, wt.dims + 2, false, w));
  int64_t group = a.group;
  int64_t N = x.dims[0], C = x.dims[1], M = wt.dims[0];
  if (group < 1 || C % group || M % group || wt.dims[1] != C / group)
    return ctx.fail("weight shape does not match %lld input channels in %lld "
                    "groups",
                    static_cast<long long>(C), static_cast<long long>(group));
  GC_TRY(checkBias(ctx, x.dtype, M));
  Dims outDims;
  outDims.push(N);
  outDims.push(M);
  for (int d = 0; d < w.nd; ++d)
    outDims.push(w.out[d]);
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  int64_t Cg = C / group, Mg = M / group, KS = w.kernelSize();
  int64_t P = w.outSize(), inSize = w.inSize();
  bool pointwise = KS == 1;
  for (int d = 0; d < w.nd; ++d)
    pointwise &= w.stride[d] == 1 && w.padBegin[d] == 0 && w.padEnd[d] == 0;
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    ComputeView<T> vx(x.data, numElements(x)), vw(wt.data, numElements(wt));
    ComputeOutput<T> out(ctx.out(0).data, outDims.product());
    // Columns for a tile of output positions at a time: their size is
    // bounded however large the padding or the kernel.
    int64_t rows = Cg * KS;
    int64_t tile =
        pointwise ? std::max<int64_t>(P, 1) : tilePositions(rows, P, sizeof(A));
    Scratch<A> col;
    if (!pointwise)
      GC_TRY(col.allocate(ctx, rows * tile, "the im2col columns"));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t g = 0; g < group; ++g) {
        const A *image = vx.data() + (n * C + g * Cg) * inSize;
        A *result = out.data() + (n * M + g * Mg) * P;
        for (int64_t p0 = 0; p0 < P; p0 += tile) {
          int64_t count = std::min(tile, P - p0);
          // A 1x1 unit-stride unpadded conv reads the image as its columns.
          if (!pointwise)
            im2col(image, Cg, w, p0, count, col.data());
          gemm<A>(false, false, Mg, count, rows, A(1),
                  vw.data() + g * Mg * rows, rows,
                  pointwise ? image + p0 : col.data(), pointwise ? P : count,
                  A(0), result + p0, P);
        }
      }
    if (ctx.has(2)) {
      ComputeView<T> vb(ctx.in(2).data, M);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t m = 0; m < M; ++m) {
          A *plane = out.data() + (n * M + m) * P;
          A bias = vb.data()[m];
          for (int64_t p = 0; p < P; ++p)
            plane[p] += bias;
        }
    }
    out.flush();
    return 0;
  });
}

} // namespace

GC_KERNEL(conv_transpose) {
  GC_TRY(ctx.expect(2, 1));
  attrs::ConvTranspose a;
  GC_TRY(a.read(ctx));
  const gc_tensor &x = ctx.in(0), &wt = ctx.in(1);
  GC_TRY(ctx.checkSameDtype(1, x.dtype, "weight"));
  if (x.rank < 3 || wt.rank != x.rank)
    return ctx.fail("input and weight must have the same rank >= 3");
  int nd = x.rank - 2;
  int64_t group = a.group;
  int64_t N = x.dims[0], C = x.dims[1];
  if (group < 1 || C % group || wt.dims[0] != C)
    return ctx.fail("weight shape does not match %lld input channels in %lld "
                    "groups",
                    static_cast<long long>(C), static_cast<long long>(group));
  int64_t Mg = wt.dims[1], M = Mg * group, Cg = C / group;
  GC_TRY(checkBias(ctx, x.dtype, M));

  const IntList &kernelShape = a.kernelShape, &strides = a.strides,
                &dilations = a.dilations, &pads = a.pads,
                &outputPadding = a.outputPadding, &outputShape = a.outputShape;
  if ((kernelShape.present && kernelShape.count != nd) ||
      (strides.present && strides.count != nd) ||
      (dilations.present && dilations.count != nd) ||
      (pads.present && pads.count != 2 * nd) ||
      (outputPadding.present && outputPadding.count != nd) ||
      (outputShape.present && outputShape.count != nd &&
       outputShape.count != nd + 2))
    return ctx.fail("attribute lengths must match the %d spatial dims", nd);
  AutoPad autoPad;
  GC_TRY(readAutoPad(ctx, a.autoPad, autoPad));
  bool same = autoPad == AutoPad::SameUpper || autoPad == AutoPad::SameLower;
  bool valid = autoPad == AutoPad::Valid;
  int64_t shapeOffset = outputShape.count == nd + 2 ? 2 : 0;

  // Window roles swap: `in` is the conv input, `out` the produced image.
  Window w;
  w.nd = nd;
  for (int d = 0; d < nd; ++d) {
    w.in[d] = x.dims[d + 2];
    w.kernel[d] = wt.dims[d + 2];
    if (kernelShape.present && kernelShape[d] != w.kernel[d])
      return ctx.fail("kernel_shape does not match the weight shape");
    w.stride[d] = strides.present ? strides[d] : 1;
    w.dilation[d] = dilations.present ? dilations[d] : 1;
    if (w.stride[d] < 1 || w.dilation[d] < 1)
      return ctx.fail("strides and dilations must be positive");
    int64_t extraOut = outputPadding.present ? outputPadding[d] : 0;
    int64_t full = w.stride[d] * (w.in[d] - 1) + extraOut + w.extent(d);
    if (same && !pads.present) {
      w.out[d] = outputShape.present ? outputShape[shapeOffset + d]
                                     : w.in[d] * w.stride[d];
      int64_t total = full - w.out[d];
      bool upper = autoPad == AutoPad::SameUpper;
      w.padBegin[d] = upper ? total / 2 : total - total / 2;
    } else {
      w.padBegin[d] = pads.present && !valid ? pads[d] : 0;
      int64_t end = pads.present && !valid ? pads[d + nd] : 0;
      w.out[d] = outputShape.present ? outputShape[shapeOffset + d]
                                     : full - w.padBegin[d] - end;
    }
    if (w.out[d] < 0)
      return ctx.fail("negative output size in spatial dim %d", d);
  }
  Dims outDims;
  outDims.push(N);
  outDims.push(M);
  for (int d = 0; d < nd; ++d)
    outDims.push(w.out[d]);
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  int64_t KS = w.kernelSize(), inSize = w.inSize(), outSize = w.outSize();
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    ComputeView<T> vx(x.data, numElements(x)), vw(wt.data, numElements(wt));
    ComputeOutput<T> out(ctx.out(0).data, outDims.product());
    std::fill(out.data(), out.data() + outDims.product(), A(0));
    // Columns for a tile of input positions at a time, bounded in size.
    int64_t rows = Mg * KS;
    int64_t tile = tilePositions(rows, inSize, sizeof(A));
    Scratch<A> col;
    GC_TRY(col.allocate(ctx, rows * tile, "the col2im columns"));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t g = 0; g < group; ++g)
        for (int64_t p0 = 0; p0 < inSize; p0 += tile) {
          int64_t count = std::min(tile, inSize - p0);
          // col[Mg*KS, count] = W_g^T [Mg*KS, Cg] * X_g [Cg, p0 : p0+count]
          gemm<A>(true, false, rows, count, Cg, A(1), vw.data() + g * Cg * rows,
                  rows, vx.data() + (n * C + g * Cg) * inSize + p0, inSize,
                  A(0), col.data(), count);
          col2im(col.data(), Mg, w, p0, count,
                 out.data() + (n * M + g * Mg) * outSize);
        }
    if (ctx.has(2)) {
      ComputeView<T> vb(ctx.in(2).data, M);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t m = 0; m < M; ++m) {
          A *plane = out.data() + (n * M + m) * outSize;
          for (int64_t p = 0; p < outSize; ++p)
            plane[p] += vb.data()[m];
        }
    }
    out.flush();
    return 0;
  });
}
