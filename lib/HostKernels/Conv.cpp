//===- Conv.cpp - Conv and ConvTranspose host kernels ---------------------===//
//
// ONNX Conv and ConvTranspose on graphc::convolve and convolveTransposed
// (lib/Support/Convolution.h: im2col + the blocked GEMM per image and
// group, and its adjoint); graph.quantized_conv on the same convolve in
// int64; a channels-last Conv or QuantizedConv on moved copies; Col2Im.
//
//===----------------------------------------------------------------------===//

#include "lib/HostKernels/ComputeView.h"
#include "lib/HostKernels/EightBit.h"
#include "lib/HostKernels/KernelAttrs.h"
#include "lib/HostKernels/Window.h"
#include "lib/Support/ImageBlocks.h"

#include <cstring>
#include <vector>

using namespace graphc::hk;

namespace {

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
int quantizedConvChannelsFirst(KernelContext &ctx,
                               const attrs::QuantizedConv &a);

/// A channels-last conv (X [N, spatial..., C], W [M, k..., C/group], Y
/// [N, out..., M]; graph.conv's or graph.quantized_conv's) computed by
/// `channelsFirst`, its channels-first kernel, on moved copies: the
/// reference is for correctness, not speed.
template <typename Attrs>
int convChannelsLast(KernelContext &ctx, const Attrs &a,
                     int (*channelsFirst)(KernelContext &, const Attrs &)) {
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
  GC_TRY(channelsFirst(first, a));
  Dims movedDims;
  std::vector<char> moved = moveDim(output, 1, last, movedDims);
  std::memcpy(y.data, moved.data(), moved.size());
  return 0;
}

} // namespace

GC_KERNEL_ATTRS(conv, Conv, a) {
  if (a.channelsLast)
    return convChannelsLast(ctx, a, convChannelsFirst);
  return convChannelsFirst(ctx, a);
}

GC_KERNEL_ATTRS(quantized_conv, QuantizedConv, a) {
  if (a.channelsLast)
    return convChannelsLast(ctx, a, quantizedConvChannelsFirst);
  return quantizedConvChannelsFirst(ctx, a);
}

namespace {
/// The window and result dims of a channels-first convolution (conv,
/// quantized_conv) of X [N, C, in...] by W [M, C / group, k...], checked.
template <typename AttrsT>
int convGeometry(KernelContext &ctx, const AttrsT &a, const gc_tensor &x,
                 const gc_tensor &wt, Window &w, Dims &outDims) {
  if (x.rank < 3 || wt.rank != x.rank)
    return ctx.fail("input and weight must have the same rank >= 3");
  GC_TRY(computeWindow(ctx, a, x, wt.dims + 2, false, w));
  int64_t group = a.group;
  int64_t N = x.dims[0], C = x.dims[1], M = wt.dims[0];
  if (group < 1 || C % group || M % group || wt.dims[1] != C / group)
    return ctx.fail("weight shape does not match %lld input channels in %lld "
                    "groups",
                    static_cast<long long>(C), static_cast<long long>(group));
  outDims.push(N);
  outDims.push(M);
  for (int d = 0; d < w.nd; ++d)
    outDims.push(w.out[d]);
  return 0;
}

int convChannelsFirst(KernelContext &ctx, const attrs::Conv &a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0), &wt = ctx.in(1);
  GC_TRY(ctx.checkSameDtype(1, x.dtype, "weight"));
  Window w;
  Dims outDims;
  GC_TRY(convGeometry(ctx, a, x, wt, w, outDims));
  int64_t group = a.group;
  int64_t N = x.dims[0], C = x.dims[1], M = wt.dims[0];
  GC_TRY(checkBias(ctx, x.dtype, M));
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  int64_t Cg = C / group, Mg = M / group, KS = w.kernelSize();
  int64_t P = w.outSize(), inSize = w.inSize();
  return dispatch<kFloats>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Arith<T>;
    ComputeView<T> vx(x.data, numElements(x)), vw(wt.data, numElements(wt));
    ComputeOutput<T> out(ctx.out(0).data, outDims.product());
    // Columns for a tile of output positions at a time: their size is
    // bounded however large the padding or the kernel.
    int64_t tile = graphc::convolveTile<A>(w, Cg, kMaxTileScratchBytes);
    Scratch<A> col;
    if (!w.readsImageAsColumns())
      GC_TRY(col.allocate(ctx, Cg * KS * tile, "the im2col columns"));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t g = 0; g < group; ++g)
        graphc::convolve<A>(w, vx.data() + (n * C + g * Cg) * inSize, Cg,
                            vw.data() + g * Mg * Cg * KS, Mg,
                            out.data() + (n * M + g * Mg) * P, col.data(),
                            tile);
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

/// QuantizedConv, channels first: int8/uint8 X and W in any mix, the exact
/// sum of each output element's products in int64 (graphc::convolve over
/// widened copies: its GEMM adds integers exactly in any order), wrapped to
/// the int32 result. Padding reads zeros.
int quantizedConvChannelsFirst(KernelContext &ctx,
                               const attrs::QuantizedConv &a) {
  GC_TRY(ctx.expect(2, 1));
  const gc_tensor &x = ctx.in(0), &wt = ctx.in(1);
  if (!isEightBitInteger(x.dtype))
    return ctx.unsupportedDtype("input", x.dtype);
  if (!isEightBitInteger(wt.dtype))
    return ctx.unsupportedDtype("weight", wt.dtype);
  Window w;
  Dims outDims;
  GC_TRY(convGeometry(ctx, a, x, wt, w, outDims));
  int64_t group = a.group;
  int64_t N = x.dims[0], C = x.dims[1], M = wt.dims[0];
  GC_TRY(ctx.checkOutput(0, GC_DTYPE_I32, outDims));
  int64_t Cg = C / group, Mg = M / group, KS = w.kernelSize();
  int64_t P = w.outSize(), inSize = w.inSize();
  Scratch<int64_t> vx, vw, sums, col;
  GC_TRY(vx.allocate(ctx, numElements(x), "the widened input"));
  GC_TRY(vw.allocate(ctx, numElements(wt), "the widened weight"));
  GC_TRY(sums.allocate(ctx, M * P, "the sums of one image"));
  widenEightBit(x.dtype, x.data, 0, numElements(x), vx.data());
  widenEightBit(wt.dtype, wt.data, 0, numElements(wt), vw.data());
  int64_t tile = graphc::convolveTile<int64_t>(w, Cg, kMaxTileScratchBytes);
  if (!w.readsImageAsColumns())
    GC_TRY(col.allocate(ctx, Cg * KS * tile, "the im2col columns"));
  int32_t *out = static_cast<int32_t *>(ctx.out(0).data);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t g = 0; g < group; ++g)
      graphc::convolve<int64_t>(w, vx.data() + (n * C + g * Cg) * inSize, Cg,
                                vw.data() + g * Mg * Cg * KS, Mg,
                                sums.data() + g * Mg * P, col.data(), tile);
    for (int64_t i = 0; i < M * P; ++i)
      out[n * M * P + i] = wrapToInt32(sums.data()[i]);
  }
  return 0;
}
} // namespace

GC_KERNEL_ATTRS(conv_transpose, ConvTranspose, a) {
  GC_TRY(ctx.expect(2, 1));
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
    int64_t tile =
        graphc::columnTile(rows, inSize, sizeof(A), kMaxTileScratchBytes);
    Scratch<A> col;
    GC_TRY(col.allocate(ctx, rows * tile, "the col2im columns"));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t g = 0; g < group; ++g)
        graphc::convolveTransposed<A>(w, vx.data() + (n * C + g * Cg) * inSize,
                                      Cg, vw.data() + g * Cg * rows, Mg,
                                      out.data() + (n * M + g * Mg) * outSize,
                                      col.data(), tile);
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

/// Col2Im: each image element gathers, in kernel-offset order, the columns
/// of the blocks covering it (the sum the ONNX reference scatters).
GC_KERNEL_ATTRS(col2im, Col2Im, a) {
  GC_TRY(ctx.expect(3, 1));
  const gc_tensor &x = ctx.in(0);
  if (x.rank != 3)
    return ctx.fail("input must have rank 3 ([N, C * prod(block), L])");
  Dims image, block;
  GC_TRY(ctx.readInts(1, image, "image_shape"));
  GC_TRY(ctx.readInts(2, block, "block_shape"));
  int nd = image.rank;
  if (block.rank != nd)
    return ctx.fail("block_shape has %d entries but image_shape has %d",
                    block.rank, nd);
  if (nd + 2 > kMaxRank)
    return ctx.fail("image_shape has %d entries, at most %d are supported", nd,
                    kMaxRank - 2);
  if ((a.dilations.present && a.dilations.count != nd) ||
      (a.strides.present && a.strides.count != nd) ||
      (a.pads.present && a.pads.count != 2 * nd))
    return ctx.fail("dilations, strides and pads must match the %d spatial "
                    "dims",
                    nd);
  graphc::ConvWindow w;
  if (const char *error =
          graphc::col2imWindow(nd, image.v, block.v,
                               a.dilations.present ? a.dilations.data : nullptr,
                               a.pads.present ? a.pads.data : nullptr,
                               a.strides.present ? a.strides.data : nullptr, w))
    return ctx.fail("%s", error);
  std::optional<int64_t> blockSize = graphc::checkedElementCount(w.kernel, nd);
  std::optional<int64_t> blockCount = graphc::checkedElementCount(w.out, nd);
  if (!blockSize || !blockCount || x.dims[1] % *blockSize != 0 ||
      x.dims[2] != *blockCount)
    return ctx.fail("input shape does not match the blocks of the image");
  int64_t channels = x.dims[1] / *blockSize;
  Dims outDims;
  outDims.push(x.dims[0]);
  outDims.push(channels);
  for (int d = 0; d < nd; ++d)
    outDims.push(image[d]);
  GC_TRY(ctx.checkOutput(0, x.dtype, outDims));
  Dims blockStrides = Dims(w.out, nd).strides();
  int64_t planes = x.dims[0] * channels;
  return dispatch<kNumeric>(ctx, x.dtype, "input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Integers sum with wrap-around, as the reference's.
    using A =
        std::conditional_t<std::is_integral_v<Arith<T>>, uint64_t, Arith<T>>;
    const T *in = static_cast<const T *>(x.data);
    T *out = static_cast<T *>(ctx.out(0).data);
    for (int64_t plane = 0; plane < planes; ++plane) {
      // Plane (n, c) reads rows c * blockSize.. of image n's columns.
      const T *columns = in + plane * *blockSize * *blockCount;
      forEachIndex(w.in, nd, [&](const int64_t *p) {
        A sum = A(0);
        int64_t row = 0;
        forEachIndex(w.kernel, nd, [&](const int64_t *k) {
          int64_t column = 0;
          bool covers = true;
          for (int d = 0; d < nd && covers; ++d) {
            int64_t t = p[d] + w.padBegin[d] - k[d] * w.dilation[d];
            int64_t b = t / w.stride[d];
            covers = t >= 0 && t % w.stride[d] == 0 && b < w.out[d];
            column += b * blockStrides[d];
          }
          if (covers)
            sum += static_cast<A>(toArith(columns[row * *blockCount + column]));
          ++row;
        });
        if constexpr (std::is_integral_v<A>)
          *out++ = static_cast<T>(sum);
        else
          *out++ = fromArith<T>(sum);
      });
    }
    return 0;
  });
}
